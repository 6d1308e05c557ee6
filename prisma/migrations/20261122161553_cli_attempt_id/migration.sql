-- AlterTable
ALTER TABLE "events" ADD COLUMN     "cli_attempt_id" TEXT;

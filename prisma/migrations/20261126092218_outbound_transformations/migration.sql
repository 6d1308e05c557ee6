-- AlterTable
ALTER TABLE "outbound_destinations" ADD COLUMN     "transformation" TEXT;

-- AlterTable
ALTER TABLE "outbound_attempts" ADD COLUMN     "transformation" JSONB;

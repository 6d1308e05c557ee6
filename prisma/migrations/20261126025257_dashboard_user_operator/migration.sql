-- AlterTable
ALTER TABLE "dashboard_users" ADD COLUMN     "operator" BOOLEAN NOT NULL DEFAULT false;

-- Every user from before teams had the whole installation (docs/operations.md "Teams and users"): they stay operators.
UPDATE "dashboard_users" SET "operator" = true;

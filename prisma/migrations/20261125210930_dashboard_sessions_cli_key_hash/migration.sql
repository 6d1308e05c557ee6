-- teams.cli_key held each workspace's CLI key in plain text: keep only its SHA-256 (hex), computed from
-- the stored key here (sha256() is built into PostgreSQL 11+), so every key issued before keeps working
-- (docs/cli.md "The cli_key"). Edited by hand from the generated drop-and-add, which would lose them.

-- DropIndex
DROP INDEX "teams_cli_key_key";

-- AlterTable (a new column rather than a rename, so that its NOT NULL constraint is named after it on
-- PostgreSQL 18, as a fresh schema's is)
ALTER TABLE "teams" ADD COLUMN "cli_key_hash" TEXT;
UPDATE "teams" SET "cli_key_hash" = encode(sha256(convert_to("cli_key", 'UTF8')), 'hex');
ALTER TABLE "teams" ALTER COLUMN "cli_key_hash" SET NOT NULL;
ALTER TABLE "teams" DROP COLUMN "cli_key";

-- CreateTable
CREATE TABLE "dashboard_sessions" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dashboard_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "dashboard_sessions_user_id_idx" ON "dashboard_sessions"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "teams_cli_key_hash_key" ON "teams"("cli_key_hash");

-- AddForeignKey
ALTER TABLE "dashboard_sessions" ADD CONSTRAINT "dashboard_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "dashboard_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

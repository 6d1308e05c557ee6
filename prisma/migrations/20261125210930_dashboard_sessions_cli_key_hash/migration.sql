-- teams.cli_key held each workspace's CLI key in plain text: keep only its SHA-256 (hex), computed from
-- the stored key here (sha256() is built into PostgreSQL 11+), so every key issued before keeps working
-- (docs/cli.md "The cli_key"). Edited by hand from the generated drop-and-add, which would lose them.

-- DropIndex
DROP INDEX "teams_cli_key_key";

-- AlterTable
ALTER TABLE "teams" RENAME COLUMN "cli_key" TO "cli_key_hash";
UPDATE "teams" SET "cli_key_hash" = encode(sha256(convert_to("cli_key_hash", 'UTF8')), 'hex');

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

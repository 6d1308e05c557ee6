-- AlterTable
ALTER TABLE "teams" ADD COLUMN     "previous_signing_secret_encrypted" TEXT,
ADD COLUMN     "previous_signing_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "signing_secret_encrypted" TEXT;

-- AlterTable
ALTER TABLE "sources" ADD COLUMN     "auth_encrypted" TEXT;

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "destinations" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "type" TEXT NOT NULL DEFAULT 'HTTP',
    "config" JSONB NOT NULL DEFAULT '{}',
    "auth_encrypted" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "destinations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connections" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "source_id" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "rules" JSONB NOT NULL DEFAULT '[]',
    "rules_version" TEXT NOT NULL DEFAULT '2025-07-01',
    "paused_at" TIMESTAMPTZ(3),
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transformations" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "env_encrypted" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "transformations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_team_id_idx" ON "api_keys"("team_id");

-- CreateIndex
CREATE INDEX "destinations_team_id_created_at_id_idx" ON "destinations"("team_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "destinations_team_id_updated_at_id_idx" ON "destinations"("team_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "destinations_team_id_name_id_idx" ON "destinations"("team_id", "name", "id");

-- CreateIndex
CREATE UNIQUE INDEX "destinations_team_id_name_key" ON "destinations"("team_id", "name");

-- CreateIndex
CREATE INDEX "connections_team_id_created_at_id_idx" ON "connections"("team_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "connections_team_id_updated_at_id_idx" ON "connections"("team_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "connections_team_id_name_id_idx" ON "connections"("team_id", "name", "id");

-- CreateIndex
CREATE INDEX "connections_destination_id_idx" ON "connections"("destination_id");

-- CreateIndex
CREATE UNIQUE INDEX "connections_source_id_name_key" ON "connections"("source_id", "name");

-- CreateIndex
CREATE INDEX "transformations_team_id_created_at_id_idx" ON "transformations"("team_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "transformations_team_id_updated_at_id_idx" ON "transformations"("team_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "transformations_team_id_name_id_idx" ON "transformations"("team_id", "name", "id");

-- CreateIndex
CREATE UNIQUE INDEX "transformations_team_id_name_key" ON "transformations"("team_id", "name");

-- CreateIndex
CREATE INDEX "sources_team_id_updated_at_id_idx" ON "sources"("team_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "sources_team_id_name_id_idx" ON "sources"("team_id", "name", "id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connections" ADD CONSTRAINT "connections_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connections" ADD CONSTRAINT "connections_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connections" ADD CONSTRAINT "connections_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transformations" ADD CONSTRAINT "transformations_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

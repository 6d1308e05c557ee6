-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "TeamMode" AS ENUM ('GUEST', 'TEAM');

-- CreateTable
CREATE TABLE "teams" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "mode" "TeamMode" NOT NULL DEFAULT 'TEAM',
    "cli_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "teams_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "console_sessions" (
    "id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sources" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "type" TEXT NOT NULL DEFAULT 'WEBHOOK',
    "config" JSONB NOT NULL DEFAULT '{}',
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "requests" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "verified" BOOLEAN NOT NULL DEFAULT false,
    "rejection_cause" TEXT,
    "ingested_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "request_raw_data" (
    "request_id" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "headers" JSONB NOT NULL,
    "body" BYTEA,
    "body_size" INTEGER NOT NULL,
    "content_type" TEXT,
    "client_ip" TEXT,

    CONSTRAINT "request_raw_data_pkey" PRIMARY KEY ("request_id")
);

-- CreateTable
CREATE TABLE "rate_limit_counters" (
    "key" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("key","window_start")
);

-- CreateIndex
CREATE UNIQUE INDEX "teams_cli_key_key" ON "teams"("cli_key");

-- CreateIndex
CREATE UNIQUE INDEX "console_sessions_token_hash_key" ON "console_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "console_sessions_team_id_idx" ON "console_sessions"("team_id");

-- CreateIndex
CREATE INDEX "sources_team_id_created_at_id_idx" ON "sources"("team_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "sources_team_id_name_key" ON "sources"("team_id", "name");

-- CreateIndex
CREATE INDEX "requests_source_id_created_at_id_idx" ON "requests"("source_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "requests_team_id_created_at_id_idx" ON "requests"("team_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "rate_limit_counters_window_start_idx" ON "rate_limit_counters"("window_start");

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sources" ADD CONSTRAINT "sources_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "requests" ADD CONSTRAINT "requests_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "request_raw_data" ADD CONSTRAINT "request_raw_data_request_id_fkey" FOREIGN KEY ("request_id") REFERENCES "requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

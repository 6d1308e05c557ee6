-- CreateTable
CREATE TABLE "request_fanouts" (
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "request_fanouts_pkey" PRIMARY KEY ("request_id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_attempt_at" TIMESTAMPTZ(3),
    "next_attempt_at" TIMESTAMPTZ(3),
    "next_trigger" TEXT NOT NULL DEFAULT 'INITIAL',
    "response_status" INTEGER,
    "error_code" TEXT,
    "successful_at" TIMESTAMPTZ(3),
    "cli_id" TEXT,
    "data" JSONB,
    "locked_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ignored_events" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "cause" TEXT NOT NULL,
    "meta" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ignored_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attempts" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "attempt_number" INTEGER NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "response_status" INTEGER,
    "error_code" TEXT,
    "body" TEXT,
    "requested_url" TEXT,
    "http_method" TEXT,
    "bulk_retry_id" TEXT,
    "cli_id" TEXT,
    "successful_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "responded_at" TIMESTAMPTZ(3),
    "delivery_latency" INTEGER,
    "response_latency" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dedup_keys" (
    "webhook_id" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "event_id" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dedup_keys_pkey" PRIMARY KEY ("webhook_id","digest")
);

-- CreateTable
CREATE TABLE "transformation_executions" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "transformation_id" TEXT NOT NULL,
    "webhook_id" TEXT,
    "request_id" TEXT,
    "event_id" TEXT,
    "log_level" TEXT NOT NULL,
    "logs" JSONB NOT NULL DEFAULT '[]',
    "original_data" JSONB,
    "transformed_data" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transformation_executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cli_sessions" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "webhook_ids" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closed_at" TIMESTAMPTZ(3),

    CONSTRAINT "cli_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "request_fanouts_created_at_idx" ON "request_fanouts"("created_at");

-- CreateIndex
CREATE INDEX "events_team_id_created_at_id_idx" ON "events"("team_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "events_request_id_idx" ON "events"("request_id");

-- CreateIndex
CREATE INDEX "events_webhook_id_status_idx" ON "events"("webhook_id", "status");

-- CreateIndex
CREATE INDEX "events_destination_id_status_idx" ON "events"("destination_id", "status");

-- CreateIndex
CREATE INDEX "events_status_next_attempt_at_idx" ON "events"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "ignored_events_team_id_created_at_id_idx" ON "ignored_events"("team_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "ignored_events_request_id_idx" ON "ignored_events"("request_id");

-- CreateIndex
CREATE INDEX "attempts_team_id_created_at_id_idx" ON "attempts"("team_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "attempts_event_id_created_at_idx" ON "attempts"("event_id", "created_at");

-- CreateIndex
CREATE INDEX "dedup_keys_expires_at_idx" ON "dedup_keys"("expires_at");

-- CreateIndex
CREATE INDEX "transformation_executions_transformation_id_created_at_id_idx" ON "transformation_executions"("transformation_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "cli_sessions_team_id_idx" ON "cli_sessions"("team_id");

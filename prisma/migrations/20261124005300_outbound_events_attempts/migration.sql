-- CreateTable
CREATE TABLE "outbound_events" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "topic" TEXT NOT NULL DEFAULT '',
    "time" TIMESTAMPTZ(3) NOT NULL,
    "eligible_for_retry" BOOLEAN NOT NULL,
    "metadata" JSONB,
    "data" BYTEA NOT NULL,
    "destination_id" TEXT,
    "matched_destination_ids" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbound_deliveries" (
    "event_id" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "manual" BOOLEAN NOT NULL DEFAULT false,
    "next_attempt_at" TIMESTAMPTZ(3),
    "locked_until" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_deliveries_pkey" PRIMARY KEY ("event_id","destination_id")
);

-- CreateTable
CREATE TABLE "outbound_attempts" (
    "id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "destination_type" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "code" TEXT,
    "attempt_number" INTEGER NOT NULL,
    "manual" BOOLEAN NOT NULL,
    "latency_ms" INTEGER,
    "response_data" JSONB,
    "time" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "outbound_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "outbound_events_tenant_id_time_id_idx" ON "outbound_events"("tenant_id", "time", "id");

-- CreateIndex
CREATE INDEX "outbound_events_time_id_idx" ON "outbound_events"("time", "id");

-- CreateIndex
CREATE INDEX "outbound_deliveries_pending_idx" ON "outbound_deliveries"("next_attempt_at") WHERE (status = 'pending');

-- CreateIndex
CREATE INDEX "outbound_attempts_tenant_id_time_id_idx" ON "outbound_attempts"("tenant_id", "time", "id");

-- CreateIndex
CREATE INDEX "outbound_attempts_time_id_idx" ON "outbound_attempts"("time", "id");

-- CreateIndex
CREATE INDEX "outbound_attempts_event_id_idx" ON "outbound_attempts"("event_id");

-- CreateIndex
CREATE INDEX "outbound_attempts_destination_id_time_id_idx" ON "outbound_attempts"("destination_id", "time", "id");

-- DropIndex
DROP INDEX "requests_source_id_created_at_id_idx";

-- DropIndex
DROP INDEX "request_fanouts_created_at_idx";

-- DropIndex
DROP INDEX "events_webhook_id_status_idx";

-- DropIndex
DROP INDEX "events_status_next_attempt_at_idx";

-- CreateIndex
CREATE INDEX "requests_source_id_created_at_id_idx" ON "requests"("source_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "events_held_idx" ON "events"("webhook_id") WHERE (status = 'HOLD');

-- CreateIndex
CREATE INDEX "events_pending_idx" ON "events"("next_attempt_at") WHERE (status IN ('QUEUED', 'SCHEDULED'));

-- The explorers' list filters (status, destination, connection), newest first: without these a filter matching few of a
-- large team's events walked its whole (team_id, created_at, id) index (0.5-1 s at 1,000,000 events; docs/benchmarks.md
-- "Explorers"). Additive: no query needs them to be right.
-- CreateIndex
CREATE INDEX "events_team_id_status_created_at_id_idx" ON "events"("team_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "events_destination_id_created_at_id_idx" ON "events"("destination_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "events_webhook_id_created_at_id_idx" ON "events"("webhook_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "attempts_destination_id_created_at_id_idx" ON "attempts"("destination_id", "created_at", "id");

-- Ordered delivery per key (docs/pipeline.md "Ordered delivery"). Expand-only: nullable columns and a partial index that
-- holds only ordered events still waiting (or blocked), so unordered events add no entry to it and code that does not
-- know these columns keeps running. `ordering_pos` sorts in byte order like the ids it copies (COLLATE "C").
-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "ordering" JSONB;

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "ordering_blocked_at" TIMESTAMPTZ(3),
ADD COLUMN     "ordering_key" TEXT,
ADD COLUMN     "ordering_pos" TEXT COLLATE "C";

-- CreateIndex
CREATE INDEX "events_ordering_idx" ON "events"("destination_id", "ordering_key", "ordering_pos", "id") WHERE (ordering_key IS NOT NULL AND (status IN ('QUEUED', 'SCHEDULED', 'HOLD') OR ordering_blocked_at IS NOT NULL));

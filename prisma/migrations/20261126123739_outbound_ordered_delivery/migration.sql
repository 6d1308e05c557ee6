-- Ordered delivery per key for outbound destinations (docs/outbound.md "Ordered delivery"). Expand-only: nullable
-- columns, a partial index that holds only ordered deliveries still waiting (or blocked), so unordered deliveries add
-- no entry to it, and a sequence that gives each ordered delivery its place when its publish is written (one
-- database-wide order: a publish answered before the next is sent always gets the smaller number, whichever web
-- process wrote it). Code that does not know these columns keeps running.
-- AlterTable
ALTER TABLE "outbound_destinations" ADD COLUMN     "ordering" JSONB;

-- AlterTable
ALTER TABLE "outbound_deliveries" ADD COLUMN     "ordering_blocked_at" TIMESTAMPTZ(3),
ADD COLUMN     "ordering_key" TEXT,
ADD COLUMN     "ordering_pos" BIGINT;

-- CreateIndex
CREATE INDEX "outbound_deliveries_ordering_idx" ON "outbound_deliveries"("destination_id", "ordering_key", "ordering_pos", "event_id") WHERE (ordering_key IS NOT NULL AND (status = 'pending' OR ordering_blocked_at IS NOT NULL));

-- CreateSequence (not modelled by Prisma)
CREATE SEQUENCE "outbound_ordering_seq";

-- AlterTable
ALTER TABLE "requests" ADD COLUMN     "bulk_retry_id" TEXT;

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "bulk_retry_id" TEXT;

-- CreateTable
CREATE TABLE "bulk_operations" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "family" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "query" JSONB NOT NULL,
    "upper_bound" TEXT,
    "cursor" TEXT,
    "estimated_count" INTEGER NOT NULL,
    "estimated_batch" INTEGER NOT NULL,
    "processed_batch" INTEGER NOT NULL DEFAULT 0,
    "completed_count" INTEGER NOT NULL DEFAULT 0,
    "failed_count" INTEGER,
    "in_progress" BOOLEAN NOT NULL DEFAULT true,
    "progress" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "completed_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bulk_operations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "bulk_operations_team_id_family_created_at_id_idx" ON "bulk_operations"("team_id", "family", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "bulk_operations_team_id_number_key" ON "bulk_operations"("team_id", "number");

-- CreateIndex
CREATE INDEX "requests_bulk_retry_idx" ON "requests"("bulk_retry_id") WHERE (bulk_retry_id IS NOT NULL);

-- CreateIndex
CREATE INDEX "events_bulk_retry_idx" ON "events"("bulk_retry_id") WHERE (bulk_retry_id IS NOT NULL);

-- AddForeignKey
ALTER TABLE "bulk_operations" ADD CONSTRAINT "bulk_operations_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

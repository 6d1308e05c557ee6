-- AlterTable
ALTER TABLE "outbound_events" ADD COLUMN     "schema_version" INTEGER,
ADD COLUMN     "schema_warnings" JSONB;

-- AlterTable
ALTER TABLE "outbound_deliveries" ADD COLUMN     "redrive_id" TEXT;

-- CreateTable
CREATE TABLE "outbound_topics" (
    "name" TEXT NOT NULL,
    "description" TEXT,
    "example" JSONB,
    "validation" TEXT NOT NULL DEFAULT 'off',
    "schema_version" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_topics_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "outbound_topic_schemas" (
    "topic" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "schema" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbound_topic_schemas_pkey" PRIMARY KEY ("topic","version")
);

-- CreateTable
CREATE TABLE "outbound_redrives" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT,
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

    CONSTRAINT "outbound_redrives_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "outbound_redrives_tenant_id_created_at_idx" ON "outbound_redrives"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "outbound_redrives_created_at_id_idx" ON "outbound_redrives"("created_at", "id");

-- CreateIndex
CREATE INDEX "outbound_deliveries_redrive_idx" ON "outbound_deliveries"("event_id", "destination_id") WHERE (status IN ('failed', 'pending'));

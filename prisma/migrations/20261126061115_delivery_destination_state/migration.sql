-- AlterTable
ALTER TABLE "outbound_destinations" ADD COLUMN     "rate_limit" INTEGER,
ADD COLUMN     "rate_limit_period" TEXT;

-- CreateTable
CREATE TABLE "delivery_destination_state" (
    "product" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "paused_until" TIMESTAMPTZ(3),
    "pause_reason" TEXT,
    "pace" INTEGER,
    "pace_origin" INTEGER,
    "pace_changed_at" TIMESTAMPTZ(3),
    "throttled" INTEGER NOT NULL DEFAULT 0,
    "throttle_window_start" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "breaker_state" TEXT NOT NULL DEFAULT 'closed',
    "breaker_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "breaker_openings" INTEGER NOT NULL DEFAULT 0,
    "probe_until" TIMESTAMPTZ(3),
    "window_start" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "window_attempts" INTEGER NOT NULL DEFAULT 0,
    "window_failures" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "delivery_destination_state_pkey" PRIMARY KEY ("product","destination_id")
);

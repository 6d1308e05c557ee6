-- AlterTable
ALTER TABLE "request_fanouts" ADD COLUMN     "trace_parent" TEXT;

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "trace_parent" TEXT;

-- AlterTable
ALTER TABLE "outbound_events" ADD COLUMN     "trace_parent" TEXT;

-- DropIndex
DROP INDEX "events_destination_id_status_idx";

-- A delivery claim (locked_until, updated_at) changes no indexed column: leave room on each page so it is a HOT update.
ALTER TABLE "events" SET (fillfactor = 70);

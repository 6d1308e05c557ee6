-- CreateTable
CREATE TABLE "issue_triggers" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "name" TEXT,
    "type" TEXT NOT NULL,
    "configs" JSONB NOT NULL,
    "channels" JSONB NOT NULL,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issue_triggers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issues" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "issue_trigger_id" TEXT,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "group_key" TEXT NOT NULL,
    "aggregation_keys" JSONB NOT NULL,
    "reference" JSONB NOT NULL,
    "data" JSONB,
    "opened_at" TIMESTAMPTZ(3) NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "dismissed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issue_events" (
    "issue_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issue_events_pkey" PRIMARY KEY ("issue_id","event_id")
);

-- CreateTable
CREATE TABLE "issue_scan_state" (
    "stream" TEXT NOT NULL,
    "last_id" TEXT NOT NULL,

    CONSTRAINT "issue_scan_state_pkey" PRIMARY KEY ("stream")
);

-- CreateTable
CREATE TABLE "bookmarks" (
    "id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "event_data_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bookmarks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_settings" (
    "team_id" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "topics" TEXT[],
    "source_id" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_settings_pkey" PRIMARY KEY ("team_id")
);

-- CreateIndex
CREATE INDEX "issue_triggers_team_id_created_at_id_idx" ON "issue_triggers"("team_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "issue_triggers_team_id_name_key" ON "issue_triggers"("team_id", "name");

-- CreateIndex
CREATE INDEX "issues_team_id_created_at_id_idx" ON "issues"("team_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "issues_group_idx" ON "issues"("team_id", "type", "group_key") WHERE (dismissed_at IS NULL);

-- CreateIndex
CREATE INDEX "issue_events_event_id_idx" ON "issue_events"("event_id");

-- CreateIndex
CREATE INDEX "issue_events_team_id_created_at_idx" ON "issue_events"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "bookmarks_team_id_created_at_id_idx" ON "bookmarks"("team_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "transformation_executions_team_id_created_at_idx" ON "transformation_executions"("team_id", "created_at");

-- AddForeignKey
ALTER TABLE "issue_triggers" ADD CONSTRAINT "issue_triggers_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bookmarks" ADD CONSTRAINT "bookmarks_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

/**
 * Webhook notifications (docs/gateway-api.md#notifications):
 * a team that enabled them gets each topic it chose (`issue.opened`, `issue.updated`, …) as a request
 * INTO its own chosen source, ingested in-process (no HTTP round trip, nothing leaves the machine), so it
 * flows through that source's connections like any webhook: signed, retried, inspectable.
 */
import { getPool } from "@/lib/db/pool";
import type { TNotificationWebhooks } from "@/lib/gateway/issues/schemas";
import { publicSourceId } from "@/lib/ids";
import { unprocessable } from "@/lib/http/errors";
import { ingest } from "@/lib/ingest/ingest";
import { logger } from "@/lib/log";

const log = logger("notifications");

/** `PUT /notifications/webhooks`: stores the settings; the source must be one of the team's (422 with `data.id`). Returns them. */
export async function setNotificationWebhooks(teamId: string, body: TNotificationWebhooks): Promise<TNotificationWebhooks> {
  const { rowCount } = await getPool().query("SELECT 1 FROM sources WHERE id = $1 AND team_id = $2", [body.source_id, teamId]);
  if (!rowCount) throw unprocessable(`Source ${body.source_id} does not exist`, { id: body.source_id });
  const topics = [...new Set(body.topics)];
  await getPool().query(
    `INSERT INTO notification_settings (team_id, enabled, topics, source_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (team_id) DO UPDATE SET enabled = EXCLUDED.enabled, topics = EXCLUDED.topics, source_id = EXCLUDED.source_id, updated_at = now()`,
    [teamId, body.enabled, topics, body.source_id],
  );
  return { enabled: body.enabled, topics, source_id: body.source_id };
}

/**
 * Publishes `topic` with `payload` into the team's notification source when the team enabled that
 * topic; otherwise does nothing. Never throws: a notification that cannot be written is logged, and
 * the issue it reports is unaffected.
 */
export async function notifyIssue(teamId: string, topic: string, payload: unknown): Promise<void> {
  try {
    const { rows } = await getPool().query<{ enabled: boolean; topics: string[]; source_id: string }>(
      "SELECT enabled, topics, source_id FROM notification_settings WHERE team_id = $1",
      [teamId],
    );
    const s = rows[0];
    if (!s?.enabled || !s.topics.includes(topic)) return;
    const body = Buffer.from(JSON.stringify({ topic, created_at: new Date().toISOString(), data: payload }));
    const answer = await ingest(
      publicSourceId(s.source_id),
      {
        method: "POST",
        pathname: "/",
        query: "",
        headers: { "content-type": "application/json", "user-agent": "Hookyard-Notifications", "x-hookyard-topic": topic },
        body,
        bodySize: body.length,
        bodyTooLarge: false,
        clientIp: "127.0.0.1",
        secure: false,
      },
      { published: true },
    );
    if (answer.status >= 300) log.warn(`notification ${topic} for ${teamId} was answered ${answer.status}`);
  } catch (err) {
    log.warn(`notification ${topic} for ${teamId} failed`, err instanceof Error ? err.message : err);
  }
}

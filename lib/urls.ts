import { getConfig } from "@/lib/config";
import { publicSourceId } from "@/lib/ids";

/** `{INGEST_URL}/{id without src_}`: where a source receives requests. */
export function ingestUrlFor(sourceId: string): string {
  return `${getConfig().ingestUrl}/${publicSourceId(sourceId)}`;
}

/** `{PUBLIC_URL}/{id without src_}`: where a console source is inspected. */
export function inspectUrlFor(sourceId: string): string {
  return `${getConfig().publicUrl}/${publicSourceId(sourceId)}`;
}

/**
 * The console's `cmd_hint` (docs/console-api.md#post-): our CLI's `listen` with `[port]` and
 * `<source-name>` left as placeholders and the workspace's `cli_key` filled in; `--server` names this
 * deployment so the command works as printed. `CLI_COMMAND` runs the user's own installation (default
 * `node cli/hookyard.mjs`, the clone's own file): a hint that let npx fetch a package by name would hand the
 * cli_key to whoever publishes one (docs/cli.md "Running it").
 */
export function cmdHintFor(cliKey: string): string {
  const { cliCommand, publicUrl } = getConfig();
  return `${cliCommand} listen [port] <source-name> --cli-key ${cliKey} --server ${publicUrl}`;
}

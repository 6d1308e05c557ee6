/** True while process `pid` exists (also when it belongs to another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Waits until `pid` has exited; true if it did within `timeoutMs` (ms). */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

/**
 * A start that cannot go on (docs/architecture.md#processes): `message` is one sentence of cause and remedy, printed as
 * it is, never with a stack trace (scripts/start.ts, scripts/worker.ts).
 */
export class StartFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartFailure";
  }
}

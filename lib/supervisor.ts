/**
 * `npm start` is a supervisor, not a chain (docs/architecture.md#processes): each part (the
 * embedded PostgreSQL, the web server, the delivery worker) runs on its own, and one that exits is
 * started again with exponential backoff (RESTART_BACKOFF_MS doubling up to RESTART_BACKOFF_MAX_MS) while
 * the others keep serving. A part that exits more than RESTART_BUDGET times within RESTART_WINDOW_MS has
 * spent its budget: the supervisor gives up (`onGiveUp`), so a process manager above it sees the failure.
 */

/** A part's state, as `GET /healthz` shows it. */
export type PartState = "starting" | "up" | "stalled" | "restarting" | "down" | "disabled" | "external" | "stopped";

/** `condition`: why a running part does not do its work (a worker that takes no due work), else absent. */
export type PartHealth = { state: PartState; restarts: number; last_exit: string | null; pid: number | null; condition?: string };

/** A started instance of a part: resolves `exited` with why it ended; `stop` ends it cleanly. */
export type RunningPart = { pid: number | null; exited: Promise<string>; stop: () => Promise<void> };

/** First delay before a restart, ms; doubled for each further restart within the window. */
const RESTART_BACKOFF_MS = 500;
/** Longest delay before a restart, ms. */
const RESTART_BACKOFF_MAX_MS = 15_000;
/** Restarts allowed per part within RESTART_WINDOW_MS before the supervisor gives up. */
export const RESTART_BUDGET = 10;
/** The window of the restart budget, ms. */
const RESTART_WINDOW_MS = 5 * 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One supervised part. */
export class Part {
  state: PartState = "down";
  private restartTimes: number[] = [];
  private running: RunningPart | null = null;
  private stopped = false;
  private lastExit: string | null = null;
  private restarts = 0;
  private condition: string | null = null;

  /**
   * @param name the part's name in logs and /healthz (`database`, `web`, `worker`).
   * @param launch starts one instance; resolves once it serves, throws when it cannot start.
   * @param opts `log` for one line per event; `onChange` after each state change; `onGiveUp` when the
   *   budget is spent; `beforeRestart` resolves when a restart may be tried (e.g. the database is up).
   */
  constructor(
    readonly name: string,
    private readonly launch: () => Promise<RunningPart>,
    private readonly opts: { log: (m: string) => void; onChange?: () => void; onGiveUp: (why: string) => void; beforeRestart?: () => Promise<void> },
  ) {}

  /** The part's state for /healthz. */
  health(): PartHealth {
    const stalled = this.state === "up" && this.condition !== null;
    return {
      state: stalled ? "stalled" : this.state,
      restarts: this.restarts,
      last_exit: this.lastExit,
      pid: this.running?.pid ?? null,
      ...(stalled ? { condition: this.condition! } : {}),
    };
  }

  /** The running instance reports that it does not do its work (`why`) or does again (null). */
  setCondition(why: string | null): void {
    if (why === this.condition) return;
    this.condition = why;
    this.opts.onChange?.();
  }

  private set(state: PartState) {
    this.state = state;
    this.opts.onChange?.();
  }

  /** Starts the part the first time; throws (the launch's error) when it cannot start. */
  async start(): Promise<void> {
    this.set("starting");
    this.watch(await this.launch());
  }

  private watch(running: RunningPart) {
    this.running = running;
    this.condition = null;
    this.set("up");
    void running.exited.then((why) => {
      if (this.stopped || this.running !== running) return;
      this.running = null;
      this.lastExit = why;
      void this.restart(`${this.name} ${why}`);
    });
  }

  /** Restarts after a backoff, until it runs again, the budget is spent, or the supervisor stops. */
  private async restart(why: string): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.restartTimes = this.restartTimes.filter((t) => now - t < RESTART_WINDOW_MS);
      if (this.restartTimes.length >= RESTART_BUDGET) {
        this.set("down");
        this.opts.onGiveUp(`${why}; it was restarted ${RESTART_BUDGET} times in ${RESTART_WINDOW_MS / 60_000} minutes, giving up`);
        return;
      }
      const delay = Math.min(RESTART_BACKOFF_MAX_MS, RESTART_BACKOFF_MS * 2 ** this.restartTimes.length);
      this.restartTimes.push(now);
      this.set("restarting");
      this.opts.log(`${why}; restarting it in ${(delay / 1000).toFixed(1)} s`);
      await sleep(delay);
      await this.opts.beforeRestart?.();
      if (this.stopped) return;
      try {
        const running = await this.launch();
        if (this.stopped) return void (await running.stop());
        this.restarts++;
        this.watch(running);
        this.opts.log(`${this.name} restarted`);
        return;
      } catch (err) {
        why = `${this.name} could not restart (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`;
      }
    }
  }

  /** Resolves when the part is up (immediately if it is). */
  async whenUp(): Promise<void> {
    while (this.state !== "up" && !this.stopped) await sleep(200);
  }

  /** Restarts no more (the supervisor is stopping: a part that exits now, e.g. on the terminal's Ctrl-C, is not restarted). */
  halt(): void {
    this.stopped = true;
  }

  /** Stops the part and its restarts. */
  async stop(): Promise<void> {
    this.stopped = true;
    const running = this.running;
    this.running = null;
    await running?.stop();
    this.set("stopped");
  }
}

/** The message the supervisor sends its web child with every part's state (shown by /healthz). */
export type HealthMessage = { type: "health"; parts: Record<string, PartHealth> };

const g = globalThis as unknown as { __hookyardParts?: Record<string, PartHealth> };

/** In the web process: the parts' states last sent by the supervisor (null when not supervised). */
export const supervisedParts = (): Record<string, PartHealth> | null => g.__hookyardParts ?? null;

/** In the web process: listens for the supervisor's health messages. */
export function receiveHealthMessages(): void {
  process.on("message", (m: HealthMessage) => {
    if (m && m.type === "health") g.__hookyardParts = m.parts;
  });
}

/**
 * In a supervised child (scripts/web.ts, scripts/worker.ts): a start that failed is one sentence, sent
 * to the supervisor (which prints it once) or, run alone, printed; then the process exits with `code`.
 */
export function failStart(message: string, code: number): never {
  if (process.send) process.send({ type: "failed", message });
  else console.error(`[hookyard] ${message}`);
  process.exit(code);
}

/**
 * In a child process: runs `stop` on SIGINT/SIGTERM and, when `supervised`, also when its parent is gone
 * (parent pid changed, IPC disconnected); then tells the supervisor it is ready.
 */
export function stopWithParent(stop: () => Promise<void>, supervised: boolean): void {
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  if (!supervised) return;
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop();
  }, 500).unref();
  process.on("disconnect", () => void stop());
  process.send?.("ready");
}

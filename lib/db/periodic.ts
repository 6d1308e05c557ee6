/**
 * A worker's periodic pass (retention, metrics rollups, issue detection): `pass` runs every
 * `intervalMs`, never two at once (a tick while one runs is skipped), its errors given to `onError`
 * and the next tick tried as usual.
 */

/**
 * Starts running `pass` every `intervalMs` ms (at once too when `now`), in the background (the timer does
 * not keep the process alive). Returns `stop`: cancels the timer and resolves when a pass in flight ended.
 */
export function startPeriodic(pass: () => Promise<unknown>, intervalMs: number, onError: (err: unknown) => void, now = true): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const tick = () => {
    if (running) return;
    running = pass()
      .catch(onError)
      .finally(() => (running = null));
  };
  if (now) tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

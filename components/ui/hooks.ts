"use client";

import { useEffect, useState, useSyncExternalStore } from "react";

/* One shared clock for every relative time on the page, ticking once a second while anyone listens. */
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribeClock(listener: () => void) {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, 1000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/**
 * The current time in ms, re-rendering every second; null on the server and during hydration,
 * so server HTML and the first client render agree.
 */
export function useNow(): number | null {
  return useSyncExternalStore(
    subscribeClock,
    () => now,
    () => null,
  );
}

const noopSubscribe = () => () => {};

/** False on the server and during hydration, true afterwards (for output that depends on the browser, like its time zone). */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noopSubscribe,
    () => true,
    () => false,
  );
}

/** Seconds left until `until` (ms), ticking; 0 when passed. */
export function useCountdown(until: number | null): number {
  // The seconds left, with the `until` they count down to: 0 until the first tick of a new `until`.
  const [count, setCount] = useState<{ until: number | null; left: number }>({ until: null, left: 0 });
  useEffect(() => {
    if (until == null) return;
    const tick = () => setCount({ until, left: Math.max(0, Math.ceil((until - Date.now()) / 1000)) });
    tick();
    const t = setInterval(tick, 250);
    return () => clearInterval(t);
  }, [until]);
  return until != null && count.until === until ? count.left : 0;
}

/**
 * A per-process counter bumped by every write to sources, connections, destinations or transformations
 * made in this process (the gateway API wrapper bumps it after each write). Ingestion's caches (1 s)
 * are dropped when it moves, so a change made through this process applies at once; a change made in
 * another process applies within the caches' second. (The workers' fan-out reads connections and
 * transformations fresh for each batch.) Kept on globalThis because Next.js
 * bundles its own copy of lib/ next to the server's.
 */
const g = globalThis as unknown as { __hookyardConfigGeneration?: number };

/** The current generation. */
export const configGeneration = (): number => g.__hookyardConfigGeneration ?? 0;

/** Marks every cached source, connection and transformation in this process stale. */
export function bumpConfigGeneration(): void {
  g.__hookyardConfigGeneration = configGeneration() + 1;
}

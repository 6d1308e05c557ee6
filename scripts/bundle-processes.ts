/**
 * `npm run build`'s last step: bundles the web and worker processes of `npm start` (scripts/build-if-needed.ts
 * {@link bundleProcessesIfNeeded}; docs/architecture.md#processes). Exits 1 with esbuild's message when the
 * sources do not compile.
 */
import { bundleProcessesIfNeeded } from "./build-if-needed";

try {
  bundleProcessesIfNeeded();
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}

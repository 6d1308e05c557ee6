/**
 * The pictures in docs/ (docs/dashboard/, docs/console/, docs/portal/), taken by the browser tests on the
 * pages they have just checked. Only when `DOCS_SCREENSHOTS=1` (`npm run screenshots`, docs/dashboard.md
 * "Screenshots"): `npm test` checks the same pages without them, so a test run neither spends Chromium's
 * time on full-page captures (about 150 of them, 0.2–0.9 s each on a 2-core machine: docs/benchmarks.md
 * "The test suite") nor rewrites the committed pictures.
 */
import type { Locator, Page } from "@playwright/test";

/** True when the run takes the docs' pictures (`DOCS_SCREENSHOTS=1`). */
export const TAKING_SCREENSHOTS = process.env.DOCS_SCREENSHOTS === "1";

/**
 * A picture of `target` (a page: the whole page when `fullPage`; or one element) into `path` (relative to
 * the repository), when {@link TAKING_SCREENSHOTS}; otherwise nothing. Throws what Playwright's
 * `screenshot` throws.
 */
export async function docsScreenshot(target: Page | Locator, path: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!TAKING_SCREENSHOTS) return;
  if ("goto" in target) await target.screenshot({ path, fullPage: options.fullPage ?? false });
  else await target.screenshot({ path });
}

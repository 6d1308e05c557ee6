/**
 * The browser tests' accessibility check: axe-core's rules (every rule axe runs by default) on the page as it
 * is now, failing on any serious or critical violation, in one colour scheme or in light and dark.
 *
 * axe runs inside the page: its source is injected once per document and `axe.run` is called there. That is
 * what @axe-core/playwright's `analyze()` does too, but it also injects the source again on every call and
 * opens a blank page to merge the frames' partial results: 1.4–2.6 s a call on a 2-core machine against
 * 0.2–0.4 s here (docs/benchmarks.md "The test suite"). A page with frames (an embedded portal) still goes
 * through @axe-core/playwright, which injects into every frame, cross-origin ones included.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";
import type { AxeResults } from "axe-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

type ColorScheme = "light" | "dark";

/**
 * Switches the page's colour scheme and waits until the colour transitions it started (buttons fade their
 * colours, `transition-colors`, 150 ms) have finished, so colours are measured and photographed at rest.
 */
export async function setColorScheme(page: Page, colorScheme: ColorScheme): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await settleTransitions(page);
}

/** Waits until the CSS transitions running now have finished (immediately when none run). */
export async function settleTransitions(page: Page): Promise<void> {
  // getAnimations() flushes pending style changes first, so transitions that a media change starts are
  // listed. Animations (a live dot's pulse) may run forever and are not waited for.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a instanceof CSSTransition)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
}

/** axe's serious and critical violations on the page as it is now, one line each: `rule (impact): targets`. */
export async function seriousViolations(page: Page): Promise<string[]> {
  let violations: AxeResults["violations"];
  if (page.frames().length > 1) {
    ({ violations } = await new AxeBuilder({ page }).analyze());
  } else {
    if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
    violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe;
      return (await axe.run(document, { resultTypes: ["violations"] })).violations;
    });
  }
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * No serious or critical axe violation on the page as it is now, in its current colour scheme. `what` names
 * the page's state in a failure.
 */
export async function expectAccessibleNow(page: Page, what = ""): Promise<void> {
  await settleTransitions(page);
  expect(await seriousViolations(page), what).toEqual([]);
}

/**
 * No serious or critical axe violation on the page in light and in dark; the page is left in light. The
 * pointer is moved away first: a hovered button shows its hover colours, and the resting state is measured.
 * `what` names the page's state in a failure.
 */
export async function expectAccessible(page: Page, what = ""): Promise<void> {
  await page.mouse.move(0, 0);
  for (const colorScheme of ["light", "dark"] as const) {
    await setColorScheme(page, colorScheme);
    expect(await seriousViolations(page), `${what} (${colorScheme})`.trim()).toEqual([]);
  }
  await setColorScheme(page, "light");
}

/**
 * Helpers of the dashboard page tests (e2e/dashboard-pages.spec.ts): a team and a signed-in user of it,
 * and the phone-width check with its pictures (light, dark, 390 px) for docs/dashboard/.
 */
import { expect, type Page } from "@playwright/test";
import { setColorScheme } from "./accessibility";
import { docsScreenshot, TAKING_SCREENSHOTS } from "./docs-screenshots";
import { newUser } from "./dashboard";
import { newTeam, type TestTeam } from "./gateway";

/** A fresh team (with an API key for setting things up) and a user of it signed in on `page`. */
export async function signedIn(page: Page): Promise<TestTeam & { email: string }> {
  const team = await newTeam("dashboard pages");
  const { email, password } = await newUser(team.teamId);
  // Signs in as the sign-in form does (next-auth's credentials callback with its CSRF token): the session
  // cookie lands in the page's context. The form itself is tested with the sign-in pages.
  const { csrfToken } = (await (await page.request.get("/dashboard/api/auth/csrf")).json()) as { csrfToken: string };
  const res = await page.request.post("/dashboard/api/auth/callback/credentials", { form: { email, password, csrfToken, json: "true" } });
  expect(res.status(), await res.text()).toBe(200);
  await page.goto("/dashboard");
  await expect(page.getByTestId("signed-in-as").first()).toHaveText(email, { timeout: 30_000 });
  return { ...team, email };
}

/**
 * The page fits a phone's width (390 px): nothing sticks out sideways, the document does not scroll
 * sideways. With `DOCS_SCREENSHOTS=1` (e2e/support/docs-screenshots.ts), pictures of it first, into
 * docs/dashboard/<name>-{light,dark,390}.png. The viewport is restored.
 */
export async function fitsPhone(page: Page, name: string) {
  const size = page.viewportSize() ?? { width: 1280, height: 720 };
  if (TAKING_SCREENSHOTS) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.mouse.move(0, 0);
    // From the top, so the sticky phone header sits where it belongs in a full-page shot.
    await page.evaluate(() => window.scrollTo(0, 0));
    await setColorScheme(page, "light");
    await docsScreenshot(page, `docs/dashboard/${name}-light.png`, { fullPage: true });
    await setColorScheme(page, "dark");
    await docsScreenshot(page, `docs/dashboard/${name}-dark.png`, { fullPage: true });
    await setColorScheme(page, "light");
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await docsScreenshot(page, `docs/dashboard/${name}-390.png`, { fullPage: true });
  // Nothing may stick out sideways at a phone's width (tables scroll inside their own box), once the page has
  // laid itself out for it (a chart follows its box's new width on the next resize observation).
  await expect
    .poll(() =>
      page.evaluate(() =>
        [...document.querySelectorAll("body *")]
          .filter((e) => e.getBoundingClientRect().right > 391 && !e.closest(".overflow-x-auto"))
          .map((e) => `${e.tagName.toLowerCase()}.${String(e.className).slice(0, 60)}`)
          .slice(0, 5),
      ),
    )
    .toEqual([]);
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize(size);
}

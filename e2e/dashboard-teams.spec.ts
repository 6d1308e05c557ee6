/**
 * The Teams and System pages (docs/operations.md "Teams and users", "System page") in a real browser: an
 * operator creates a team, an API key shown once (which works on the API at once) and a member user; the
 * System page shows queues, processes, database size and retention; a member sees neither page in the
 * menu and gets the operators-only notice. Every page passes axe and is photographed into docs/dashboard/.
 */
import { expect, test } from "./support/browser";
import { expectAccessible } from "./support/accessibility";
import { fitsPhone, signedIn } from "./support/dashboard-pages";
import { newUser } from "./support/dashboard";
import { api, newTeam } from "./support/gateway";

test.describe.configure({ timeout: 120_000 });

test("teams: an operator creates a team, a key shown once and a member, with the keyboard", async ({ page }) => {
  await signedIn(page);
  await page.getByRole("link", { name: "Teams" }).click();
  await expect(page.getByRole("heading", { name: "Teams", level: 1 })).toBeVisible();
  const name = `Team ${Date.now().toString(36)}`;
  await page.getByTestId("new-team-name").fill(name);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("new-team-secrets")).toContainText(name);
  const team = page.getByTestId("team").filter({ hasText: name });
  await expect(team).toBeVisible();

  await team.getByTestId("new-key-name").fill("ci");
  await team.getByTestId("new-key-name").press("Enter");
  const key = (await team.getByTestId("new-key-value").textContent())!.trim();
  expect(key).toMatch(/^hky_/);
  expect((await api({ apiKey: key }, "GET", "/2025-07-01/sources")).status).toBe(200);
  await expect(team.getByTestId("key-row")).toHaveCount(1);

  await team.getByTestId("new-user-email").fill(`member-${Date.now()}@example.test`);
  await team.getByTestId("create-user").focus();
  await page.keyboard.press("Enter");
  await expect(team.getByTestId("new-user-link-value")).toContainText("/dashboard/sign-in/link?token=");
  await expect(team.getByTestId("user-row")).toContainText("member");
  await expectAccessible(page);
  await fitsPhone(page, "teams");

  // The kit's styled dialog asks (Escape cancels it), never window.confirm (docs/dashboard.md "One kit").
  const native: string[] = [];
  page.on("dialog", (d) => void d.dismiss().then(() => native.push(d.message())));
  await team.getByRole("button", { name: /^Revoke key ci/ }).click();
  const confirm = page.getByRole("dialog", { name: /^Revoke the key/ });
  await expect(confirm).toBeVisible();
  await expectAccessible(page);
  await page.keyboard.press("Escape");
  await expect(confirm).toBeHidden();
  await expect(team.getByText("revoked")).toHaveCount(0);
  await team.getByRole("button", { name: /^Revoke key ci/ }).click();
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  expect(native).toEqual([]);
  await expect(team.getByText("revoked")).toBeVisible();
  expect((await api({ apiKey: key }, "GET", "/2025-07-01/sources")).status).toBe(401);
});

test("system: queues, processes, database and retention", async ({ page }) => {
  await signedIn(page);
  await page.goto("/dashboard/system");
  await expect(page.getByRole("heading", { name: "System", level: 1 })).toBeVisible();
  await expect(page.getByTestId("queue-row")).toHaveCount(4);
  await expect(page.locator('[data-testid="part-row"][data-part="database"]')).toContainText("up");
  await expect(page.getByTestId("database-size")).toContainText(/\d/);
  await expect(page.getByTestId("table-row")).toHaveCount(10);
  await expect(page.getByTestId("retention")).toContainText("30 whole UTC days");
  await expectAccessible(page);
  await fitsPhone(page, "system");
});

test("a member sees neither page in the menu, and the notice on them", async ({ page }) => {
  const team = await newTeam("member");
  const { email, password } = await newUser(team.teamId, undefined, { operator: false });
  const { csrfToken } = (await (await page.request.get("/dashboard/api/auth/csrf")).json()) as { csrfToken: string };
  expect((await page.request.post("/dashboard/api/auth/callback/credentials", { form: { email, password, csrfToken, json: "true" } })).status()).toBe(200);
  await page.goto("/dashboard");
  await expect(page.getByTestId("signed-in-as").first()).toHaveText(email);
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  await expect(nav.getByRole("link", { name: "Events", exact: true })).toBeAttached();
  for (const item of ["Teams", "System", "Outbound"]) await expect(nav.getByRole("link", { name: item })).toHaveCount(0);
  for (const path of ["/dashboard/teams", "/dashboard/system", "/dashboard/outbound"]) {
    await page.goto(path);
    await expect(page.getByTestId("operators-only")).toBeVisible();
  }
});

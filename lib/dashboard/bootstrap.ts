import { getConfig } from "@/lib/config";
import { withAdvisoryLock } from "@/lib/db/transaction";
import { checkCredentials, createSignInToken, createUser, findUser, resetPassword, setOperator } from "@/lib/dashboard/users";
import { gatewayTeamId } from "@/lib/teams/teams";

/** The address a one-time sign-in link opens (the page sets a password and signs in). */
export const signInLink = (token: string) => `${getConfig().publicUrl}/dashboard/sign-in/link?token=${encodeURIComponent(token)}`;

/**
 * Makes sure someone can sign in to the dashboard (docs/dashboard.md#signing-in), after {@link ensureGatewayTeam}:
 * with DASHBOARD_ADMIN_EMAIL and DASHBOARD_ADMIN_PASSWORD set, that user exists with that password (created,
 * or its password reset when it no longer matches); otherwise, on a start with no user at all, creates
 * `admin@localhost` without a password and prints (through `log`) a one-time sign-in link, valid 24 hours,
 * that sets one. Either user is an operator (docs/operations.md "Teams and users"). Serialised by an advisory lock.
 */
export async function ensureDashboardAdmin(log: (message: string) => void): Promise<void> {
  await withAdvisoryLock(727274004, async (client) => {
    const teamId = await gatewayTeamId();
    if (!teamId) return;
    const { adminEmail, adminPassword } = getConfig().dashboard;
    if (adminEmail && adminPassword) {
      const existing = await findUser(adminEmail);
      if (!existing) {
        await createUser(adminEmail, adminPassword, teamId, { operator: true });
        log(`dashboard user ${adminEmail} created (DASHBOARD_ADMIN_EMAIL)`);
      } else if (!(await checkCredentials(adminEmail, adminPassword))) {
        await resetPassword(adminEmail, adminPassword);
        log(`dashboard user ${adminEmail}: password set from DASHBOARD_ADMIN_PASSWORD`);
      }
      if (existing && !existing.operator) await setOperator(existing.id, true);
      return;
    }
    const { rowCount } = await client.query("SELECT 1 FROM dashboard_users LIMIT 1");
    if (rowCount) return;
    const user = await createUser(adminEmail ?? "admin@localhost", null, teamId, { operator: true });
    const token = await createSignInToken(user.id);
    log(`created the dashboard user ${user.email}. Open this one-time link within 24 hours to choose its password:`);
    log(`  ${signInLink(token)}`);
    log("  (manage users with `npm run users`, docs/dashboard.md)");
  });
}

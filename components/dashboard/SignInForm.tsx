"use client";

import { useState } from "react";
import { LogoMark } from "@/components/ui/Logo";
import { authPost } from "@/components/dashboard/api";
import { Button } from "@/components/ui/Button";
import { Field, Input } from "@/components/ui/Field";

/** What a next-auth `error` means to the person signing in. One message for every kind of wrong credentials. */
function signInErrorMessage(error: string): string {
  if (error === "CredentialsSignin") return "Wrong email or password.";
  if (error === "RateLimited") return "Too many sign-in attempts. Wait 15 minutes, then try again.";
  return `Sign-in failed (${error}). Try again.`;
}

/** Only dashboard paths are followed after sign-in (no open redirect). */
function safeCallback(raw: string | null): string {
  return raw && /^\/dashboard(\/|\?|$)/.test(raw) && !raw.startsWith("/dashboard/sign-in") ? raw : "/dashboard";
}

/**
 * The sign-in card. `mode` "password": email and password. `mode` "link": a one-time sign-in link's
 * token, and the new password it sets; `account` is whom the link is for (null: unknown, used or expired).
 */
export function SignInForm({
  mode,
  token,
  initialError,
  account,
}: {
  mode: "password" | "link";
  token?: string;
  initialError?: string | null;
  account?: { email: string; team: string } | null;
}) {
  const [error, setError] = useState<string | null>(initialError ? signInErrorMessage(initialError) : null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const field = (name: string) => {
      const v = form.get(name);
      return typeof v === "string" ? v : "";
    };
    setBusy(true);
    setError(null);
    try {
      const fields: Record<string, string> =
        mode === "password" ? { email: field("email"), password: field("password") } : { token: token ?? "", password: field("password") };
      if (mode === "link" && fields.password !== field("confirm")) {
        setError("The two passwords differ.");
        return;
      }
      const failure = await authPost(`callback/${mode === "password" ? "credentials" : "link"}`, fields);
      if (failure) {
        setError(
          mode === "link" && failure === "CredentialsSignin"
            ? "This sign-in link was already used or has expired (or the password is shorter than 12 characters). Ask for a new one with `npm run users -- reset-password <email>`."
            : signInErrorMessage(failure),
        );
        return;
      }
      window.location.assign(safeCallback(new URLSearchParams(window.location.search).get("callbackUrl")));
    } catch (err) {
      setError(`Sign-in failed: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="flex min-h-dvh items-center justify-center px-4 py-10">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex flex-col items-center gap-3 text-center">
          <LogoMark className="size-10" />
          <h1 className="text-xl font-semibold tracking-tight">{mode === "password" ? "Sign in to the dashboard" : "Choose your password"}</h1>
          {mode === "link" &&
            (account ? (
              <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="link-account">
                For <strong className="font-semibold text-zinc-900 dark:text-zinc-100">{account.email}</strong> in the team{" "}
                <strong className="font-semibold text-zinc-900 dark:text-zinc-100">{account.team}</strong>. This one-time link signs you in once. Set the
                password you will use from now on.
              </p>
            ) : (
              <p role="alert" className="text-sm text-rose-700 dark:text-rose-300" data-testid="link-account">
                This sign-in link was already used or has expired. Ask for a new one with `npm run users -- reset-password &lt;email&gt;`.
              </p>
            ))}
        </div>
        <form
          onSubmit={(e) => void submit(e)}
          className="flex flex-col gap-4 rounded-lg border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900/60"
          noValidate={false}
        >
          {mode === "password" && (
            <Field label="Email">{(p) => <Input {...p} name="email" type="email" autoComplete="username" required autoFocus data-testid="email" />}</Field>
          )}
          <Field label={mode === "password" ? "Password" : "New password"} hint={mode === "link" ? "At least 12 characters." : undefined}>
            {(p) => (
              <Input
                {...p}
                name="password"
                type="password"
                autoComplete={mode === "password" ? "current-password" : "new-password"}
                required
                minLength={mode === "link" ? 12 : undefined}
                data-testid="password"
              />
            )}
          </Field>
          {mode === "link" && (
            <Field label="Repeat the password">
              {(p) => <Input {...p} name="confirm" type="password" autoComplete="new-password" required minLength={12} data-testid="confirm" />}
            </Field>
          )}
          {error && (
            <p
              role="alert"
              data-testid="sign-in-error"
              className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-800 dark:bg-rose-500/10 dark:text-rose-200"
            >
              {error}
            </p>
          )}
          <Button type="submit" variant="primary" disabled={busy} data-testid="sign-in-submit">
            {busy ? "Signing in…" : mode === "password" ? "Sign in" : "Set password and sign in"}
          </Button>
        </form>
        <p className="mt-4 text-center text-xs text-zinc-600 dark:text-zinc-400">
          Forgot your password? An operator runs `npm run users -- reset-password &lt;email&gt;`.
        </p>
      </div>
    </main>
  );
}

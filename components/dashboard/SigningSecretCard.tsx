"use client";
/**
 * The team's signing secret (docs/gateway-api.md#signing-secret): rotate it with a chosen overlap, during
 * which deliveries carry `x-gateway-signature-2` signed with the old one. The new secret is shown once.
 */
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/components/dashboard/api";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { CopyButton } from "@/components/ui/CopyButton";
import { OVERLAP_CHOICES, OverlapSelect } from "@/components/ui/OverlapSelect";
import { AbsoluteTime } from "@/components/ui/Time";

type Rotated = { signing_secret: string; previous_secret_expires_at: string | null };

export function SigningSecretCard() {
  const [overlap, setOverlap] = useState(86_400);
  const [confirm, setConfirm] = useState(false);
  const rotate = useMutation({
    mutationFn: (seconds: number) => api<Rotated>("signing-secret/rotate", { method: "POST", body: { delay: seconds * 1000 } }),
    onSuccess: () => setConfirm(false),
  });
  const r = rotate.data;
  return (
    <Card title="Signing secret" data-testid="signing-secret-card" className="mt-4">
      <div className="space-y-3">
        <p className="text-sm text-zinc-700 dark:text-zinc-300">
          Every delivery carries <code className="font-mono text-xs">x-gateway-signature</code>, an HMAC-SHA256 of the body keyed with your team&apos;s signing
          secret. Rotating makes a new one; the old one keeps signing <code className="font-mono text-xs">x-gateway-signature-2</code> for the overlap you
          choose.
        </p>
        <div className="flex flex-wrap items-end gap-3">
          <OverlapSelect value={overlap} onChange={setOverlap} />
          <Button onClick={() => setConfirm(true)}>Rotate secret</Button>
        </div>
        {r && (
          <div className="space-y-2" aria-live="polite">
            <div className="flex flex-wrap items-center gap-2">
              <code
                data-testid="new-signing-secret"
                className="min-w-0 flex-1 break-all rounded-md bg-zinc-100 px-3 py-2 font-mono text-sm text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100"
              >
                {r.signing_secret}
              </code>
              <CopyButton value={r.signing_secret} label="Copy" title="Copy the new signing secret" size="md" />
            </div>
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              Shown once: store it where your receiver reads it.{" "}
              {r.previous_secret_expires_at ? (
                <>
                  The old secret signs <code className="font-mono">x-gateway-signature-2</code> until <AbsoluteTime iso={r.previous_secret_expires_at} />.
                </>
              ) : (
                "The old secret no longer signs."
              )}
            </p>
          </div>
        )}
      </div>
      <ConfirmDialog
        open={confirm}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        pending={rotate.isPending}
        error={rotate.isError ? `Not rotated: ${rotate.error.message}` : null}
        onConfirm={() => rotate.mutate(overlap)}
        onCancel={() => setConfirm(false)}
      >
        <p>
          A new secret signs every delivery from now on.{" "}
          {overlap === 0
            ? "The old one stops signing at once: receivers that only know it fail from now on."
            : `The old one keeps signing x-gateway-signature-2 for ${OVERLAP_CHOICES.find((c) => c.seconds === overlap)?.label ?? `${overlap} seconds`}: update your receivers before then.`}
        </p>
      </ConfirmDialog>
    </Card>
  );
}

"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ApiError, deleteTestUrl, renameTestUrl } from "@/components/console/api";
import { Button } from "@/components/ui/Button";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { Input } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";

const messageOf = (err: unknown) => (err instanceof ApiError ? err.message : "Something went wrong. Please try again.");

/**
 * The owner's Rename and Delete controls of a test URL (docs/console.md "Renaming and deleting"):
 * rename edits the name in place (`PATCH /{id}`), delete asks first (`DELETE /{id}`) and goes back to `/`.
 * `onRenamed` runs with the stored name so the page can refresh what shows it.
 */
export function ManageTestUrl({ publicId, name, onRenamed }: { publicId: string; name: string; onRenamed: (name: string) => void }) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(name);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      const stored = await renameTestUrl(publicId, draft);
      setEditing(false);
      onRenamed(stored);
      router.refresh();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setPending(false);
    }
  };

  const remove = async () => {
    setPending(true);
    setError(null);
    try {
      await deleteTestUrl(publicId);
      router.push("/");
      router.refresh();
    } catch (err) {
      setError(messageOf(err));
      setPending(false);
    }
  };

  return (
    <div className="flex min-w-0 flex-wrap items-center gap-2">
      {editing ? (
        <form onSubmit={(e) => void save(e)} className="flex min-w-0 flex-wrap items-center gap-2" data-testid="rename-form">
          <label htmlFor="rename-input" className="sr-only">
            New name
          </label>
          <Input
            id="rename-input"
            data-testid="rename-input"
            value={draft}
            maxLength={155}
            required
            autoFocus
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => e.key === "Escape" && setEditing(false)}
            className="h-8 w-56 max-w-full"
          />
          <Button type="submit" size="sm" variant="primary" disabled={pending || !draft.trim()} data-testid="rename-save">
            Save
          </Button>
          <Button type="button" size="sm" variant="ghost" onClick={() => setEditing(false)}>
            Cancel
          </Button>
        </form>
      ) : (
        <>
          <Button
            type="button"
            size="xs"
            variant="ghost"
            data-testid="rename-test-url"
            onClick={() => {
              setDraft(name);
              setError(null);
              setEditing(true);
            }}
          >
            Rename
          </Button>
          <Button type="button" size="xs" variant="dangerOutline" data-testid="delete-test-url" onClick={() => setConfirming(true)}>
            Delete
          </Button>
        </>
      )}
      {error && !confirming && (
        <Notice className="w-full" data-testid="manage-error">
          {error}
        </Notice>
      )}
      <ConfirmDialog
        open={confirming}
        title="Delete this test URL?"
        confirmLabel="Delete"
        danger
        pending={pending}
        error={confirming ? error : null}
        onConfirm={() => void remove()}
        onCancel={() => setConfirming(false)}
      >
        <p>
          <strong className="font-medium">{name}</strong> and every request it captured are deleted. Its ingest URL stops accepting requests.
        </p>
      </ConfirmDialog>
    </div>
  );
}

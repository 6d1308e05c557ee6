import { Field, Select } from "@/components/ui/Field";

/** How long an old signing secret may keep signing after a rotation, seconds (docs/outbound.md "Signing secrets", docs/gateway-api.md#signing-secret). */
export const OVERLAP_CHOICES: { seconds: number; label: string }[] = [
  { seconds: 0, label: "None: the old secret stops now" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "24 hours" },
  { seconds: 7 * 86_400, label: "7 days" },
];

/** The rotation overlap picker (default 24 hours): `value` and `onChange` in seconds. */
export function OverlapSelect({ value, onChange }: { value: number; onChange: (seconds: number) => void }) {
  return (
    <Field label="Old secret keeps signing for" hint="During this overlap every delivery carries both signatures; then only the new one.">
      {(p) => (
        <Select {...p} data-testid="rotation-overlap" value={String(value)} onChange={(e) => onChange(Number(e.target.value))}>
          {OVERLAP_CHOICES.map((c) => (
            <option key={c.seconds} value={c.seconds}>
              {c.label}
            </option>
          ))}
        </Select>
      )}
    </Field>
  );
}

"use client";
/**
 * The portal's event catalog (docs/portal.md "What a tenant can do"): each topic the tenant can subscribe
 * to, with its description, its JSON Schema as a table of fields (path, type, required, description) and
 * its example payload (`GET /catalog`).
 */
import { useQuery } from "@tanstack/react-query";
import { api } from "@/components/portal/api";
import { ErrorNotice } from "@/components/portal/ui";
import { BackLink } from "@/components/ui/Button";
import { Card, Skeleton } from "@/components/ui/Card";
import { JsonText } from "@/components/ui/JsonText";
import { Table, Td, Th } from "@/components/ui/Table";
import type { CatalogTopic } from "@/lib/outbound/catalog";

type SchemaNode = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  enum?: unknown[];
  const?: unknown;
  format?: string;
};
type Row = { path: string; type: string; required: boolean; description: string };

/** A readable type: `string (date-time)`, `one of "a", "b"`, `array of integer`. */
function typeText(s: SchemaNode): string {
  if (s.enum) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (s.const !== undefined) return `always ${JSON.stringify(s.const)}`;
  const t = Array.isArray(s.type) ? s.type.join(" or ") : (s.type ?? "any");
  if (t === "array" && s.items) return `array of ${typeText(s.items)}`;
  return s.format ? `${t} (${s.format})` : t;
}

/** The fields of `schema`, depth first: `customer.email`, `items[].sku` (at most 6 levels, 200 rows). */
export function schemaRows(schema: SchemaNode, prefix = "", depth = 0, out: Row[] = []): Row[] {
  if (depth > 6 || out.length >= 200) return out;
  const node = schema.type === "array" && schema.items ? schema.items : schema;
  const sep = schema.type === "array" && schema.items ? "[]." : ".";
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const path = prefix ? `${prefix}${sep}${name}` : name;
    out.push({ path, type: typeText(child), required: (node.required ?? []).includes(name), description: child.description ?? "" });
    schemaRows(child, path, depth + 1, out);
  }
  return out;
}

function TopicCard({ t }: { t: CatalogTopic }) {
  const rows = t.schema ? schemaRows(t.schema) : [];
  return (
    <Card
      title={<span className="font-mono">{t.topic}</span>}
      meta={t.schema_version ? `schema version ${t.schema_version}` : "no schema"}
      data-testid="catalog-topic"
    >
      {t.description && <p className="mb-3 text-sm text-zinc-700 dark:text-zinc-300">{t.description}</p>}
      {rows.length > 0 && (
        <div className="mb-3 overflow-x-auto">
          <Table caption={`Fields of ${t.topic}`}>
            <thead>
              <tr>
                <Th>Field</Th>
                <Th>Type</Th>
                <Th>Required</Th>
                <Th>Description</Th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.path}>
                  <Td className="font-mono text-xs">{r.path}</Td>
                  <Td className="text-xs">{r.type}</Td>
                  <Td className="text-xs">{r.required ? "yes" : "no"}</Td>
                  <Td className="text-xs">{r.description}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      )}
      {t.example !== null && t.example !== undefined && (
        <div>
          <h3 className="mb-1 text-xs font-medium text-zinc-700 dark:text-zinc-300">Example</h3>
          <div className="overflow-x-auto rounded-md bg-zinc-50 p-3 font-mono text-xs whitespace-pre dark:bg-zinc-950">
            <JsonText text={JSON.stringify(t.example, null, 2)} />
          </div>
        </div>
      )}
    </Card>
  );
}

/** `/portal/catalog`: every topic of the catalog the tenant can subscribe to. */
export function Catalog() {
  const list = useQuery({ queryKey: ["catalog"], queryFn: () => api<{ models: CatalogTopic[] }>("/catalog") });
  return (
    <div className="space-y-6">
      <BackLink href="/portal">All destinations</BackLink>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Event catalog</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">The events you can subscribe to, what each one carries, and an example.</p>
      </div>
      {list.isPending ? (
        <Skeleton />
      ) : list.isError ? (
        <ErrorNotice error={list.error} what="The event catalog" retry={() => list.refetch()} />
      ) : list.data.models.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No events are described yet.</p>
      ) : (
        list.data.models.map((t) => <TopicCard key={t.topic} t={t} />)
      )}
    </div>
  );
}

import pg from "pg";

/**
 * A comparable description of a database's schema "public": tables and columns (type, nullability,
 * default), indexes, constraints and enums, one sorted line each; `_prisma_migrations` excluded.
 * Used to check that prisma/migrations and schema.prisma describe the same database.
 */
export async function describeCatalog(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const q = async (sql: string) => (await client.query<{ line: string }>(sql)).rows.map((r) => r.line);
    const lines = [
      ...(await q(`SELECT format('column %s.%s %s null=%s default=%s', table_name, column_name,
                      CASE WHEN data_type = 'USER-DEFINED' THEN udt_name ELSE data_type END, is_nullable, coalesce(column_default, '-')) AS line
                 FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`)),
      ...(await q(`SELECT format('index %s', indexdef) AS line FROM pg_indexes
                 WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`)),
      ...(await q(`SELECT format('constraint %s %s %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid)) AS line
                 FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                 WHERE n.nspname = 'public' AND c.conrelid::regclass::text <> '_prisma_migrations'`)),
      ...(await q(`SELECT format('enum %s %s', t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)) AS line
                 FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
                 WHERE n.nspname = 'public' GROUP BY t.typname`)),
    ];
    return lines.sort();
  } finally {
    await client.end();
  }
}

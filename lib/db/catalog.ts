import pg from "pg";

/**
 * A comparable description of a database's schema "public": tables and columns (type, nullability,
 * default), indexes, constraints and enums, one sorted line each; `_prisma_migrations` excluded.
 * Used to check that prisma/migrations and schema.prisma describe the same database.
 * A partitioned table is described as its parent (a table); its partitions and their indexes and constraints
 * are left out (Prisma cannot describe partitioning: migration 20261123220000_partition_by_time).
 */
export async function describeCatalog(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const q = async (sql: string) => (await client.query<{ line: string }>(sql)).rows.map((r) => r.line);
    const lines = [
      ...(await q(`SELECT format('column %s.%s %s null=%s default=%s', table_name, column_name,
                      CASE WHEN data_type = 'USER-DEFINED' THEN udt_name ELSE data_type END, is_nullable, coalesce(column_default, '-')) AS line
                 FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
                   AND NOT EXISTS (SELECT 1 FROM pg_class p WHERE p.oid = format('public.%I', table_name)::regclass AND p.relispartition)`)),
      // A partitioned table's index reads `ON ONLY table`: the same index as far as the schema goes.
      ...(await q(`SELECT format('index %s', replace(indexdef, ' ON ONLY ', ' ON ')) AS line FROM pg_indexes
                 WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'
                   AND NOT EXISTS (SELECT 1 FROM pg_class p WHERE p.oid = format('public.%I', tablename)::regclass AND p.relispartition)`)),
      ...(await q(`SELECT format('constraint %s %s %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid)) AS line
                 FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                 WHERE n.nspname = 'public' AND c.conrelid::regclass::text <> '_prisma_migrations'
                   AND NOT EXISTS (SELECT 1 FROM pg_class p WHERE p.oid = c.conrelid AND p.relispartition)`)),
      ...(await q(`SELECT format('partitioned %s %s', c.oid::regclass, pg_get_partkeydef(c.oid)) AS line
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'p'`)),
      ...(await q(`SELECT format('collation %s.%s %s', table_name, column_name, collation_name) AS line
                 FROM information_schema.columns WHERE table_schema = 'public' AND collation_name IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM pg_class p WHERE p.oid = format('public.%I', table_name)::regclass AND p.relispartition)`)),
      ...(await q(`SELECT format('enum %s %s', t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)) AS line
                 FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
                 WHERE n.nspname = 'public' GROUP BY t.typname`)),
    ];
    return lines.sort();
  } finally {
    await client.end();
  }
}

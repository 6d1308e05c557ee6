/**
 * The one file that drives Prisma's WebAssembly schema engine (an internal API: versions pinned
 * exactly in package.json). Prisma's native engine cannot be downloaded here, so migrations are
 * applied and written through `@prisma/schema-engine-wasm` over the pg driver adapter. The result is
 * the standard `_prisma_migrations` table, so `prisma migrate deploy` elsewhere agrees with it.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import type { MigrationList, SchemaEngine } from "@prisma/schema-engine-wasm";
import { createRequire } from "node:module";

export const MIGRATIONS_DIR = path.resolve("prisma/migrations");
export const SCHEMA_PATH = path.resolve("prisma/schema.prisma");
const NO_FILTER = { externalTables: [], externalEnums: [] };

type Bindings = typeof import("@prisma/schema-engine-wasm") & { __wbg_set_wasm: (exports: unknown) => void };
let bindings: Promise<Bindings> | undefined;

/**
 * Instantiates the engine's WebAssembly by hand: the package imports `.wasm` as an ES module,
 * which Node 20 only allows behind a flag.
 */
function loadBindings(): Promise<Bindings> {
  bindings ??= (async () => {
    const bg = (await import("@prisma/schema-engine-wasm/schema_engine_bg")) as unknown as Bindings;
    const wasmPath = createRequire(import.meta.url)
      .resolve("@prisma/schema-engine-wasm/schema_engine_bg")
      .replace(/\.js$/, ".wasm");
    const { instance } = await WebAssembly.instantiate(await fs.readFile(wasmPath), { "./schema_engine_bg.js": bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
    return bg;
  })();
  return bindings;
}

/**
 * The pg adapter runs a migration script by splitting it on every ";", which breaks on semicolons
 * in comments and in function bodies. PostgreSQL's simple query protocol runs a whole multi-statement
 * script itself, atomically (one implicit transaction), as Prisma's native engine does.
 */
class ScriptSafePrismaPg extends PrismaPg {
  override async connect() {
    const adapter = await super.connect();
    const driver = adapter.underlyingDriver() as { query: (sql: string) => Promise<unknown> };
    const onError = (adapter as unknown as { onError: (e: unknown) => never }).onError.bind(adapter);
    adapter.executeScript = async (script: string) => {
      try {
        await driver.query(script);
      } catch (err) {
        onError(err);
      }
    };
    return adapter;
  }
}

async function withEngine<T>(connectionString: string, fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  const schema = await fs.readFile(SCHEMA_PATH, "utf8");
  const adapter = bindMigrationAwareSqlAdapterFactory(new ScriptSafePrismaPg({ connectionString }));
  const { SchemaEngine: Engine } = await loadBindings();
  const engine = await Engine.new({ datamodels: [[SCHEMA_PATH, schema]] }, () => {}, adapter);
  try {
    return await fn(engine);
  } finally {
    engine.free();
  }
}

/** The names of the migrations this code has (`prisma/migrations/<name>/`), oldest first; [] when there is no such directory. */
export async function localMigrationNames(dir = MIGRATIONS_DIR): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Reads `prisma/migrations/*\/migration.sql` in Prisma's layout, oldest first. */
async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationList> {
  const names = await localMigrationNames(dir);
  const lockPath = path.join(dir, "migration_lock.toml");
  const lock = await fs.readFile(lockPath, "utf8").catch(() => null);
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: lock },
    shadowDbInitScript: "",
    migrationDirectories: await Promise.all(
      names.map(async (name) => ({
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: await fs
            .readFile(path.join(dir, name, "migration.sql"), "utf8")
            .then((value) => ({ tag: "ok" as const, value }))
            .catch((e: Error) => ({ tag: "error" as const, value: e.message })),
        },
      })),
    ),
  };
}

/** Applies every migration not yet recorded in `_prisma_migrations`; returns the names applied. Throws on SQL errors. */
export async function applyMigrations(connectionString: string): Promise<string[]> {
  const migrationsList = await readMigrations();
  return withEngine(connectionString, async (engine) => {
    const out = await engine.applyMigrations({ migrationsList, filters: NO_FILTER });
    return out.appliedMigrationNames;
  });
}

/**
 * SQL that turns the schema described by `fromSchema` (Prisma schema text, or null for an empty
 * database) into the current `prisma/schema.prisma`. Empty string when they agree.
 */
export async function diffSchemaSql(connectionString: string, fromSchema: string | null): Promise<string> {
  const current = await fs.readFile(SCHEMA_PATH, "utf8");
  return withEngine(connectionString, async (engine) => {
    const out = await engine.diff({
      from: fromSchema === null ? { tag: "empty" } : { tag: "schemaDatamodel", files: [{ path: "previous.prisma", content: fromSchema }] },
      to: { tag: "schemaDatamodel", files: [{ path: SCHEMA_PATH, content: current }] },
      script: true,
      exitCode: null,
      filters: NO_FILTER,
    });
    return (out.stdout ?? "").trim();
  });
}

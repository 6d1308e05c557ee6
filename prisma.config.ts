import { defineConfig } from "prisma/config";

// Prisma 7 does not read .env; the CLI is only used offline for `prisma generate`
// (migrations are applied by lib/db/schema-engine.ts through the WebAssembly engine).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/hookyard" },
});

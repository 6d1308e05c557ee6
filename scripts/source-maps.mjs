// Preloaded (`node --import`) before a bundled process of `npm start` (scripts/start.ts): stack traces name
// our sources (the bundles' source maps, and the web app's build under .next/server), but not the packages in
// node_modules. Node's `--enable-source-maps` reads and parses the map of every module it loads, including
// Next.js's own (about 2,700 in node_modules/next/dist): that was 1.5 of the web process's 4.5 CPU-seconds
// to start, and the restart after a crash waited for it (docs/benchmarks.md "The test suite").
import module from "node:module";

module.setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });

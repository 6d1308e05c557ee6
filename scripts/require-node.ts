/**
 * Imported first by every entry point (`npm start`, `npm run worker`, `npm run db:migrate`, the web
 * process): stops with one sentence when Node.js is older than the version Hookyard supports
 * (README "Requirements"), before any dependency that needs a newer one is loaded.
 */
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `Hookyard needs Node.js 22.18 or newer (24 LTS recommended); this is ${process.versions.node}. ` +
      'Install a current Node.js, or see README "Requirements" for running Node 24 from the npm registry.',
  );
  process.exit(1);
}
export {};

/**
 * The layering rules of docs/architecture.md, checked by `npm run lint` (dependency-cruiser).
 * Layers, lowest first: foundation, engines, products, process roots. Imports only go down; the
 * gateway and the outbound service never import each other; browser code never reaches the server's
 * engines or database. Tests may import anything below them and are not checked here.
 */
const FOUNDATION = "^lib/((config|ids|log|tracing|health|processes|supervisor|socket-relay|urls)\\.ts$|(archive|crypto|db|http|metrics|observability|teams)/)";
const ENGINES = "^lib/(ingest|delivery|rules)/";
const PRODUCTS = "^lib/(gateway|outbound|console|cli-channel|dashboard|portal)/";
const WORKER = "^lib/worker/";
const NOT_TEST = "\\.test\\.tsx?$";
/** Each product's API wrapper (docs/errors.md): answers AppError in its surface's body. */
const WRAPPERS = "^lib/(gateway|outbound|console)/http\\.ts$";
/** A product's route modules: its endpoints' handlers (routes.ts, *-routes.ts, the gateway publish endpoint, the console's live stream, the outbound OpenAPI document of its routes). */
const ROUTE_MODULES = "^lib/(gateway|outbound|console)/[a-z/-]*(routes|publish|live-stream|openapi)\\.ts$";

/** A rule forbidding imports from `from` to `to` (regular expressions over paths from the repository root). */
const forbid = (name, comment, from, to, extra = {}) => ({
  name,
  comment,
  severity: "error",
  from: { path: from, pathNot: NOT_TEST },
  to: { path: to, ...extra },
});

module.exports = {
  forbidden: [
    { name: "no-cycles", comment: "No import cycles anywhere.", severity: "error", from: {}, to: { circular: true } },
    forbid(
      "foundation-stays-generic",
      "The foundation (config, ids, log, tracing, crypto, db, http kit, metrics, observability, teams, urls) imports no engine, product or process root.",
      FOUNDATION,
      `${ENGINES}|${PRODUCTS}|${WORKER}`,
    ),
    forbid("engines-import-no-product", "Engines (ingest, delivery, rules) never import a product or a process root.", ENGINES, `${PRODUCTS}|${WORKER}`),
    forbid("products-below-worker", "Products never import the worker process.", PRODUCTS, WORKER),
    forbid("only-roots-import-worker", "Only the process roots (server.ts, scripts/) import lib/worker/.", "^(app|components|cli|proxy\\.ts)", WORKER),
    forbid(
      "gateway-not-outbound",
      "The gateway (and its CLI channel) never imports the outbound service or its portal.",
      "^lib/(gateway|cli-channel)/",
      "^lib/(outbound|portal)/",
    ),
    forbid("outbound-not-gateway", "The outbound service never imports the gateway or its CLI channel.", "^lib/outbound/", "^lib/(gateway|cli-channel)/"),
    forbid(
      "gateway-not-console",
      "The console builds on the gateway (a test URL is a guest workspace's source), not the other way round.",
      "^lib/(gateway|cli-channel)/",
      "^lib/console/",
    ),
    forbid(
      "products-not-portal-console-dashboard",
      "The outbound service, the console and the dashboard import neither the portal nor each other's pages' code.",
      "^lib/(outbound|dashboard)/",
      "^lib/(portal|console)/",
    ),
    forbid("console-not-outbound", "The console does not use the outbound service.", "^lib/console/", "^lib/(outbound|portal)/"),
    forbid(
      "dashboard-below-products",
      "lib/dashboard (users and sign-in) imports no other product.",
      "^lib/dashboard/",
      "^lib/(gateway|outbound|cli-channel|console|portal)/",
    ),
    {
      name: "domain-not-wrappers",
      comment:
        "Domain code never imports a product's API wrapper (lib/*/http.ts): it throws AppError, and only app/ route files, server.ts, scripts and the wrapper's own product's route modules import the wrapper (docs/errors.md).",
      severity: "error",
      from: { path: "^lib/", pathNot: [NOT_TEST, ROUTE_MODULES, WRAPPERS] },
      to: { path: WRAPPERS },
    },
    {
      name: "route-modules-own-wrapper",
      comment: "A product's route modules use their own product's wrapper only.",
      severity: "error",
      from: { path: "^lib/(gateway|outbound|console)/", pathNot: NOT_TEST },
      to: { path: WRAPPERS, pathNot: "^lib/$1/http\\.ts$" },
    },
    forbid(
      "browser-code-stays-out",
      "Browser code never imports the database, the worker or the engines (retention lives in the worker).",
      "^components/",
      "^lib/(db|worker|delivery|ingest|rules)/",
    ),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.next|lib/generated|\\.data|test-results)" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
      extensions: [".ts", ".tsx", ".mjs", ".js"],
    },
  },
};

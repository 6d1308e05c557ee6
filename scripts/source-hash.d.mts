/** SHA-256 (hex) of the paths and contents of every file under `inputs` (scripts/source-hash.mjs). */
export function hashSources(inputs: readonly string[]): string;
/** Where `npm run build` writes the bundles of the processes and commands. */
export const BUNDLE_DIR: string;
/** The hash of the sources the bundles were made from. */
export const BUNDLE_STAMP: string;
/** The operator commands bundled beside the processes (scripts/admin.mjs). */
export const ADMIN_COMMANDS: readonly string[];
/** Everything the bundles are made from. */
export const BUNDLE_INPUTS: readonly string[];

// Types of scripts/build-cli.mjs for the TypeScript that imports it (bench/cli-start.ts, the tests).
/** Builds the CLI into `outdir` (default out/cli); resolves to the entry file's path. */
export function buildCli(options?: { outdir?: string }): Promise<string>;

// Validates electron-builder.yml offline: electron-builder's own schema validation (the same call
// `electron-builder` makes before it downloads Electron) plus the house rules of issue 6
// (fuses, per-user NSIS, hardened runtime, native modules unpacked). Exits non-zero on any problem.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Configuration } from 'app-builder-lib';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config';
import { DebugLogger } from 'builder-util/out/DebugLogger';

export const REQUIRED_FUSES = {
  runAsNode: false,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  enableCookieEncryption: true,
  enableEmbeddedAsarIntegrityValidation: true,
  onlyLoadAppFromAsar: true,
} as const;

const NATIVE_MODULES = ['keytar', 'better-sqlite3'] as const;

function targetNames(target: unknown): string[] {
  const list = Array.isArray(target) ? target : target == null ? [] : [target];
  return list.map((t) => (typeof t === 'string' ? t : String((t as { target?: unknown }).target ?? ''))).map((t) => t.toLowerCase());
}

/** House rules on top of the schema; an empty list means the configuration is acceptable. */
export function packagingPolicyProblems(config: Configuration, projectDir: string): string[] {
  const problems: string[] = [];
  if (config.productName !== 'Payout Desk') problems.push('productName must be "Payout Desk"');
  if (!config.appId) problems.push('appId is missing');

  const fuses = config.electronFuses ?? {};
  for (const [fuse, wanted] of Object.entries(REQUIRED_FUSES)) {
    const actual = (fuses as Record<string, unknown>)[fuse];
    if (actual !== wanted) problems.push(`electronFuses.${fuse} must be ${wanted} (is ${String(actual)})`);
  }

  if (config.asar === false) problems.push('asar must stay on (fuses require the app inside asar)');
  const unpack = [config.asarUnpack ?? []].flat().filter((p): p is string => typeof p === 'string');
  for (const mod of NATIVE_MODULES) {
    if (!unpack.some((pattern) => pattern.includes(mod))) problems.push(`asarUnpack must unpack ${mod}'s native module`);
  }
  if (config.npmRebuild === false) problems.push('npmRebuild must be on so native modules are built for Electron');

  // getConfig normalises `files` into { filter: [...] } entries.
  const files = [config.files ?? []]
    .flat()
    .flatMap((f) => (typeof f === 'string' ? [f] : f && typeof f === 'object' ? [(f as { filter?: unknown }).filter ?? []].flat() : []))
    .filter((p): p is string => typeof p === 'string');
  if (!files.some((f) => f.startsWith('out/'))) problems.push('files must include the built out/ folder');

  if (!targetNames(config.win?.target).includes('nsis')) problems.push('win.target must include nsis');
  if (config.nsis?.perMachine !== false) problems.push('nsis.perMachine must be false (per-user install)');
  if (config.nsis?.oneClick !== true) problems.push('nsis.oneClick must be true (an assisted installer offers an all-users install)');
  if (config.win?.cscLink || config.cscLink || config.cscKeyPassword) {
    problems.push('signing credentials must come from environment variables, not the config file');
  }

  const macTargets = targetNames(config.mac?.target);
  for (const t of ['dmg', 'zip']) if (!macTargets.includes(t)) problems.push(`mac.target must include ${t}`);
  if (config.mac?.hardenedRuntime !== true) problems.push('mac.hardenedRuntime must be true');
  const entitlements = config.mac?.entitlements;
  if (!entitlements) problems.push('mac.entitlements must name the entitlements file');
  else if (!existsSync(resolve(projectDir, entitlements))) problems.push(`mac.entitlements file ${entitlements} does not exist`);
  if (config.mac?.notarize !== true) problems.push('mac.notarize must be true (credentials come from APPLE_* variables)');

  const linuxTargets = targetNames(config.linux?.target);
  for (const t of ['appimage', 'deb']) if (!linuxTargets.includes(t)) problems.push(`linux.target must include ${t}`);
  return problems;
}

export async function loadBuilderConfig(projectDir: string): Promise<Configuration> {
  return getConfig(projectDir, resolve(projectDir, 'electron-builder.yml'), null);
}

async function main(): Promise<void> {
  const projectDir = resolve(import.meta.dirname, '..');
  const config = await loadBuilderConfig(projectDir);
  try {
    await validateConfiguration(config, new DebugLogger(false));
  } catch (error) {
    console.error(`electron-builder.yml: schema validation failed:\n${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const problems = packagingPolicyProblems(config, projectDir);
  if (problems.length > 0) {
    console.error(`electron-builder.yml: ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log('electron-builder.yml: schema valid (electron-builder validateConfiguration), fuses and house rules OK');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();

// CLI: `profiles add|list|use|show`. Profiles hold no secrets; keys and the deprecated secret are
// handled by `keys …`.
import { type Command, InvalidArgumentError } from 'commander';
import type { CliDeps } from './deps';
import type { Profile } from '../profiles/profile-schema';
import { intOption } from './shared';

function choice<T extends string>(allowed: readonly T[]) {
  return (value: string): T => {
    const v = value.trim();
    const match = allowed.find((a) => a.toLowerCase() === v.toLowerCase());
    if (!match) throw new InvalidArgumentError(`must be one of ${allowed.join(', ')}`);
    return match;
  };
}

/** A profile as shown to people and scripts: no secrets exist here, the deprecated-secret opt-in is flagged. */
export function profileView(p: Profile, currentId: string | null): Record<string, unknown> {
  // The callback path secret is shown only inside the URL the gateway is given (`callbacks show`).
  const { callbackSecret: _secret, ...shown } = p;
  return { current: p.id === currentId, ...shown, useDeprecatedSecret: p.useDeprecatedSecret ? 'yes (DEPRECATED authentication)' : false };
}

function profileLines(p: Profile, currentId: string | null): string[] {
  return [
    `${p.id === currentId ? '* ' : '  '}${p.id}  "${p.name}"  [${p.environment}]${p.isDemo ? ' (demo)' : ''}`,
    `    gateway ${p.baseUrl}  merchant ${p.merchantCode}  API v${p.apiMajorVersion}  ${p.rateLimitPerSec} req/s  timestamps in ${p.timestampUnit}`,
    `    active key ${p.activeKeyId ?? '(none: run "keys generate")'}${p.useDeprecatedSecret ? '  auth: merchant secret (DEPRECATED)' : ''}`,
  ];
}

export function registerProfileCommands(program: Command, deps: CliDeps): void {
  const profiles = program.command('profiles').description('gateway profiles (one merchant on one gateway each)');

  profiles
    .command('add')
    .description('add a profile; the first one becomes current')
    .requiredOption('--name <name>', 'display name, e.g. "Shop EU (live)"')
    .requiredOption('--base-url <url>', 'gateway base address, e.g. https://gateway.example.com')
    .requiredOption('--merchant-code <code>', 'merchant code from enrollment')
    .option('--id <id>', 'profile id (default: derived from the name)')
    .option('--environment <env>', 'TEST or LIVE', choice(['TEST', 'LIVE'] as const), 'TEST')
    .option('--api-version <major>', 'API major version sent as X-API-Version', intOption('API version'), 2)
    .option('--timestamp-unit <unit>', 'token request timestamp unit: ms or s', choice(['ms', 's'] as const), 'ms')
    .option('--rate-limit <perSec>', 'requests per second the gateway allows', intOption('rate limit'), 10)
    .option('--token-validity <secs>', 'validity of general tokens in seconds', intOption('token validity'), 900)
    .option('--max-amount-minor <minor>', 'largest amount of one payout, in minor units', intOption('maximum amount'))
    .option('--use', 'make it the current profile')
    .action((o: { name: string; baseUrl: string; merchantCode: string; id?: string; environment: 'TEST' | 'LIVE'; apiVersion: number; timestampUnit: 'ms' | 's'; rateLimit: number; tokenValidity: number; maxAmountMinor?: number; use?: boolean }) => {
      const store = deps.context().profiles;
      const p = store.add({
        ...(o.id ? { id: o.id } : {}),
        name: o.name,
        baseUrl: o.baseUrl,
        merchantCode: o.merchantCode,
        environment: o.environment,
        apiMajorVersion: o.apiVersion,
        timestampUnit: o.timestampUnit,
        rateLimitPerSec: o.rateLimit,
        tokenValiditySecs: o.tokenValidity,
        maxAmountMinor: o.maxAmountMinor ?? null,
      });
      if (o.use) store.setCurrent(p.id);
      const current = store.currentId();
      deps.print([`Added profile ${p.id}${current === p.id ? ' (current)' : ''}`, ...profileLines(p, current), 'Next: keys generate, then give the key letter (keys letter) to the platform.'], profileView(p, current));
    });

  profiles
    .command('list')
    .description('list profiles; * marks the current one')
    .action(() => {
      const store = deps.context().profiles;
      const current = store.currentId();
      const all = store.list();
      deps.print(all.length === 0 ? ['No profiles yet: profiles add --name … --base-url … --merchant-code …'] : all.flatMap((p) => profileLines(p, current)), all.map((p) => profileView(p, current)));
    });

  profiles
    .command('use <profile>')
    .description('make a profile (id or name) the current one')
    .action((idOrName: string) => {
      const store = deps.context().profiles;
      const p = store.resolve(idOrName);
      store.setCurrent(p.id);
      deps.print(`Current profile: ${p.id} "${p.name}" [${p.environment}]`, profileView(p, p.id));
    });

  profiles
    .command('show')
    .description('show the current (or --profile) profile with all settings')
    .action(() => {
      const p = deps.profile();
      const current = deps.context().profiles.currentId();
      const view = profileView(p, current);
      deps.print(Object.entries(view).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`), view);
    });
}

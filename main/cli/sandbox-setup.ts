// CLI: `sandbox-setup --url <sandbox>` — one command from a running sandbox to a working TEST profile:
// the profile (sandbox URL, the sandbox's merchant code), a key in the keychain, its public key
// registered through the sandbox's admin route, and a connection check. Run it again after the sandbox
// forgot its keys (started without --state) or moved to another port: it reuses the profile and key.
// Talks to the sandbox over HTTP only (main imports sandbox/ nowhere but demo mode, DESIGN.md §1).
import type { Command } from 'commander';
import { CliUsageError, type CliDeps } from './deps';
import { DeskError } from '../desk/services';
import type { Profile } from '../profiles/profile-schema';
import { assertKeychainReachable } from '../keys/key-store';
import { intOption } from './shared';
import { typedCommand } from './invocation';

/** The merchant of sandbox/default-config.json (the only one the sandbox has unless --config says otherwise). */
export const SANDBOX_MERCHANT_CODE = 'DEMO-MERCHANT';
const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:8787';

const unreachable = (baseUrl: string, error: unknown) => {
  const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message;
  return new DeskError('SANDBOX_UNREACHABLE', `No sandbox answers at ${baseUrl} (${cause}); start it first: npm run sandbox -- --port 8787 --state sandbox-state.json`);
};

const refused = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';

/**
 * The sandbox's state, waiting up to `waitMs` while nothing listens yet: `npm run sandbox … &` followed at once by
 * sandbox-setup finds a sandbox that is still starting. Any other failure is reported at once.
 */
async function fetchState(baseUrl: string, waitMs: number, say: (line: string) => void): Promise<Response> {
  const until = Date.now() + waitMs;
  for (let told = false; ; told = true) {
    try {
      return await fetch(`${baseUrl}/_sandbox/state`, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      if (!refused(error) || Date.now() >= until) throw unreachable(baseUrl, error);
      if (!told) say(`Waiting up to ${Math.round(waitMs / 1000)} s for the sandbox at ${baseUrl} to start…`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Before anything is created: a sandbox answers there and has the merchant (its state lists every merchant's balances). */
async function checkSandbox(baseUrl: string, merchantCode: string, waitMs: number, say: (line: string) => void): Promise<void> {
  const response = await fetchState(baseUrl, waitMs, say);
  const state = (await response.json().catch(() => null)) as { balances?: Record<string, unknown> } | null;
  if (!response.ok || !state?.balances) throw new DeskError('NOT_A_SANDBOX', `${baseUrl} answers, but not as a Payout Desk sandbox (HTTP ${response.status} on /_sandbox/state)`);
  if (!(merchantCode in state.balances)) {
    const known = Object.keys(state.balances).join(', ') || 'none';
    throw new DeskError('MERCHANT_NOT_FOUND', `The sandbox at ${baseUrl} has no merchant ${merchantCode} (it has: ${known}); pass one with --merchant-code`);
  }
}

async function registerPublicKey(baseUrl: string, merchantCode: string, pem: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/_sandbox/merchants/${encodeURIComponent(merchantCode)}/keys`, { method: 'POST', body: pem, headers: { 'content-type': 'text/plain' }, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw unreachable(baseUrl, error);
  }
  if (response.status !== 201) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new DeskError('SANDBOX_REFUSED', `The sandbox at ${baseUrl} did not take the key (HTTP ${response.status}${body?.error?.message ? `: ${body.error.message}` : ''})`);
  }
}

export function registerSandboxSetupCommand(program: Command, deps: CliDeps): void {
  program
    .command('sandbox-setup')
    .description('make a working TEST profile for a running sandbox: profile, key in the keychain, key registered, connection checked')
    .option('--url <url>', 'the sandbox address (as it printed: "sandbox listening on …")', DEFAULT_SANDBOX_URL)
    .option('--name <name>', 'profile name', 'Sandbox')
    .option('--merchant-code <code>', 'merchant code in the sandbox config', SANDBOX_MERCHANT_CODE)
    .option('--no-use', 'do not make it the current profile')
    .option('--wait <secs>', 'how long to wait for a sandbox that is still starting', intOption('--wait'), 20)
    .action(async (o: { url: string; name: string; merchantCode: string; use: boolean; wait: number }) => {
      const url = o.url.trim().replace(/\/+$/, '');
      await checkSandbox(url, o.merchantCode, o.wait * 1000, (line) => deps.io.stderr(`${line}\n`));
      const ctx = deps.context();
      const store = ctx.profiles;
      const lines: string[] = [];
      let profile: Profile | undefined = store.findByName(o.name);
      if (profile?.environment === 'LIVE') throw new CliUsageError(`Profile "${o.name}" is a LIVE profile; choose another --name for the sandbox`);
      // All or nothing: a keychain that cannot be reached stops the setup before a profile without a key is made.
      if (!profile?.activeKeyId) await assertKeychainReachable(ctx.keyStore);
      const created = !profile;
      if (profile) {
        profile = store.update(profile.id, { baseUrl: url, merchantCode: o.merchantCode });
        lines.push(`Profile ${profile.id} "${profile.name}" points at ${profile.baseUrl} (merchant ${profile.merchantCode}).`);
      } else {
        profile = store.add({ name: o.name, baseUrl: url, merchantCode: o.merchantCode, environment: 'TEST' });
        lines.push(`Created profile ${profile.id} "${profile.name}" for ${profile.baseUrl} (merchant ${profile.merchantCode}, TEST).`);
      }
      if (!profile.activeKeyId) {
        try {
          const key = await ctx.keys.generateKey(profile.id, undefined, { activate: true });
          lines.push(`Generated key ${key.keyId} (kept in the ${ctx.keys.keyStoreDescription}).`);
        } catch (error) {
          if (created) store.remove(profile.id);
          throw error;
        }
        profile = store.get(profile.id);
      } else {
        lines.push(`Using its active key ${profile.activeKeyId}.`);
      }
      const pem = await ctx.keys.publicKeyPem(profile.id);
      await registerPublicKey(profile.baseUrl, profile.merchantCode, pem);
      lines.push(`Registered the public key with the sandbox.`);
      // The sandbox signs with keys only; the deprecated merchant secret is never needed here.
      const info = await ctx.gatewayFor(profile.id).merchantInfo();
      lines.push(`Connection works: channel "${info.channelName}".`);
      if (o.use) store.setCurrent(profile.id);
      const current = store.currentId() === profile.id;
      lines.push(
        current ? `It is the current profile. Send a payout:` : `Send a payout with --profile ${profile.id}:`,
        `  ${typedCommand('payouts create')} --amount 12.50 --currency EUR --account-name "Jane Doe" --account-number DE89370400440532013000 --operator EU_SEPA --email jane@example.com --wait`,
      );
      deps.print(lines, { profileId: profile.id, baseUrl: profile.baseUrl, merchantCode: profile.merchantCode, activeKeyId: profile.activeKeyId, channelName: info.channelName, current });
    });
}

// CLI: `connect` — gets a general token, calls merchant info, prints the channel name and the
// token's decoded claims. The token itself is never printed.
import type { Command } from 'commander';
import type { JWTPayload } from 'jose';
import type { CliDeps } from './deps';

const asIso = (secs: unknown) => (typeof secs === 'number' ? new Date(secs * 1000).toISOString() : undefined);

/** Claims for display, with times also as ISO text. */
export function claimsView(claims: JWTPayload): Record<string, unknown> {
  return { ...claims, ...(claims.iat !== undefined ? { issuedAt: asIso(claims.iat) } : {}), ...(claims.exp !== undefined ? { expiresAt: asIso(claims.exp) } : {}) };
}

export function registerConnectCommands(program: Command, deps: CliDeps): void {
  program
    .command('connect')
    .description('check the connection: get a token, read merchant info, show the token claims (never the token)')
    .action(async () => {
      const p = deps.profile();
      const client = deps.context().gatewayFor(p.id);
      const started = performance.now();
      const claims = await client.decodedTokenClaims();
      const info = await client.merchantInfo();
      const ms = Math.round(performance.now() - started);
      const view = claimsView(claims);
      const ops = Array.isArray(claims.ops) ? (claims.ops as unknown[]).map(String) : [];
      const auth = p.useDeprecatedSecret ? 'merchant secret (DEPRECATED)' : `signature with key ${p.activeKeyId ?? '?'}`;
      deps.print(
        [
          `Connected to ${p.baseUrl} as ${p.merchantCode} [${p.environment}] in ${ms} ms`,
          `Channel: ${info.channelName}`,
          `Authentication: ${auth}`,
          'Token claims:',
          ...Object.entries(view)
            .filter(([k]) => k !== 'ops')
            .map(([k, v]) => `  ${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`),
          ...(ops.length > 0 ? ['  operations:', ...ops.map((o) => `    ${o}`)] : []),
        ],
        { profile: p.id, baseUrl: p.baseUrl, merchantCode: p.merchantCode, environment: p.environment, channelName: info.channelName, authentication: auth, claims: view, elapsedMs: ms },
      );
    });
}

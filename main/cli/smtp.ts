// CLI: `profiles smtp set|show|test|clear <profile>`: the SMTP server a profile e-mails remittance advice through
// (issue 28), the twin of Settings › E-mail. Host, port, security, username, From and Reply-to go in the profile; the
// password goes in this desk's keychain, read only from standard input (--password-stdin), never from argv, and never
// printed. The desk's code loads when a command changes or sends something, not to register the commands.
import { type Command, InvalidArgumentError } from 'commander';
import { CliUsageError, type CliDeps } from './deps';
import { SMTP_SECURITY, type Profile, type SmtpSecurity } from '../profiles/profile-schema';
import { SmtpPasswords } from '../keys/smtp-password';
import { actAs, actingOptions, type ActingOptions } from './acting';
import { intOption } from './shared';
import { readPasswordFromStdin } from './team';

function security(value: string): SmtpSecurity {
  const v = value.trim().toLowerCase();
  const match = SMTP_SECURITY.find((m) => m === v);
  if (!match) throw new InvalidArgumentError(`must be one of ${SMTP_SECURITY.join(', ')}`);
  return match;
}

function passwords(deps: CliDeps): SmtpPasswords {
  const ctx = deps.context();
  return new SmtpPasswords({ keyStore: ctx.keyStore, profiles: ctx.profiles, audit: ctx.trail });
}

/** What `smtp show` prints as JSON: never the password, only whether this desk's keychain holds one. */
function smtpJson(p: Profile, passwordStored: boolean): Record<string, unknown> {
  return { profile: p.id, smtp: p.smtp, passwordStored };
}

function smtpLines(p: Profile, passwordStored: boolean): string[] {
  const s = p.smtp;
  if (!s) return [`Profile ${p.id} e-mails no remittance advice (no SMTP server).${passwordStored ? ' An SMTP password is still in the keychain: profiles smtp clear removes it.' : ''}`];
  const tls = { tls: 'TLS from the start', starttls: 'STARTTLS required', none: 'NOT encrypted (a server on this machine)' }[s.security];
  return [
    `Profile ${p.id} e-mails remittance advice through ${s.host}:${s.port}`,
    `  security  ${s.security} (${tls})`,
    `  login     ${s.username ?? '(none)'}`,
    `  password  ${s.username === null ? 'not used' : passwordStored ? "in this desk's keychain" : "NONE in this desk's keychain: … | profiles smtp set " + p.id + ' --password-stdin'}`,
    `  from      ${p.name} <${s.from}>`,
    `  reply-to  ${s.replyTo ?? '(the from address)'}`,
  ];
}

/** "none" (any case) clears an optional setting; absent keeps it. */
const orNone = (value: string | undefined): string | null | undefined => (value === undefined ? undefined : value.trim().toLowerCase() === 'none' ? null : value);

export function registerSmtpCommands(profiles: Command, deps: CliDeps): void {
  const smtp = profiles.command('smtp').description('the SMTP server remittance advice is e-mailed through; password in the keychain');

  actingOptions(smtp
    .command('set <profile>')
    .description('set the SMTP server of a profile; only the options given change (the password comes from standard input; with dual control on: an admin, --as)')
    .option('--host <host>', 'the SMTP server, e.g. smtp.example.com')
    .option('--port <port>', 'its port (default 465 for tls, 587 for starttls, 25 for none)', intOption('port'))
    .option('--security <mode>', `${SMTP_SECURITY.join(', ')} (default starttls; none only for a server on this machine)`, security)
    .option('--username <user>', 'the login ("none": the server takes mail without one)')
    .option('--from <address>', 'the From address the payees see (the profile name is its display name)')
    .option('--reply-to <address>', 'where the payees\' replies go ("none": to the From address)')
    .option('--password-stdin', "read the password from standard input and keep it in this desk's keychain"))
    .action(async (idOrName: string, o: ActingOptions & { host?: string; port?: number; security?: SmtpSecurity; username?: string; from?: string; replyTo?: string; passwordStdin?: boolean }) => {
      const ctx = deps.context();
      const before = ctx.profiles.resolve(idOrName);
      const saved = before.smtp;
      if (!saved && (o.host === undefined || o.from === undefined)) throw new CliUsageError(`Profile ${before.id} has no SMTP server yet: give at least --host and --from`);
      const password = o.passwordStdin ? await readPasswordFromStdin(deps, { variable: 'SMTP_PASSWORD', command: `profiles smtp set ${before.id} --password-stdin` }) : undefined;
      if (password === '') throw new CliUsageError('--password-stdin read an empty password; nothing was changed');
      await actAs(deps, before.id, { named: o.as, file: o.passphraseFile, env: o.passphraseEnv }, '--passphrase-env <VAR> or --passphrase-file <file>');
      const { saveSmtp, smtpSettingsFrom } = await import('../desk/smtp');
      const username = orNone(o.username);
      const replyTo = orNone(o.replyTo);
      const next = smtpSettingsFrom(
        {
          host: o.host ?? saved!.host,
          security: o.security ?? saved?.security ?? 'starttls',
          from: o.from ?? saved!.from,
          ...(o.port !== undefined ? { port: o.port } : {}),
          ...(username !== undefined ? { username } : {}),
          ...(replyTo !== undefined ? { replyTo } : {}),
        },
        saved,
      );
      const after = await saveSmtp(deps.runtime(), before, next, password);
      const stored = await passwords(deps).has(after.id);
      const missing = after.smtp?.username != null && !stored;
      deps.print(
        [
          `SMTP server of ${after.id} set${password !== undefined ? '; the password is in the keychain' : ''}.`,
          ...smtpLines(after, stored),
          missing ? `Next: give the password (printf "%s" "$SMTP_PASSWORD" | profiles smtp set ${after.id} --password-stdin), then profiles smtp test ${after.id}` : `Next: profiles smtp test ${after.id}`,
        ],
        smtpJson(after, stored),
      );
    });

  smtp
    .command('show <profile>')
    .description('the SMTP server of a profile and whether a password is in the keychain (never the password)')
    .action(async (idOrName: string) => {
      const p = deps.context().profiles.resolve(idOrName);
      const stored = await passwords(deps).has(p.id);
      deps.print(smtpLines(p, stored), smtpJson(p, stored));
    });

  smtp
    .command('test <profile>')
    .description('send a short test e-mail through the saved settings (to the From address unless --to)')
    .option('--to <address>', 'send it here instead')
    .action(async (idOrName: string, o: { to?: string }) => {
      const p = deps.context().profiles.resolve(idOrName);
      const { testSmtp } = await import('../desk/smtp');
      const sent = await testSmtp(deps.runtime(), p, o.to);
      deps.print([`Test e-mail sent to ${sent.to} through ${p.smtp!.host}:${p.smtp!.port}.`, `  server: ${sent.reply}`], { profile: p.id, ...sent });
    });

  actingOptions(smtp
    .command('clear <profile>')
    .description("e-mail no remittance advice from this profile: the settings go and the password leaves this desk's keychain (with dual control on: an admin, --as)"))
    .action(async (idOrName: string, o: ActingOptions) => {
      const p = deps.context().profiles.resolve(idOrName);
      await actAs(deps, p.id, { named: o.as, file: o.passphraseFile, env: o.passphraseEnv }, '--passphrase-env <VAR> or --passphrase-file <file>');
      const { clearSmtp } = await import('../desk/smtp');
      const { profile, passwordRemoved } = await clearSmtp(deps.runtime(), p);
      deps.print(
        [`Profile ${p.id} e-mails no remittance advice${p.smtp ? '' : ' (it had no SMTP server)'}.${passwordRemoved ? ' Its SMTP password was removed from the keychain.' : ''}`],
        { ...smtpJson(profile, false), cleared: p.smtp !== null, passwordRemoved },
      );
    });
}

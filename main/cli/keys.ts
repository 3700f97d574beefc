// CLI: `keys generate|import|list|export-public|fingerprint|rotate|letter|backup|retire` and
// `keys secret set|status|delete` (the deprecated merchant secret). Private keys never print; the
// one way out is `keys backup` (encrypted PKCS#8, passphrase, explicit confirmation flag).
// Changes go through the desk's guarded key actions (main/desk/keys.ts), as the app's do: once dual
// control is on, an admin names themselves with --as and gives their passphrase from a file or an
// environment variable (never argv); a backup also needs --second, another admin or approver.
import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliUsageError, startsLight, type CliDeps } from './deps';
import type { KeyRecord } from '../profiles/profile-schema';
import { DEFAULT_RSA_BITS, RSA_KEY_SIZES } from '../keys/rsa';
import type { SecondPerson } from '../desk/keys';
import { actAs, actingOptions, personNamed, type ActingOptions, type PersonSource } from './acting';
import { intOption, readSecretInput } from './shared';

interface SecretSource {
  passphraseFile?: string;
  passphraseEnv?: string;
}


/** The --as of a command whose --passphrase-* options are the acting person's (actingOptions). */
const actingAs = (o: ActingOptions): PersonSource => ({ named: o.as, file: o.passphraseFile, env: o.passphraseEnv });
const ACTING = '--passphrase-env <VAR> or --passphrase-file <file>';

/** For commands whose --passphrase-* is a key's own passphrase: who acts gives theirs with --as-passphrase-*. */
const asOptions = (command: Command): Command =>
  command
    .option('--as <person>', 'who acts, once dual control is on (an admin): person id or name')
    .option('--as-passphrase-env <name>', 'environment variable holding the passphrase of --as')
    .option('--as-passphrase-file <file>', 'file whose first line is the passphrase of --as');
interface AsOptions {
  as?: string;
  asPassphraseEnv?: string;
  asPassphraseFile?: string;
}
const AS_OWN = '--as-passphrase-env <VAR> or --as-passphrase-file <file>';

/** The desk's guarded key actions on this command's runtime; loaded by the commands that change keys, not to list them. */
async function guardedAt(deps: CliDeps): Promise<ReturnType<typeof import('../desk/keys').guardedKeys>> {
  const { guardedKeys } = await import('../desk/keys');
  return guardedKeys(deps.runtime());
}

function keyLine(k: KeyRecord): string {
  const retired = k.retiredAt ? ` retired ${k.retiredAt}` : '';
  return `${k.status === 'active' ? '* ' : '  '}${k.keyId}  ${k.status.padEnd(7)} RSA-${k.bits}  ${k.source}  created ${k.createdAt}${retired}\n    SHA-256 ${k.fingerprint}`;
}

async function writeOrPrint(deps: CliDeps, text: string, out: string | undefined, data: Record<string, unknown>, mode = 0o644): Promise<void> {
  if (out) {
    await writeFile(out, text, { mode, flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
      throw new CliUsageError(e.code === 'EEXIST' ? `${out} already exists; choose another file name` : `Cannot write ${out}: ${e.message}`);
    });
    deps.print(`Written to ${out}`, { ...data, file: out });
  } else {
    deps.print(text.trimEnd(), { ...data, text });
  }
}

const bitsOption = intOption('key size');

export function registerKeyCommands(program: Command, deps: CliDeps): void {
  const keys = program.command('keys').description('RSA signing keys of the current profile (kept in the OS keychain)');

  actingOptions(keys
    .command('generate')
    .description(`create a new RSA key pair (${RSA_KEY_SIZES.join('/')} bits); the first key of a profile becomes active (with dual control on, another key needs an admin, --as)`)
    .option('--bits <bits>', 'key size', bitsOption, DEFAULT_RSA_BITS)
    .option('--activate', 'make the new key the active one right away'))
    .action(async (o: ActingOptions & { bits: number; activate?: boolean }) => {
      const p = deps.profile();
      await actAs(deps, p.id, actingAs(o), ACTING);
      const k = await (await guardedAt(deps)).generate(p.id, o.bits, o.activate ? { activate: true } : {});
      deps.print([`Generated key for profile ${p.id}:`, keyLine(k), 'Register its public key with the platform: keys letter (or keys export-public).'], k);
    });

  asOptions(keys
    .command('import <pemFile>')
    .description('import a PEM private key (PKCS#1, PKCS#8 or encrypted PKCS#8); RSA of 2048 bits or more only (with dual control on: an admin, --as)')
    .option('--passphrase-file <file>', 'file whose first line is the passphrase of an encrypted key')
    .option('--passphrase-env <name>', 'environment variable holding the passphrase')
    .option('--activate', 'make the imported key the active one'))
    .action(async (file: string, o: SecretSource & AsOptions & { activate?: boolean }) => {
      const p = deps.profile();
      const pem = await readFile(file, 'utf8');
      const passphrase = await readSecretInput(deps, { file: o.passphraseFile, env: o.passphraseEnv }, 'passphrase');
      await actAs(deps, p.id, { named: o.as, file: o.asPassphraseFile, env: o.asPassphraseEnv }, AS_OWN);
      const k = await (await guardedAt(deps)).import(p.id, pem, passphrase, o.activate ? { activate: true } : {});
      deps.print([`Imported key into profile ${p.id}:`, keyLine(k), `The file ${file} still holds the key in the clear: store or destroy it safely.`], k);
    });

  startsLight(keys
    .command('list')
    .description('list the keys of the profile; * marks the active key')
    .action(() => {
      const p = deps.profile();
      const all = deps.profileContext().keys.listKeys(p.id);
      deps.print(all.length === 0 ? [`Profile ${p.id} has no keys: keys generate`] : all.map(keyLine), all);
    }));

  startsLight(keys
    .command('export-public')
    .description('print (or write) the public key as SPKI PEM')
    .option('--key <keyId>', 'key id (default: the active key)')
    .option('--out <file>', 'write to a new file instead of printing')
    .action(async (o: { key?: string; out?: string }) => {
      const p = deps.profile();
      const k = deps.profileContext().keys.keyRecord(p.id, o.key);
      const pem = await deps.profileContext().keys.publicKeyPem(p.id, k.keyId);
      await writeOrPrint(deps, pem, o.out, { keyId: k.keyId, fingerprint: k.fingerprint, publicKeyPem: pem });
    }));

  startsLight(keys
    .command('fingerprint')
    .description('SHA-256 fingerprint of the public key (DER SubjectPublicKeyInfo, hex with colons)')
    .option('--key <keyId>', 'key id (default: the active key)')
    .action((o: { key?: string }) => {
      const p = deps.profile();
      const k = deps.profileContext().keys.keyRecord(p.id, o.key);
      deps.print(`${k.keyId}  SHA-256 ${k.fingerprint}`, { keyId: k.keyId, fingerprint: k.fingerprint, algorithm: 'SHA-256 of DER SPKI' });
    }));

  actingOptions(keys
    .command('rotate')
    .description('generate a new key and make it active (the old one stays as standby until retired), or --to an existing standby key (with dual control on: an admin, --as)')
    .option('--bits <bits>', 'size of the new key', bitsOption, DEFAULT_RSA_BITS)
    .option('--to <keyId>', 'activate this existing standby key instead of generating one'))
    .action(async (o: ActingOptions & { bits: number; to?: string }) => {
      const p = deps.profile();
      await actAs(deps, p.id, actingAs(o), ACTING);
      const guarded = await guardedAt(deps);
      const previous = p.activeKeyId;
      const k = o.to ? await guarded.activate(p.id, o.to) : (await guarded.rotate(p.id, o.bits)).key;
      deps.print(
        [
          `Active key of ${p.id} is now ${k.keyId}${previous && previous !== k.keyId ? ` (was ${previous}, now standby)` : ''}.`,
          keyLine(k),
          'The platform must know this public key before the next token request (keys letter).',
          previous && previous !== k.keyId ? `Retire the old key once the new one works: keys retire ${previous}` : '',
        ].filter(Boolean),
        { active: k, previousKeyId: previous },
      );
    });

  startsLight(keys
    .command('letter')
    .description('printable key letter for the platform: merchant code, key id, fingerprint, date, signature line')
    .option('--key <keyId>', 'key id (default: the active key)')
    .option('--out <file>', 'write to a new file instead of printing')
    .action(async (o: { key?: string; out?: string }) => {
      const p = deps.profile();
      const letter = await deps.profileContext().keys.keyLetter(p.id, o.key);
      const k = deps.profileContext().keys.keyRecord(p.id, o.key);
      await writeOrPrint(deps, letter, o.out, { keyId: k.keyId, fingerprint: k.fingerprint });
    }));

  asOptions(keys
    .command('backup')
    .description('write an encrypted PKCS#8 backup of a private key (the only way a private key leaves the keychain); with dual control on, two people: an admin (--as) and another admin or approver (--second)')
    .requiredOption('--key <keyId>', 'key id to back up')
    .requiredOption('--out <file>', 'new file to write (never overwritten)')
    .option('--passphrase-file <file>', 'file whose first line is the backup passphrase (12+ characters)')
    .option('--passphrase-env <name>', 'environment variable holding the backup passphrase')
    .option('--confirm-private-key-export', 'confirm that you are exporting a private key'))
    .option('--second <person>', 'with dual control on: the second person (an admin or approver other than --as), id or name')
    .option('--second-passphrase-env <name>', 'environment variable holding the passphrase of --second')
    .option('--second-passphrase-file <file>', 'file whose first line is the passphrase of --second')
    .action(async (o: SecretSource & AsOptions & { key: string; out: string; confirmPrivateKeyExport?: boolean; second?: string; secondPassphraseEnv?: string; secondPassphraseFile?: string }) => {
      const p = deps.profile();
      const passphrase = await readSecretInput(deps, { file: o.passphraseFile, env: o.passphraseEnv }, 'passphrase');
      if (passphrase === undefined) throw new CliUsageError('A backup needs a passphrase: --passphrase-file <file> or --passphrase-env <VAR>');
      let second: SecondPerson | undefined;
      if (o.second) {
        const secondPassphrase = await readSecretInput(deps, { file: o.secondPassphraseFile, env: o.secondPassphraseEnv }, 'passphrase of --second');
        if (secondPassphrase === undefined) throw new CliUsageError('Give the passphrase of --second with --second-passphrase-env <VAR> or --second-passphrase-file <file>');
        second = { personId: (await personNamed(deps, p.id, o.second)).id, passphrase: secondPassphrase };
      }
      await actAs(deps, p.id, { named: o.as, file: o.asPassphraseFile, env: o.asPassphraseEnv }, AS_OWN);
      const pem = await (await guardedAt(deps)).backupPem(p.id, o.key, passphrase, o.confirmPrivateKeyExport === true, second);
      await writeOrPrint(deps, pem, o.out, { keyId: o.key, format: 'encrypted PKCS#8 PEM' }, 0o600);
    });

  actingOptions(keys
    .command('retire <keyId>')
    .description('stop using a standby key for good (its sealed file is kept, never deleted automatically; with dual control on: an admin, --as)'))
    .action(async (keyId: string, o: ActingOptions) => {
      const p = deps.profile();
      await actAs(deps, p.id, actingAs(o), ACTING);
      const k = await (await guardedAt(deps)).retire(p.id, keyId);
      deps.print([`Retired key ${k.keyId} of ${p.id}. Ask the platform to remove its public key too.`, keyLine(k)], k);
    });

  const secret = keys.command('secret').description('the DEPRECATED merchant secret (used only when the profile opts in)');
  actingOptions(secret
    .command('set')
    .description('store the merchant secret in the OS keychain (DEPRECATED authentication; with dual control on: an admin, --as)')
    .option('--secret-file <file>', 'file whose first line is the secret')
    .option('--secret-env <name>', 'environment variable holding the secret')
    .option('--use', 'also opt the profile in to secret authentication (instead of signatures)'))
    .action(async (o: ActingOptions & { secretFile?: string; secretEnv?: string; use?: boolean }) => {
      const p = deps.profile();
      const value = await readSecretInput(deps, { file: o.secretFile, env: o.secretEnv }, 'secret');
      if (value === undefined) throw new CliUsageError('Give the secret with --secret-file <file> or --secret-env <VAR> (never on the command line)');
      await actAs(deps, p.id, actingAs(o), ACTING);
      await (await guardedAt(deps)).setSecret(p.id, value, o.use === true);
      deps.print(`Stored the merchant secret of ${p.id} in the keychain (DEPRECATED authentication${o.use ? ', now in use' : ', not in use'}).`, { stored: true, deprecated: true, inUse: o.use === true });
    });
  startsLight(secret
    .command('status')
    .description('whether a secret is stored and whether the profile uses it')
    .action(async () => {
      const p = deps.profile();
      const stored = await deps.profileContext().keys.hasDeprecatedSecret(p.id);
      deps.print(`Merchant secret (DEPRECATED): ${stored ? 'stored' : 'not stored'}; ${p.useDeprecatedSecret ? 'in use for tokens' : 'not used (signatures are used)'}`, { stored, inUse: p.useDeprecatedSecret, deprecated: true });
    }));
  actingOptions(secret
    .command('delete')
    .description('remove the merchant secret from the keychain and stop using it (with dual control on: an admin, --as)'))
    .action(async (o: ActingOptions) => {
      const p = deps.profile();
      await actAs(deps, p.id, actingAs(o), ACTING);
      const removed = await (await guardedAt(deps)).clearSecret(p.id, true);
      deps.print(removed ? `Removed the merchant secret of ${p.id}.` : `No merchant secret was stored for ${p.id}.`, { removed });
    });
}

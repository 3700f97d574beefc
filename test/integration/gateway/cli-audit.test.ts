// The CLI's key, secret and profile commands act on key custody and the profile store directly: their
// actions still reach the profile's audit log (through the runtime the CLI makes with its context),
// sealed and anchored, with the OS user at this desk as actor. `audit verify` names the first entry
// cut from the tail and says when the keychain lacks the audit key rather than calling it tampering.
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEntryView, Page } from '../../../contract/api';
import { runCli } from '../../../main/cli/index';
import { auditAnchorAccount, auditKeyAccount } from '../../../main/store/sqlite/audit-seal';
import { journalPath } from '../../../main/desk/profile-engine';
import { deskActor } from '../../../main/audit/actor';
import { openJournal } from '../../../main/store/sqlite';
import { MemoryKeyStore } from '../../../main/keys/key-store';

const home = mkdtempSync(join(tmpdir(), 'desk-cli-audit-'));
const keyStore = new MemoryKeyStore();
const PROFILE = 'acme';

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env: { ...process.env, ACME_SECRET: 'very-secret-value' }, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}

const auditLog = async (): Promise<AuditEntryView[]> => {
  const r = await cli('--json', 'audit', 'list', '--limit', '100');
  expect(r.code).toBe(0);
  return (JSON.parse(r.out) as Page<AuditEntryView>).items.slice().reverse();
};

describe('CLI security actions in the audit log', () => {
  it('records profiles add, keys generate/rotate/retire and the secret set and deleted, as the person at this desk', async () => {
    expect((await cli('profiles', 'add', '--name', 'Acme', '--base-url', 'https://gw.example.com', '--merchant-code', 'ACME')).code).toBe(0);
    expect((await cli('keys', 'generate', '--bits', '2048')).code).toBe(0);
    const rotated = await cli('--json', 'keys', 'rotate', '--bits', '2048');
    expect(rotated.code).toBe(0);
    const { previousKeyId } = JSON.parse(rotated.out) as { previousKeyId: string };
    expect((await cli('keys', 'retire', previousKeyId)).code).toBe(0);
    expect((await cli('keys', 'secret', 'set', '--secret-env', 'ACME_SECRET', '--use')).code).toBe(0);
    expect((await cli('keys', 'secret', 'delete')).code).toBe(0);

    const log = await auditLog();
    expect(log.map((e) => e.action)).toEqual([
      'profile.added', 'key.generated', 'key.generated', 'key.rotated', 'key.retired',
      'merchant-secret.set', 'profile.updated', 'merchant-secret.cleared', 'profile.updated',
    ]);
    for (const e of log) expect(e.details).toMatchObject({ actor: deskActor() });
    expect(log[6]?.details).toMatchObject({ changes: [{ field: 'useDeprecatedSecret', from: false, to: true }] });
    expect(JSON.stringify(log)).not.toContain('very-secret-value');
  });

  it('verifies, then names the first entry cut from the tail', async () => {
    const ok = await cli('audit', 'verify');
    expect(ok).toMatchObject({ code: 0, out: 'Audit log intact: All 9 audit entries are intact\n' });

    const db = new Database(journalPath(home, PROFILE));
    db.exec(`DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE seq > 7;
      UPDATE meta SET value = (SELECT seq || ':' || hash FROM audit_log WHERE seq = 7) WHERE key = 'audit_head';`);
    db.close();
    const cut = await cli('audit', 'verify');
    expect(cut.code).toBe(1);
    expect(cut.out).toBe([
      'Audit log BROKEN: first bad entry #8',
      '  Tampered: the log ends at entry 7 but the in-memory key store (not persistent) anchored entry 9: entries 8–9 were removed (or the journal was restored from an older copy)',
      '',
    ].join('\n'));
  });

  it('says the log cannot be checked when the keychain has lost its audit key', async () => {
    const journal = openJournal(journalPath(home, PROFILE));
    const id = journal.journalId();
    journal.close();
    // As on another machine, or after the keychain was wiped: the same journal file, no audit key or anchor for it.
    expect(await keyStore.delete(auditKeyAccount(id))).toBe(true);
    expect(await keyStore.delete(auditAnchorAccount(id))).toBe(true);
    const r = await cli('audit', 'verify');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^Audit log CANNOT BE CHECKED on this desk\n {2}Cannot check: entries 1–7 were sealed with audit key [0-9a-f]{16}, which the in-memory key store \(not persistent\) does not hold/);
    expect(r.out).not.toMatch(/BROKEN|Tampered/);
  });
});

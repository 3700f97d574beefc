// `audit verify` against a journal file rewritten by someone who has the file and not the keychain (issue 23,
// finding 9): the audit log recomputed as the unkeyed chain, with an entry changed, and the journal's id
// replaced, so a desk that looked its audit key up by the file's id would make a new one and call the
// forgery intact. The profile's journal id is pinned in the keychain: the CLI says the log is broken.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { auditKeyAccount, journalPinAccount } from '../../../main/store/sqlite/audit-seal';
import { journalPath } from '../../../main/desk/profile-engine';
import { entryHash, GENESIS_HASH, type AuditRow } from '../../../main/audit/chain';
import { MemoryKeyStore } from '../../../main/keys/key-store';

const home = mkdtempSync(join(tmpdir(), 'desk-cli-pin-'));
const keyStore = new MemoryKeyStore();
const PROFILE = 'acme';

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env: { ...process.env, ACME_SECRET: 'very-secret-value' }, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}

/** The finding's script: every entry recomputed unkeyed (entry 2 changed), the head to match, a new journal id. */
function rewriteUnkeyed(file: string): string {
  const db = new Database(file);
  try {
    db.exec('DROP TRIGGER IF EXISTS audit_log_no_update; DROP TRIGGER IF EXISTS audit_log_no_delete;');
    const rows = db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as AuditRow[];
    let prev = GENESIS_HASH;
    for (const r of rows) {
      const detailsJson = r.seq === 2 ? '{"note":"rewritten"}' : r.details_json;
      const hash = entryHash(prev, { seq: r.seq, at: r.at, actor: r.actor, action: r.action, subject: r.subject, detailsJson }, null);
      db.prepare('UPDATE audit_log SET details_json = ?, prev_hash = ?, hash = ?, key_id = NULL WHERE seq = ?').run(detailsJson, prev, hash, r.seq);
      prev = hash;
    }
    db.prepare("UPDATE meta SET value = ? WHERE key = 'audit_head'").run(`${rows.at(-1)!.seq}:${prev}`);
    const newId = randomBytes(16).toString('hex');
    db.prepare("UPDATE meta SET value = ? WHERE key = 'journal_id'").run(newId);
    return newId;
  } finally {
    db.close();
  }
}

describe("the profile's journal id, pinned in the keychain", () => {
  it('says BROKEN for a log rewritten without the key under a new journal id, on every run after', async () => {
    expect((await cli('profiles', 'add', '--name', 'Acme', '--base-url', 'https://gw.example.com', '--merchant-code', 'ACME')).code).toBe(0);
    expect((await cli('keys', 'secret', 'set', '--secret-env', 'ACME_SECRET', '--use')).code).toBe(0);
    expect(await cli('audit', 'verify')).toMatchObject({ code: 0, out: expect.stringMatching(/^Audit log intact: All \d+ audit entries are intact\n$/) });
    const pinned = (await keyStore.get(journalPinAccount(PROFILE)))!;
    expect(pinned).toMatch(/^[0-9a-f]{32}$/);

    const newId = rewriteUnkeyed(journalPath(home, PROFILE));
    for (let run = 0; run < 2; run++) {
      const r = await cli('audit', 'verify');
      expect(r.code).toBe(1);
      expect(r.out.split('\n').slice(0, 2)).toEqual([
        expect.stringMatching(/^Audit log BROKEN: first bad entry #1 profile\.added/),
        expect.stringMatching(new RegExp(`^ {2}Tampered: this profile's journal was ${pinned}; the file now says ${newId}: it was replaced or its id rewritten \\(and \\d+ more problems?\\)$`)),
      ]);
      // An action in between writes on, sealed with the pinned id's key: it hides nothing.
      expect((await cli('keys', 'secret', 'set', '--secret-env', 'ACME_SECRET', '--use')).code).toBe(0);
    }
    expect(await keyStore.get(auditKeyAccount(newId))).toBeNull();
    expect(await keyStore.get(journalPinAccount(PROFILE))).toBe(pinned);
  });
});

// Security-relevant actions reach the audit log of the profile's journal, sealed, with the person at
// this desk as actor, and never with a secret in them; verify answers with the keychain's key and
// anchor, names the first bad entry, and tells a missing key apart from tampering.
import Database from 'better-sqlite3';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryView, IpcHandlerMap } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { DemoMode } from '../../../main/demo/demo-mode';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import { auditAnchorAccount, auditKeyAccount } from '../../../main/store/sqlite/audit-seal';
import { createDeskEvents } from '../../../main/desk/events';
import { journalPath } from '../../../main/desk/profile-engine';
import type { DialogPort } from '../../../main/desk/dialogs';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { deskActor } from '../../../main/audit/actor';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { createCapturingLogger } from '../../../main/log';
import { callerOf } from './ipc-helpers';
import { sqliteJournalOf } from '../../unit/journal/helpers';

let home = '';
let keyStore: MemoryKeyStore;
let ctx: AppContext;
let runtime: DeskRuntime;
let demo: DemoMode;
let handlers: IpcHandlerMap;
const log = createCapturingLogger();
const call = callerOf(() => handlers);
/** Main's save dialog, scripted: the backup goes where the next answer says. */
const saveAnswers: string[] = [];
const dialogs: DialogPort = {
  async chooseOpenFile() {
    return null;
  },
  async chooseSavePath() {
    return saveAnswers.shift() ?? null;
  },
};

function openDesk(): void {
  ctx = createAppContext({ home, keyStore, logger: log });
  runtime = createDeskRuntime({ ctx, events: createDeskEvents(), log });
  demo ??= new DemoMode({ ctx, log });
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(runtime, { name: 'Payout Desk', version: 'test', platform: process.platform, demoAvailable: true, dialogs }, demo), ctx), { log });
}
async function closeDesk(): Promise<void> {
  await runtime.close();
  ctx.close();
}

const entries = async (): Promise<AuditEntryView[]> => (await call('audit:list', { limit: 500 })).items.slice().reverse();

const PASSPHRASE = 'correct horse battery staple';
const SECRET = 'merchant-secret-value-42';
let profileId = '';
let journalId = '';

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'desk-sec-audit-'));
  keyStore = new MemoryKeyStore();
  openDesk();
});

afterAll(async () => {
  await closeDesk().catch(() => undefined);
  await demo?.close();
  await rm(home, { recursive: true, force: true });
});

describe('security actions in the audit log', () => {
  it('records the Demo profile and its key, as the OS user at this desk', async () => {
    profileId = (await call('profiles:createDemo')).id;
    const log = await entries();
    expect(log.map((e) => e.action)).toEqual(['profile.added', 'key.generated']);
    for (const e of log) expect(e.details).toMatchObject({ actor: deskActor() });
    expect(deskActor()).toMatch(/^[^@\s]+@\S+$/);
  });

  it('records key generate, import, rotate, backup and retire with the key but never its material or passphrase', async () => {
    const before = (await entries()).length;
    const generated = await call('keys:generate', { modulusBits: 2048 });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: PASSPHRASE }) as string;
    const pemFile = join(home, 'merchant.pem');
    await writeFile(pemFile, pem);
    const grant = await call('app:fileDropped', { purpose: 'key', path: pemFile });
    const imported = await call('keys:import', { file: grant.token, passphrase: PASSPHRASE });
    const rotated = await call('keys:rotate', {});
    saveAnswers.push(join(home, 'imported.backup.pem'));
    await call('keys:backup', { keyId: imported.id, passphrase: PASSPHRASE, confirmed: true });
    await call('keys:retire', { keyId: generated.id });
    const log = (await entries()).slice(before);
    expect(log.map((e) => [e.action, e.subject])).toEqual([
      ['key.generated', generated.id],
      ['key.imported', imported.id],
      ['key.generated', rotated.active.id],
      ['key.rotated', rotated.active.id],
      ['key.backed-up', imported.id],
      ['key.retired', generated.id],
    ]);
    expect(log[1]?.details).toMatchObject({ actor: deskActor(), keyId: imported.id, fingerprint: imported.fingerprint, source: 'imported', bits: 2048 });
    expect(log[3]?.details).toMatchObject({ previousKeyId: rotated.previous?.id ?? null });
    const text = JSON.stringify(log);
    expect(text).not.toContain(PASSPHRASE);
    expect(text).not.toMatch(/PRIVATE KEY|BEGIN/);
  });

  it('records the merchant secret set and cleared, never the secret', async () => {
    await call('keys:setSecret', { secret: SECRET });
    await call('keys:clearSecret', {});
    const log = (await entries()).slice(-2);
    expect(log.map((e) => e.action)).toEqual(['merchant-secret.set', 'merchant-secret.cleared']);
    expect(log[1]?.details).toMatchObject({ actor: deskActor(), removed: true });
    expect(JSON.stringify(await entries())).not.toContain(SECRET);
  });

  it('records settings and callback changes field by field, the callback URL only up to its host', async () => {
    const before = (await call('settings:get', {})).pollIntervalSecs;
    await call('settings:update', { pollIntervalSecs: 7, callback: { url: 'https://desk.example.com/cb/s3cr3t-path' } });
    const [change] = (await entries()).slice(-1);
    expect(change).toMatchObject({ action: 'profile.updated', subject: profileId });
    expect(change?.details).toMatchObject({
      actor: deskActor(),
      changes: [{ field: 'callbackUrl', from: null, to: 'https://desk.example.com' }, { field: 'pollIntervalSecs', from: before, to: 7 }],
    });
    expect(JSON.stringify(change)).not.toContain('s3cr3t');
  });

  it('records a payin token handed out, never the token', async () => {
    const options = await call('payins:options', { money: { amount: '10.00', currencyCode: 'EUR' } });
    const operator = options.find((o) => o.paymentMethodCode === 'VAPAY')?.operators[0]?.code ?? '';
    const payin = await call('payins:create', { amount: '10.00', currencyCode: 'EUR', paymentOperatorCode: operator, accountName: 'Customer', accountNumber: '12345678', emailAddress: 'c@example.com' });
    const share = await call('payins:shareToken', { idPayin: payin.idPayin, validitySecs: 600 });
    const log = (await entries()).slice(-2);
    expect(log.map((e) => [e.action, e.subject])).toEqual([['payin.queued', payin.idPayin], ['payin.token-shared', payin.idPayin]]);
    expect(log[1]?.details).toMatchObject({ actor: deskActor(), validitySecs: 600 });
    expect(JSON.stringify(log)).not.toContain(share.token);
  });

  it('records a payout with the person as actor', async () => {
    await call('payouts:create', {
      idPayout: 'audit-actor-1', amount: '12.50', currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com',
    });
    const queued = (await entries()).find((e) => e.action === 'payout.queued' && e.subject === 'audit-actor-1');
    expect(queued?.details).toMatchObject({ actor: deskActor() });
  });

  it('records a profile added, renamed and removed, in that profile\'s own journal', async () => {
    const other = await call('profiles:create', { name: 'Acme Live', baseUrl: 'https://gw.example.com', merchantCode: 'ACME', environment: 'TEST' });
    await call('profiles:update', { profileId: other.id, name: 'Acme Test' });
    await call('profiles:remove', { profileId: other.id });
    const journal = await sqliteJournalOf(runtime, other.id);
    const log = journal.listAudit(10).reverse();
    expect(log.map((e) => [e.action, e.actor])).toEqual([['profile.added', deskActor()], ['profile.updated', deskActor()], ['profile.removed', deskActor()]]);
    expect(log[1]?.details).toEqual({ changes: [{ field: 'name', from: 'Acme Live', to: 'Acme Test' }] });
    expect(journal.journalId()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('verifies, with every entry sealed and the newest anchored in the keychain', async () => {
    const verification = await call('audit:verify');
    expect(verification).toMatchObject({ ok: true, firstBrokenSeq: null });
    expect(verification.message).toMatch(/^All \d+ audit entries are intact$/);
    journalId = (await sqliteJournalOf(runtime, profileId)).journalId();
    const anchor = JSON.parse((await keyStore.get(auditAnchorAccount(journalId))) ?? '{}') as { seq: number; sealedFrom: number };
    expect(anchor).toMatchObject({ seq: verification.checked, sealedFrom: 1 });
    const rows = new Database(journalPath(home, profileId), { readonly: true });
    const unsealed = rows.prepare('SELECT COUNT(*) AS n FROM audit_log WHERE key_id IS NULL').get() as { n: number };
    rows.close();
    expect(unsealed.n).toBe(0);
  });
});

describe('audit verify against the keychain', () => {
  /** Edits the journal file as someone with the file but not the keychain would. */
  async function tamper(sql: string): Promise<void> {
    await closeDesk();
    const db = new Database(journalPath(home, profileId));
    db.exec(`DROP TRIGGER IF EXISTS audit_log_no_update; DROP TRIGGER IF EXISTS audit_log_no_delete; ${sql}`);
    db.close();
    openDesk();
  }

  it('names the first entry cut from the tail, although the file\'s own head was fixed up', async () => {
    const before = await call('audit:verify');
    await tamper(`DELETE FROM audit_log WHERE seq > ${before.checked - 2};
      UPDATE meta SET value = (SELECT seq || ':' || hash FROM audit_log ORDER BY seq DESC LIMIT 1) WHERE key = 'audit_head';`);
    const result = await call('audit:verify');
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: before.checked - 1 });
    expect(result.message).toBe(
      `Tampered: the log ends at entry ${before.checked - 2} but the in-memory key store (not persistent) anchored entry ${before.checked}: entries ${before.checked - 1}–${before.checked} were removed (or the journal was restored from an older copy)`,
    );
  });

  it('says the audit key is missing from the keychain, not that the log was tampered with', async () => {
    await closeDesk();
    // A keychain without this journal's key and anchor: another machine, or a wiped keychain.
    await keyStore.delete(auditKeyAccount(journalId));
    await keyStore.delete(auditAnchorAccount(journalId));
    const log = new Database(journalPath(home, profileId), { readonly: true });
    const before = (log.prepare('SELECT MAX(seq) AS n FROM audit_log').get() as { n: number }).n;
    log.close();
    openDesk();
    const result = await call('audit:verify');
    expect(result.ok).toBe(false);
    expect(result.firstBrokenSeq).toBeNull();
    expect(result.message).toMatch(new RegExp(`^Cannot check: entries 1–${before} were sealed with audit key [0-9a-f]{16}, which the in-memory key store \\(not persistent\\) does not hold \\(the journal comes from another machine, or the keychain was wiped\\): they cannot be checked here$`));
    expect(result.message).not.toMatch(/tamper|changed|removed/i);
    // The desk goes on with a new key, from an entry that says why and commits to the old head.
    const [rekeyed] = (await entries()).slice(-1);
    expect(rekeyed).toMatchObject({ seq: before + 1, action: 'audit.rekeyed' });
    expect(rekeyed?.details).toMatchObject({ previousHead: { seq: before }, previousChainVerified: null, reason: expect.stringMatching(/not in this keychain/) });
  });
});

// Files at the IPC boundary, through the handler map main registers and the real services (profile store,
// key custody over an in-memory key store): a key backup goes only where main's save dialog says, a key
// import reads only a file main's open dialog chose or the user dropped, and the data folder says when the
// OS could not open it. Main's dialogs are a scripted DialogPort (Electron's own cannot run under Node).
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IpcHandlerMap } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { bindActiveProfile, createDeskServices, type DialogPort } from '../../../main/desk';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { createCapturingLogger } from '../../../main/log';
import { callerOf } from './ipc-helpers';

let home = '';
let ctx: AppContext;
let runtime: DeskRuntime;
let handlers: IpcHandlerMap;
let noDialogs: IpcHandlerMap;
let openPathAnswer = '';
const answers: (string | null)[] = [];
const asked: { kind: 'open' | 'save'; title: string; defaultFileName?: string }[] = [];
const call = callerOf(() => handlers);

const dialogs: DialogPort = {
  async chooseOpenFile({ title }) {
    asked.push({ kind: 'open', title });
    return answers.shift() ?? null;
  },
  async chooseSavePath({ title, defaultFileName }) {
    asked.push({ kind: 'save', title, defaultFileName });
    return answers.shift() ?? null;
  },
};

const privatePem = (): string => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'key-files-'));
  const log = createCapturingLogger();
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore(), logger: log });
  runtime = createDeskRuntime({ ctx, events: createDeskEvents(), log });
  const env = { name: 'Payout Desk', version: 'test', platform: process.platform, demoAvailable: false };
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(runtime, { ...env, dialogs, openPath: async () => openPathAnswer }, null), ctx), { log });
  noDialogs = createIpcHandlers(bindActiveProfile(createDeskServices(runtime, env, null), ctx), { log });
  await call('profiles:create', { name: 'Acme', baseUrl: 'https://gateway.example.com', merchantCode: 'ACME', environment: 'TEST' });
});

afterAll(async () => {
  await runtime?.close();
  ctx?.close();
  await rm(home, { recursive: true, force: true });
});

describe('keys:import reads the file main was handed, never PEM text from the page', () => {
  it('imports a key file chosen in main\'s open dialog; the page gets a token and the public key only', async () => {
    const pem = privatePem();
    const path = join(home, 'merchant-key.pem');
    await writeFile(path, pem);
    answers.push(path);
    const choice = await call('app:chooseFile', { purpose: 'key' });
    expect(asked.at(-1)).toEqual({ kind: 'open', title: 'Choose a private key file' });
    if (!choice.chosen) throw new Error('a file was chosen');
    expect(choice.file).toMatchObject({ fileName: 'merchant-key.pem', purpose: 'key' });
    expect(JSON.stringify(choice)).not.toContain(home);
    const key = await call('keys:import', { file: choice.file.token });
    expect(key).toMatchObject({ source: 'imported', modulusBits: 2048 });
    expect(JSON.stringify(key)).not.toContain(pem.split('\n')[1]);
  });

  it('imports a dropped key file (the path the preload read from the File) and an encrypted one with its passphrase', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const path = join(home, 'encrypted.key');
    await writeFile(path, privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse battery' }));
    const grant = await call('app:fileDropped', { purpose: 'key', path });
    const wrong = await handlers['keys:import']({ file: grant.token, passphrase: 'wrong passphrase' });
    expect(wrong.ok).toBe(false);
    // The same token works again: a wrong passphrase does not mean choosing the file again.
    expect(await call('keys:import', { file: grant.token, passphrase: 'correct horse battery' })).toMatchObject({ source: 'imported' });
  });

  it('a cancelled open dialog is an answer, not an error', async () => {
    answers.push(null);
    expect(await call('app:chooseFile', { purpose: 'key' })).toEqual({ chosen: false });
  });

  it('refuses PEM text, a path, a token main never issued, and a CSV token used for a key', async () => {
    const pemText = await handlers['keys:import']({ privateKeyPem: privatePem() });
    expect(pemText).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    const path = await handlers['keys:import']({ file: '/home/finance/.ssh/id_rsa' });
    expect(path).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', issues: [{ field: 'file', message: 'is not a file token' }] } });
    const forged = await handlers['keys:import']({ file: '7d1c2a4e-1111-4222-8333-944445555666' });
    expect(forged).toMatchObject({ ok: false, error: { code: 'FILE_NOT_GRANTED', message: expect.stringContaining('Choose the private key file again') } });
    const csv = join(home, 'payouts.csv');
    await writeFile(csv, 'idPayout,amount\n');
    const csvGrant = await call('app:fileDropped', { purpose: 'csv', path: csv });
    expect(await handlers['keys:import']({ file: csvGrant.token })).toMatchObject({ ok: false, error: { code: 'FILE_NOT_GRANTED' } });
  });

  it('refuses to hand out a token for a file of the wrong kind, a folder or a relative path', async () => {
    expect(await handlers['app:fileDropped']({ purpose: 'key', path: join(home, 'payouts.csv') })).toMatchObject({ ok: false, error: { code: 'FILE_TYPE', message: expect.stringContaining('.pem') } });
    expect(await handlers['app:fileDropped']({ purpose: 'csv', path: '/etc/passwd' })).toMatchObject({ ok: false, error: { code: 'FILE_TYPE' } });
    const folder = join(home, 'folder.csv');
    await mkdir(folder);
    expect(await handlers['app:fileDropped']({ purpose: 'csv', path: folder })).toMatchObject({ ok: false, error: { code: 'FILE_TYPE', message: expect.stringContaining('not a file') } });
    expect(await handlers['app:fileDropped']({ purpose: 'key', path: 'keys/key.pem' })).toMatchObject({ ok: false, error: { code: 'FILE_TYPE' } });
  });

  it('refuses a file far too large to be a key without reading it as one', async () => {
    const path = join(home, 'huge.pem');
    await writeFile(path, Buffer.alloc(200 * 1024, 0x41));
    const grant = await call('app:fileDropped', { purpose: 'key', path });
    expect(await handlers['keys:import']({ file: grant.token })).toMatchObject({ ok: false, error: { code: 'FILE_TYPE', message: expect.stringContaining('too large') } });
  });
});

describe('keys:backup writes where main\'s save dialog says', () => {
  const backup = async (answer: string | null) => {
    const { id } = (await call('keys:list', {})).find((k) => k.status === 'active') ?? { id: '' };
    answers.push(answer);
    return handlers['keys:backup']({ keyId: id, passphrase: 'a long backup passphrase', confirmed: true });
  };

  it('writes a new encrypted file, for this user only, at the chosen path', async () => {
    const target = join(home, 'chosen.backup.pem');
    const result = await backup(target);
    expect(result).toMatchObject({ ok: true, data: { saved: true, path: target } });
    expect(asked.at(-1)).toMatchObject({ kind: 'save', title: 'Save the encrypted key backup', defaultFileName: expect.stringMatching(/\.backup\.pem$/) });
    expect(await readFile(target, 'utf8')).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----/);
    if (process.platform !== 'win32') expect((await stat(target)).mode & 0o777).toBe(0o600);
  });

  it('a cancelled dialog writes nothing and answers saved: false', async () => {
    expect(await backup(null)).toEqual({ ok: true, data: { saved: false } });
  });

  it('never replaces a file and never makes a folder', async () => {
    const existing = join(home, 'existing.pem');
    await writeFile(existing, 'keep me');
    expect(await backup(existing)).toMatchObject({ ok: false, error: { code: 'FILE_EXISTS' } });
    expect(await readFile(existing, 'utf8')).toBe('keep me');
    const inMissing = join(home, 'no', 'such', 'folder', 'k.pem');
    expect(await backup(inMissing)).toMatchObject({ ok: false, error: { code: 'FOLDER_MISSING' } });
    expect(existsSync(join(home, 'no'))).toBe(false);
  });

  it('refuses a path from the page in the schema, before any key is touched', async () => {
    const { id } = (await call('keys:list', {}))[0] ?? { id: '' };
    const result = await handlers['keys:backup']({ keyId: id, passphrase: 'a long backup passphrase', confirmed: true, path: join(home, 'evil.pem') });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(existsSync(join(home, 'evil.pem'))).toBe(false);
  });

  it('asks for no dialog when the confirmation is missing, and says so where no dialog can be shown', async () => {
    const before = asked.length;
    const { id } = (await call('keys:list', {}))[0] ?? { id: '' };
    const unconfirmed = await handlers['keys:backup']({ keyId: id, passphrase: 'a long backup passphrase', confirmed: false });
    expect(unconfirmed.ok).toBe(false);
    expect(asked.length).toBe(before);
    const headless = await noDialogs['keys:backup']({ keyId: id, passphrase: 'a long backup passphrase', confirmed: true });
    expect(headless).toMatchObject({ ok: false, error: { code: 'DIALOG_UNAVAILABLE', message: expect.stringContaining('--out') } });
  });
});

describe('app:openDataFolder', () => {
  it('answers the folder when the OS opened it', async () => {
    openPathAnswer = '';
    expect(await call('app:openDataFolder')).toEqual({ path: home });
  });

  it('fails with the OS\'s own reason when it could not (shell.openPath answers it as text)', async () => {
    openPathAnswer = 'Failed to open path: no file manager is installed';
    const result = await handlers['app:openDataFolder'](undefined);
    expect(result).toMatchObject({ ok: false, error: { code: 'OPEN_FAILED', message: expect.stringContaining('no file manager is installed') } });
    if (!result.ok) expect(result.error.message).toContain(home);
  });
});

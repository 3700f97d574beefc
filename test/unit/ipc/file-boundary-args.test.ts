// The page can name no file: every way it could try to pass a path or key text is refused by the
// schema, before any service is reached (the services themselves are tested in test/integration/ipc).
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../contract/api';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { recordingServices } from './fake-services';

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';

const refused: [string, Channel, unknown][] = [
  ['a backup with a destination path', 'keys:backup', { keyId: 'k-1', passphrase: 'a long enough passphrase', confirmed: true, path: '/home/finance/.bashrc' }],
  ['a backup with a folder to create', 'keys:backup', { keyId: 'k-1', passphrase: 'a long enough passphrase', confirmed: true, dir: '/tmp/a/b/c' }],
  ['a key import carrying PEM text', 'keys:import', { privateKeyPem: PEM }],
  ['a key import naming a file by path', 'keys:import', { file: '/home/finance/.ssh/id_rsa' }],
  ['a key import with PEM text in the token field', 'keys:import', { file: PEM }],
  ['a CSV validation by path', 'batches:validateFile', { source: { kind: 'path', path: '/home/finance/payouts.csv' } }],
  ['a CSV validation with a path beside the token', 'batches:validateFile', { source: { kind: 'granted', token: 'abc', path: '/etc/passwd' } }],
  ['a CSV validation with a path as the token', 'batches:validateFile', { source: { kind: 'granted', token: '../../etc/passwd' } }],
  ['a payee import by path', 'payees:import', { source: { kind: 'path', path: '/home/finance/payees.csv' } }],
  ['a payee import with a path beside the token', 'payees:import', { source: { kind: 'granted', token: 'abc', path: '/etc/passwd' } }],
  ['a payee import with a path as the token', 'payees:import', { source: { kind: 'granted', token: '../../etc/passwd' } }],
  ['a payee import carrying the file\'s bytes', 'payees:import', { source: { kind: 'base64', fileName: 'payees.csv', base64: 'YQ==' } }],
  ['a payee export told where to write', 'payees:export', { path: '/home/finance/.bashrc' }],
  ['a file dialog for another purpose', 'app:chooseFile', { purpose: 'journal' }],
  ['a file dialog told where to start', 'app:chooseFile', { purpose: 'csv', defaultPath: '/etc' }],
];

describe('files at the IPC boundary', () => {
  it.each(refused)('refuses %s in the schema', async (_name, channel, args) => {
    const { services, calls } = recordingServices();
    const result = await createIpcHandlers(services)[channel](args);
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(calls).toEqual([]);
  });
});

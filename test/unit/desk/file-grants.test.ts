// The tokens main issues for files a person chose or dropped: checked when issued (absolute path,
// a regular file, the purpose's extensions), good for their purpose only, bounded in number and in age.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileGrants } from '../../../main/desk/file-grants';

const dir = mkdtempSync(join(tmpdir(), 'file-grants-'));
const file = (name: string) => {
  const path = join(dir, name);
  writeFileSync(path, 'x');
  return path;
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('file grants', () => {
  it('issues a random token and the file name, and resolves the token to the path for its purpose only', async () => {
    const grants = createFileGrants();
    const path = file('Payouts March.CSV');
    const grant = await grants.grant(path, 'csv');
    expect(grant).toEqual({ token: expect.stringMatching(/^[0-9a-f-]{36}$/), fileName: 'Payouts March.CSV', purpose: 'csv' });
    expect(grants.resolve(grant.token, 'csv')).toEqual({ path, fileName: 'Payouts March.CSV' });
    expect(() => grants.resolve(grant.token, 'key')).toThrow(expect.objectContaining({ code: 'FILE_NOT_GRANTED' }));
  });

  it('refuses other extensions per purpose, and paths that are not absolute or not files', async () => {
    const grants = createFileGrants();
    await expect(grants.grant(file('key.pem'), 'csv')).rejects.toMatchObject({ code: 'FILE_TYPE', message: expect.stringContaining('.csv, .tsv, .txt') });
    await expect(grants.grant(file('journal.db'), 'key')).rejects.toMatchObject({ code: 'FILE_TYPE' });
    await expect(grants.grant('payouts.csv', 'csv')).rejects.toMatchObject({ code: 'FILE_TYPE' });
    await expect(grants.grant(join(dir, 'missing.csv'), 'csv')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND', message: `File not found: ${join(dir, 'missing.csv')}` });
    mkdirSync(join(dir, 'folder.csv'));
    await expect(grants.grant(join(dir, 'folder.csv'), 'csv')).rejects.toMatchObject({ code: 'FILE_TYPE', message: expect.stringContaining('not a file') });
  });

  it('forgets the oldest of more than 32 tokens, and tokens older than an hour', async () => {
    let now = 0;
    const grants = createFileGrants(() => now);
    const path = file('many.csv');
    const first = await grants.grant(path, 'csv');
    const rest = [];
    for (let i = 0; i < 32; i++) rest.push(await grants.grant(path, 'csv'));
    expect(() => grants.resolve(first.token, 'csv')).toThrow(expect.objectContaining({ code: 'FILE_NOT_GRANTED' }));
    const last = rest.at(-1)?.token ?? '';
    expect(grants.resolve(last, 'csv').path).toBe(path);
    now = 60 * 60 * 1000 + 1;
    expect(() => grants.resolve(last, 'csv')).toThrow(expect.objectContaining({ code: 'FILE_NOT_GRANTED' }));
  });
});

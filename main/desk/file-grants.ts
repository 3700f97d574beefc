// Files the user handed the desk: chosen in main's own open dialog or dropped on the window (the preload
// reads the dropped File's real path). Main keeps the path and gives the page a random token, so the page
// can name no path of its own and the services read only files a person picked. A token is good for a
// while and for its purpose only: a CSV token cannot be used to read a key file, nor the other way round.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, extname, isAbsolute } from 'node:path';
import type { FileGrant, FilePurpose } from '../../contract/api';
import { DeskError } from './services';

/** Extensions main accepts per purpose (the open dialog filters with the same list). */
export const FILE_EXTENSIONS: Readonly<Record<FilePurpose, readonly string[]>> = {
  // A payout batch: a CSV, or an ISO 20022 pain.001 payment run (XML); the content decides the reader.
  csv: ['csv', 'tsv', 'txt', 'xml'],
  key: ['pem', 'key', 'p8', 'pk8', 'txt'],
  ca: ['pem', 'crt', 'cer'],
};

const KIND_NAME: Readonly<Record<FilePurpose, string>> = { csv: 'payout CSV', key: 'private key', ca: 'CA certificate' };

/** A handful of files at a time is all a person works with; older tokens are forgotten first. */
const MAX_GRANTS = 32;
const GRANT_LIFETIME_MS = 60 * 60 * 1000;

interface Entry {
  path: string;
  purpose: FilePurpose;
  grantedAt: number;
}

export interface FileGrants {
  /** Checks that `path` is an absolute path to a regular file of the purpose's kind, and issues a token for it. */
  grant(path: string, purpose: FilePurpose): Promise<FileGrant>;
  /** The path behind a token of this purpose; FILE_NOT_GRANTED when main never issued it (or forgot it). */
  resolve(token: string, purpose: FilePurpose): { path: string; fileName: string };
}

export function acceptedExtensions(purpose: FilePurpose): string {
  return FILE_EXTENSIONS[purpose].map((e) => `.${e}`).join(', ');
}

export function createFileGrants(now: () => number = Date.now): FileGrants {
  const grants = new Map<string, Entry>();
  return {
    async grant(path, purpose) {
      if (!isAbsolute(path)) throw new DeskError('FILE_TYPE', 'The dropped item is not a file on this computer');
      const ext = extname(path).slice(1).toLowerCase();
      if (!FILE_EXTENSIONS[purpose].includes(ext)) {
        throw new DeskError('FILE_TYPE', `${basename(path)} is not a ${KIND_NAME[purpose]} file: choose a ${acceptedExtensions(purpose)} file`);
      }
      const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
        // The full path: the person (or the CLI's caller) sees where the desk looked.
        if (error.code === 'ENOENT') throw new DeskError('FILE_NOT_FOUND', `File not found: ${path}`);
        return null;
      });
      if (!info?.isFile()) throw new DeskError('FILE_TYPE', `${basename(path)} is not a file that can be read`);
      const token = randomUUID();
      grants.set(token, { path, purpose, grantedAt: now() });
      while (grants.size > MAX_GRANTS) grants.delete(grants.keys().next().value as string);
      return { token, fileName: basename(path), purpose };
    },
    resolve(token, purpose) {
      const entry = grants.get(token);
      if (entry && now() - entry.grantedAt > GRANT_LIFETIME_MS) grants.delete(token);
      if (!entry || entry.purpose !== purpose || !grants.has(token)) {
        throw new DeskError('FILE_NOT_GRANTED', `Choose the ${KIND_NAME[purpose]} file again (with "Choose file…" or by dropping it on the window)`);
      }
      return { path: entry.path, fileName: basename(entry.path) };
    },
  };
}

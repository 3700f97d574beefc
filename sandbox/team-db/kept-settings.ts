// With --state, what the next start needs to print the same lines: the port the profiles were pointed at and
// the two passwords. Kept beside the cluster in team-db.json, readable by its owner only; a trial database's
// passwords, printed at every start anyway.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const KeptSettingsSchema = z.object({ port: z.number().int(), ownerPassword: z.string().min(1), memberPassword: z.string().min(1) });
export type KeptSettings = z.infer<typeof KeptSettingsSchema>;

const fileOf = (dir: string) => join(dir, 'team-db.json');

/** The settings of an earlier start; null when there are none (or they cannot be read: new ones are made). */
export function readKeptSettings(dir: string): KeptSettings | null {
  if (!existsSync(fileOf(dir))) return null;
  try {
    const parsed = KeptSettingsSchema.safeParse(JSON.parse(readFileSync(fileOf(dir), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function writeKeptSettings(dir: string, settings: KeptSettings): void {
  writeFileSync(fileOf(dir), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
}

/** 24 characters of [A-Za-z0-9_-]: nothing a shell or a URL would have to quote. */
export const generatePassword = (): string => randomBytes(18).toString('base64url');

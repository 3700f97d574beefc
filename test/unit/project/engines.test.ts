// `npm install` on the oldest Node that package.json declares prints no EBADENGINE: every package of the lock
// file accepts that version. A dependency bump that wants a newer Node fails here, naming the package, instead of
// warning fifty times in a new user's first install.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// semver is npm's own range checker (hoisted into node_modules by many packages); typed here as far as used.
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

interface LockEntry { version?: string; engines?: { node?: string } | string[] }
const read = <T>(file: string) => JSON.parse(readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8')) as T;

describe('dependencies fit the declared Node engines', () => {
  const declared = read<{ engines: { node: string } }>('package.json').engines.node;
  const oldest = semver.minVersion(declared)!.version;
  const lock = read<{ packages: Record<string, LockEntry> }>('package-lock.json');

  it(`every package in the lock file accepts Node ${oldest} (package.json: ${declared})`, () => {
    const misfits = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const wants = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      return wants && !semver.satisfies(oldest, wants) ? [`${path.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'} wants node ${wants}`] : [];
    });
    expect(misfits).toEqual([]);
  });

  it('the check itself catches a package that wants a newer Node', () => {
    expect(semver.satisfies(oldest, '>=22.12.0')).toBe(false);
  });
});

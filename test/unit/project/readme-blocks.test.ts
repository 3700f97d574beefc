import { describe, expect, it } from 'vitest';
import { readmeScript, shellBlocks } from '../../integration/readme/readme-blocks';

const md = [
  'Intro',
  '```sh',
  'echo one 8787',
  '```',
  '<!-- readme-test: skip: needs a real server -->',
  '```sh',
  'echo two',
  '```',
  '```js',
  'not shell',
  '```',
].join('\n');

describe("the README's shell blocks", () => {
  it('are found with their line, and a skip carries its reason', () => {
    expect(shellBlocks(md)).toEqual([
      { line: 2, code: 'echo one 8787', skip: null },
      { line: 6, code: 'echo two', skip: 'needs a real server' },
    ]);
  });
  it('become one strict script of the blocks that run, ports swapped, each step named by its line', () => {
    const script = readmeScript(shellBlocks(md), new Map([['8787', '40001']]));
    expect(script).toContain('set -euo pipefail');
    expect(script).toContain('echo "### README.md:2"\necho one 40001');
    expect(script).not.toContain('echo two');
  });
  it('refuse a block that is never closed', () => {
    expect(() => shellBlocks('```sh\necho')).toThrow(/README.md:1/);
  });
});

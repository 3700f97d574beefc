// The README's shell blocks as one script, as a new user would type them top to bottom in one shell. A block
// is skipped only when the line before its fence says why: <!-- readme-test: skip: the reason -->.
// Lines ending in "&" start a long-running program (the sandbox, the team database) in the background, as
// the README tells the reader to; the runner stops whatever is left at the end.

export interface ReadmeBlock {
  /** 1-based line of the opening fence in README.md. */
  line: number;
  code: string;
  skip: string | null;
}

const SKIP = /^<!--\s*readme-test:\s*skip:\s*(.+?)\s*-->$/;

/** Every ```sh block of the markdown, with the skip reason given before its fence. */
export function shellBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```sh') continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== '```'; i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`README.md:${start + 1}: a \`\`\`sh block is never closed`);
    const reason = SKIP.exec((lines[start - 1] ?? '').trim())?.[1] ?? null;
    blocks.push({ line: start + 1, code: body.join('\n'), skip: reason });
  }
  return blocks;
}

/**
 * One bash script of the blocks that run: each block is echoed with its README line before it runs, so a
 * failure names the line to fix. `replace` swaps fixed values (ports) the test must not share with others.
 */
export function readmeScript(blocks: readonly ReadmeBlock[], replace: ReadonlyMap<string, string> = new Map()): string {
  const swap = (text: string) => [...replace].reduce((t, [from, to]) => t.split(from).join(to), text);
  const parts = ['set -euo pipefail', "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT"];
  for (const b of blocks) {
    if (b.skip) continue;
    parts.push(`echo "### README.md:${b.line}"`, swap(b.code));
  }
  return `${parts.join('\n')}\n`;
}

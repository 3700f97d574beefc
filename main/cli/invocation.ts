// How the person started this CLI, so a hint can be pasted back as it is: `npm run -s cli -- …` from the
// project folder, `npx payout-desk …`, or `payout-desk …` on PATH (after `npm link`). npm sets
// npm_lifecycle_event to the script's name for `npm run` and npm_command to "exec" for npx.

export type Env = Readonly<Record<string, string | undefined>>;

/** The words that start this CLI, as the user typed them. */
export function cliPrefix(env: Env = process.env): string {
  if (env['npm_lifecycle_event'] === 'cli') return 'npm run -s cli --';
  if (env['npm_command'] === 'exec') return 'npx payout-desk';
  return 'payout-desk';
}

/** A whole command line to paste: `typedCommand('batch resume 42')` → "npx payout-desk batch resume 42". */
export function typedCommand(rest: string, env: Env = process.env): string {
  return `${cliPrefix(env)} ${rest}`.trimEnd();
}

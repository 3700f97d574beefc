// The desk's LOCKED refusals in the command line's terms; kept apart so the CLI's entry reads it without
// loading the dual-control commands.

const AS_OPTIONS = '--as <person> and their passphrase (--passphrase-env or --passphrase-file)';

/**
 * A LOCKED refusal in the CLI's own terms. The desk's words ("unlock as a preparer first") are the screen's, where a
 * person unlocks before working; the CLI names who acts on the command itself, with --as.
 */
/** The desk's "type the code your app shows" in the CLI's terms: where the command takes it (never argv). */
export function secondFactorInCliTerms(message: string): string {
  return message.replace(/^Type the code your authenticator app shows \(or a recovery code\) to (.+)$/, 'A code of your second factor is needed to $1: give the code your authenticator app shows (or a recovery code) with --code-env <VAR> or --code-file <file>, never on the command line');
}

export function lockedInCliTerms(message: string): string {
  return message
    .replace(/\bunlock as an? (\w+) first\b/, (_, role: string) => `name ${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role} with ${AS_OPTIONS}`)
    .replace(/\bneeds an unlocked (\w+); unlock first\b/, `needs an $1: name one with ${AS_OPTIONS}`)
    .replace(/\bunlock first to (.+)$/, `to $1, name who acts with ${AS_OPTIONS}`);
}

// What a batch or payout that dual control holds back waits for, as CLI lines with the next command to paste:
// who can still approve it (worked out in main/desk/still-needed.ts), the approver's command while approvals
// are missing, and the sender's command only once they are there ("batch resume" before would pause again).
import type { PersonInfo } from '../../contract/api';
import type { Subject } from '../approvals/manifest';
import { dualControlService, type SubjectView } from '../desk/dual-control';
import { stillNeededText, type StillNeeded, type StillNeededFix } from '../desk/still-needed';
import type { CliDeps } from './deps';
import { typedCommand, type Env } from './invocation';

/** The README's convention for a person's passphrase variable: Bob → BOB_PASS. */
export const passphraseVarOf = (name: string): string => `${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'THEIR'}_PASS`;

const acting = (name: string | null, role: string) => (name ? `--as ${name} --passphrase-env ${passphraseVarOf(name)}` : `--as <${role}> --passphrase-env <VAR>`);

/** When nobody left can approve: the commands that change that, as the user types the CLI. */
export function cliFix(env?: Env): StillNeededFix {
  return {
    grant: `grant the approver role to another person (${typedCommand('people roles <name> --roles approver --as <admin> --passphrase-env <VAR>', env)})`,
    policy: `lower the policy (${typedCommand('policy set --file rules.json --as <admin> --passphrase-env <VAR>', env)})`,
  };
}

/** "It needs 1 more approval from: Bob." and the approver's command (the first who can, by name). */
export function stillNeededLines(subject: Subject, n: StillNeeded, env?: Env): string[] {
  const lines = [`Waiting for approval: it ${stillNeededText(n, cliFix(env))}.`];
  const first = n.from[0];
  if (first) lines.push(`${n.from.length > 1 ? 'An approver' : first.name} signs it with: ${typedCommand(`approvals approve ${subject.kind} ${subject.id} ${acting(first.name, 'approver')}`, env)}`);
  return lines;
}

/** The send command of a subject dual control let go, naming a sender of the desk when there is one. */
function sendCommand(subject: Subject, people: readonly PersonInfo[], env?: Env): string {
  const sender = people.find((p) => p.revokedAt === null && p.roles.includes('sender'));
  const verb = subject.kind === 'batch' ? `batch resume ${subject.id}` : `payouts release ${subject.id}`;
  return typedCommand(`${verb} ${acting(sender?.name ?? null, 'sender')}`, env);
}

/**
 * What to do next with a subject dual control holds back (batch PAUSED, payout HELD): approvals missing, who can
 * give them and how; rejected, how to drop it; approved, the sender's command. Empty when dual control has no
 * say in it (not on, or no approval needed).
 */
export function nextStepLines(view: SubjectView, people: readonly PersonInfo[], env?: Env): string[] {
  if (!view.enforced) return [];
  if (view.stillNeeded) return stillNeededLines(view.subject, view.stillNeeded, env);
  const { subject } = view;
  if (view.verdict.code === 'REJECTED') {
    const drop = subject.kind === 'batch' ? `batch cancel ${subject.id}` : `payouts discard ${subject.id} --reason "<why>"`;
    return [`Rejected: it is not sent as it is; drop it with: ${typedCommand(drop, env)} (and prepare a corrected one)`];
  }
  if (view.verdict.ok && view.verdict.requirement.required > 0) return [`Approved: a sender sends it with: ${sendCommand(subject, people, env)}`];
  return [];
}

/** nextStepLines for a subject of the CLI's profile, read from the journal now; empty without dual control. */
export async function nextStepsOf(deps: CliDeps, subject: Subject, options: { unlessApproved?: boolean } = {}): Promise<string[]> {
  const desk = deps.desk();
  const dc = dualControlService(desk.runtime);
  if (!(await dc.policy(desk.profile.id)).enforced) return [];
  const view = await dc.show(desk.profile.id, subject).catch(() => null);
  // Approved yet held: something else holds it back, which the caller's own hints are about.
  if (!view || (options.unlessApproved && view.verdict.ok)) return [];
  return nextStepLines(view, await desk.call('people', 'list', undefined), deps.env);
}

// Who can still give the approvals a batch or payout waits for, and how to say it: "needs 1 more approval
// from: Bob, Cy", or, when the people of the desk cannot give them all, that no one can and what to do. A
// person counts as able when they hold the approver role now, are not revoked, did not prepare it and have
// no approval of it that counts already (a second one by them would be refused). Worked out here, in main,
// so that the CLI, the screens and the refusals say the same.
import type { Verdict } from '../approvals/verify';
import { heldRoleAt, type Person } from '../people/roles';

export interface StillNeeded {
  /** Approvals still missing. */
  more: number;
  /** Approvals that count already. */
  given: number;
  /** The people who could give one now, in the order of the control records. */
  from: { id: string; name: string }[];
}

/** What a person can do when nobody left can approve: the command or screen, worded for where it is read. */
export interface StillNeededFix {
  grant: string;
  policy: string;
}

const NEUTRAL_FIX: StillNeededFix = { grant: 'grant the approver role to another person', policy: 'lower the policy' };

/** The missing approvals of a batch's or payout's verdict and who can give them; null when none are missing (may go, rejected, or not needed). */
export function stillNeeded(verdict: Verdict, people: readonly Person[], preparedBy: string | null, now: number): StillNeeded | null {
  // A rejection stands whatever else is signed; a policy of another profile lets nothing go: no approval helps.
  if (verdict.ok || verdict.code === 'REJECTED' || verdict.code === 'POLICY_INVALID') return null;
  return missingFrom({ required: verdict.requirement.required, approvedBy: verdict.approvedBy }, people, preparedBy, now);
}

/** The approvals missing of `required`, given those counted, and who could give one; null when none are missing. */
export function missingFrom(count: { required: number; approvedBy: readonly string[] }, people: readonly Person[], madeBy: string | null, now: number): StillNeeded | null {
  const given = count.approvedBy.length;
  const more = count.required - given;
  if (more <= 0) return null;
  const counted = new Set(count.approvedBy);
  const from = people
    .filter((p) => p.revokedAt === null && heldRoleAt(p, 'approver', now) && p.id !== madeBy && !counted.has(p.id))
    .map((p) => ({ id: p.id, name: p.name }));
  return { more, given, from };
}

export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th'}`;
}

const approvals = (n: number) => `${n} more approval${n === 1 ? '' : 's'}`;

/**
 * "needs 1 more approval from: Bob, Cy"; when fewer people can approve than approvals are missing, which
 * approval no one can give and the way out (`fix`, as the reader acts: a command or a screen).
 */
export function stillNeededText(n: StillNeeded, fix: StillNeededFix = NEUTRAL_FIX): string {
  const names = n.from.map((p) => p.name).join(', ');
  if (n.from.length >= n.more) return `needs ${approvals(n.more)} from: ${names}`;
  const way = `${fix.grant} or ${fix.policy}`;
  if (n.from.length === 0) {
    const it = n.more === 1 ? `the ${ordinal(n.given + 1)} approval` : 'any of them';
    return `needs ${approvals(n.more)}, and no one on this desk can give ${it}: ${way}`;
  }
  const only = n.from.length === 1 ? `only ${names} can give one` : `only ${names} can give one each`;
  return `needs ${approvals(n.more)}, and ${only}: no one on this desk can give the ${ordinal(n.given + n.from.length + 1)} approval: ${way}`;
}

// CLI: `people add|enroll|list|roles|revoke|unlock|control|cosign|seal|trust`, `approvals list|show|approve|reject`,
// `policy show|set`: dual control through the handlers the screens call (people:*, approvals:*), with the same
// guard, schema and error mapping (cli/desk.ts). Whoever acts names themselves with --as and gives their
// passphrase from a file or an environment variable, never from the command line; each command unlocks them
// at its desk (people:unlock, as the screen's Unlock) and locks again when it ends.
// What the contract has no verb for stays on the dual-control service: the list of signed approvals
// (`approvals list`), a subject's manifest with its payee flags and verdict checks (`approvals show`: the
// screen's approvals:show answers another shape), and an approval with a note (approvals:approve takes none).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { ControlInfo, ControlProposalInfo, PersonInfo, PolicyRulesView, PolicyView, RoleName } from '../../contract/api';
import type { ApprovalRecord, Decision } from '../approvals/approval';
import type { Subject } from '../approvals/manifest';
import type { PolicyRules } from '../approvals/policy';
import { dualControlService, type DualControlService, type SubjectView } from '../desk/dual-control';
import type { UnlockedSession } from '../people/key-vault';
import { nextStepLines, stillNeededLines } from './approval-hints';
import { CliUsageError, type CliDeps } from './deps';
import { intOption, plural, readSecretInput } from './shared';

import { actingOptions, secondFactorCode, type ActingOptions } from './acting';
import { registerSecondFactorCommands } from './second-factor';
import { registerAlertCommands } from './alerts';

export { lockedInCliTerms } from './locked-words';

function proposalLines(p: ControlProposalInfo): string[] {
  return [`Waiting for a second admin: ${p.what} (signed by ${p.signedBy.join(', ')}, needs ${p.needs})`, `  a second admin signs it with: people cosign ${p.hash} --as <admin> --passphrase-env <VAR>`];
}

export function controlLines(c: ControlInfo): string[] {
  if (!c.enforced) return ['Dual control is not set up on this profile (people add)'];
  return [
    `Root fingerprint ${c.fingerprint ?? '(none yet)'}${c.fingerprint ? (c.confirmed ? ' (confirmed at this desk)' : ' (not confirmed at this desk: compare it with your admin, then people trust <fingerprint>)') : ''}`,
    `${plural(c.records, 'control record')}${c.secondAdmin ? '; grants of approver or admin and policy changes need two admins' : ''}`,
    c.problem ? `NOTHING IS SENT: ${c.problem.message}` : 'The control records verify against this desk\'s pin',
    ...c.proposals.map((p) => `waiting: ${p.what} (signed by ${p.signedBy.join(', ')}; needs ${p.needs}) ${p.hash}`),
  ];
}

function personLine(p: PersonInfo): string {
  const state = p.revokedAt ? `REVOKED ${p.revokedAt} (${p.revokeReason ?? ''})` : p.roles.join(', ');
  return `${p.id}  ${p.name}  [${state}]  key ${p.fingerprint}${p.keyOnThisMachine ? '' : '  (key not on this machine)'}`;
}

/** A person as a reader knows them: name and id (an id alone for someone no longer on the list). */
type NameOf = (personId: string) => string;

function namesOf(people: readonly { id: string; name: string }[]): NameOf {
  const names = new Map(people.map((p) => [p.id, p.name]));
  return (id) => (names.has(id) ? `${names.get(id)} (${id})` : id);
}

function subjectLines(v: SubjectView, nameOf: NameOf): string[] {
  const r = v.verdict.requirement;
  return [
    `${v.subject.kind} ${v.subject.id}: ${plural(v.rows, 'row')}, ${v.totals.map((t) => `${t.amount} ${t.currency}`).join(', ')}`,
    `  manifest SHA-256 ${v.manifestDigest} (policy version ${v.policyVersion})${v.fileSha256 ? `, file SHA-256 ${v.fileSha256}` : ''}`,
    `  prepared by ${v.preparedBy ? nameOf(v.preparedBy) : 'nobody named'}`,
    ...v.payeeFlags.map((f) => `  row ${f.rowId}: ${f.reason}`),
    v.enforced ? `  ${v.verdict.ok ? 'may be sent' : 'may NOT be sent'}: ${v.verdict.message} (${v.verdict.approvedBy.length} of ${r.required})` : '  dual control is not set up on this desk',
    ...v.verdict.checks.map((c) => `    ${c.status.padEnd(20)} ${c.message}`),
  ];
}

/** A subject as `approvals show` and `approve` print it, then what to do next and who can (approval-hints.ts). */
const shownLines = (v: SubjectView, people: readonly PersonInfo[], env: CliDeps['env']) => [...subjectLines(v, namesOf(people)), ...nextStepLines(v, people, env)];

const approvalLine = (a: ApprovalRecord, nameOf: NameOf) =>
  `${new Date(a.signedAt).toISOString()}  ${a.decision.padEnd(7)} ${a.subject.kind} ${a.subject.id}  by ${nameOf(a.signerId)}${a.reason ? `  "${a.reason}"` : ''}`;

function subjectOf(kind: string, id: string): Subject {
  if (kind !== 'batch' && kind !== 'payout') throw new CliUsageError(`"${kind}" is not batch or payout`);
  return { kind, id };
}

function roleList(text: string): RoleName[] {
  return text.split(',').map((r) => r.trim()).filter(Boolean) as RoleName[];
}

/** The person named by id or by name (ignoring case) among `people`; a clear error for none or several. */
function personNamed<P extends { id: string; name: string }>(people: readonly P[], named: string): P {
  const byId = people.find((p) => p.id === named);
  if (byId) return byId;
  const byName = people.filter((p) => p.name.toLowerCase() === named.trim().toLowerCase());
  if (byName.length === 1) return byName[0]!;
  throw new CliUsageError(byName.length > 1 ? `Several people are named "${named}"; give the id (people list)` : `No person "${named}" on this profile (people list)`);
}

/** The people of the profile, as the screen lists them (people:list). */
const peopleOf = (deps: CliDeps): Promise<PersonInfo[]> => deps.desk().call('people', 'list', undefined);

/** The person named by id or by name (people:list); a clear error for none or several. */
const findPerson = async (deps: CliDeps, named: string): Promise<PersonInfo> => personNamed(await peopleOf(deps), named);

/**
 * Unlocks the person --as names for `svc` and returns their session, for commands on a desk of their own (team
 * desks): the passphrase from --passphrase-env or --passphrase-file.
 */
export async function unlockAs(deps: CliDeps, svc: DualControlService, o: ActingOptions): Promise<UnlockedSession> {
  if (!o.as) throw new CliUsageError('Say who acts: --as <person> with --passphrase-env or --passphrase-file');
  const passphrase = await readSecretInput(deps, { file: o.passphraseFile, env: o.passphraseEnv }, 'passphrase');
  if (passphrase === undefined) throw new CliUsageError('Give the passphrase of --as with --passphrase-env or --passphrase-file');
  const code = await secondFactorCode(deps, o);
  const profileId = deps.profile().id;
  const person = personNamed(await svc.listPeople(profileId), o.as);
  const session = await svc.unlock(profileId, person.id, passphrase);
  try {
    if (code !== undefined) await svc.secondFactor.verify(profileId, session, person, code);
  } catch (error) {
    session.lock();
    throw error;
  }
  return session;
}

/** Who acts, unlocked at the CLI's desk: their passphrase is asked again by the verbs that sign (approve). */
export interface ActingPerson {
  personId: string;
  name: string;
  passphrase: string;
}

/** The person --as names, unlocked at the CLI's desk through people:unlock (what the screen's Unlock calls). */
async function unlockAtDesk(deps: CliDeps, o: ActingOptions): Promise<ActingPerson> {
  if (!o.as) throw new CliUsageError('Say who acts: --as <person> with --passphrase-env or --passphrase-file');
  const passphrase = await readSecretInput(deps, { file: o.passphraseFile, env: o.passphraseEnv }, 'passphrase');
  if (passphrase === undefined) throw new CliUsageError('Give the passphrase of --as with --passphrase-env or --passphrase-file');
  const code = await secondFactorCode(deps, o);
  const person = await findPerson(deps, o.as);
  await deps.desk().call('people', 'unlock', { personId: person.id, passphrase });
  // A code given covers this command's approvals and admin changes (the desk asks for it only where it must).
  if (code !== undefined) {
    try {
      await deps.desk().call('people', 'verifySecondFactor', { code });
    } catch (error) {
      lockDesk(deps);
      throw error;
    }
  }
  return { personId: person.id, name: person.name, passphrase };
}

/** Forgets whoever is unlocked at the CLI's desk (as when the command ends: not audited as a Lock). */
const lockDesk = (deps: CliDeps): void => {
  const desk = deps.desk();
  desk.runtime.setSession(desk.profile.id, null);
};

/** `work` with the person --as names unlocked at the CLI's desk (people:unlock), locked again when it ends. */
export async function actingAs<T>(deps: CliDeps, o: ActingOptions, work: (who: ActingPerson) => Promise<T>): Promise<T> {
  const who = await unlockAtDesk(deps, o);
  try {
    return await work(who);
  } finally {
    lockDesk(deps);
  }
}

/**
 * For commands that prepare or send payouts (payouts create|release, batch submit|resume|retry-failed): with --as, that
 * person is unlocked at the CLI's desk (people:unlock) as the one working on the profile for this command (the
 * runtime locks them when the command ends). Without --as nothing is unlocked, which is enough until the profile has
 * people.
 */
export async function workAs(deps: CliDeps, o: ActingOptions): Promise<void> {
  if (!o.as) return;
  await unlockAtDesk(deps, o);
}

/** The policy as `policy show|set` have always printed it in JSON: the record's fields (setBy an id, setAt in ms). */
const policyData = (profileId: string, v: PolicyView) => ({
  profileId, version: v.version, rules: v.rules, setBy: v.setBy?.id ?? null, setAt: v.setAt === null ? 0 : Date.parse(v.setAt),
});

export function registerDualControlCommands(program: Command, deps: CliDeps): void {
  // For what the contract has no verb for (see the head of this file).
  let service: DualControlService | undefined;
  const svc = (): DualControlService => (service ??= dualControlService(deps.runtime()));
  const profileId = () => deps.profile().id;
  const desk = () => deps.desk();

  /** The approval or rejection `personId` just signed on `subject` (the contract answers the subject, not the record). */
  const decisionOf = async (subject: Subject, personId: string, decision: Decision, manifestDigest: string): Promise<ApprovalRecord> => {
    const signed = (await (await deps.runtime().dualControlFor(profileId())).approvalsFor(subject))
      .filter((a) => a.signerId === personId && a.decision === decision && a.manifestDigest === manifestDigest)
      .sort((a, b) => b.signedAt - a.signedAt)[0];
    if (!signed) throw new Error(`the ${decision === 'approve' ? 'approval' : 'rejection'} of ${subject.kind} ${subject.id} just signed is not in the journal`);
    return signed;
  };

  // ---- people ----
  const people = program.command('people').description('people of the profile, their roles and signing keys (dual control)');

  people
    .command('add')
    .description('set up dual control: the first person, with every role, signs the first control record (later people enrol at their own desk)')
    .requiredOption('--name <name>', 'their name')
    .option('--new-passphrase-env <name>', "environment variable holding the new person's passphrase")
    .option('--new-passphrase-file <file>', "file whose first line is the new person's passphrase")
    .action(async (o: { name: string; newPassphraseEnv?: string; newPassphraseFile?: string }) => {
      const passphrase = await readSecretInput(deps, { file: o.newPassphraseFile, env: o.newPassphraseEnv }, 'new passphrase');
      if (passphrase === undefined) throw new CliUsageError("Give the new person's passphrase with --new-passphrase-env or --new-passphrase-file");
      let added: { person: PersonInfo; warning: string | null };
      try {
        // They are unlocked at the desk once added (as on the screen); this command is over once they are.
        added = await desk().call('people', 'add', { name: o.name, passphrase });
      } finally {
        lockDesk(deps);
      }
      const { person, warning } = added;
      const control = await desk().call('people', 'control', undefined);
      deps.print([`Added ${personLine(person)}`, `Root fingerprint of this profile's dual control: ${control.fingerprint ?? '?'} (other desks compare it with you when they join)`, ...(warning ? [`warning: ${warning}`] : [])], { person, warning, control });
    });

  people
    .command('enroll')
    .description("set yourself up at this desk (your key in this machine's keychain) as a viewer; an admin grants more roles, from any desk of the team")
    .requiredOption('--name <name>', 'your name')
    .option('--new-passphrase-env <name>', 'environment variable holding your new passphrase')
    .option('--new-passphrase-file <file>', 'file whose first line is your new passphrase')
    .action(async (o: { name: string; newPassphraseEnv?: string; newPassphraseFile?: string }) => {
      const passphrase = await readSecretInput(deps, { file: o.newPassphraseFile, env: o.newPassphraseEnv }, 'new passphrase');
      if (passphrase === undefined) throw new CliUsageError('Give your new passphrase with --new-passphrase-env or --new-passphrase-file');
      let personId: string | undefined;
      try {
        // The answer is who is unlocked at the desk now: the person just enrolled.
        personId = (await desk().call('people', 'enroll', { name: o.name, passphrase })).unlocked?.personId;
      } finally {
        lockDesk(deps);
      }
      const person = (await peopleOf(deps)).find((p) => p.id === personId);
      if (!person) throw new Error(`${o.name} was enrolled but is not on the list of people`);
      deps.print([`Enrolled ${personLine(person)}`, `Read your key's fingerprint to an admin, who grants your roles: ${person.fingerprint}`], { person });
    });

  people
    .command('list')
    .description('everyone on this profile, with their roles now')
    .action(async () => {
      const all = await peopleOf(deps);
      deps.print(all.length === 0 ? ['Nobody yet: dual control is not set up (people add)'] : all.map(personLine), all);
    });

  actingOptions(people.command('roles <person>').description("change a person's roles (an admin, --as)").requiredOption('--roles <roles>', 'comma-separated roles'))
    .action(async (named: string, o: ActingOptions & { roles: string }) => {
      const target = await findPerson(deps, named);
      const result = await actingAs(deps, o, () => desk().call('people', 'setRoles', { personId: target.id, roles: roleList(o.roles) }));
      deps.print(result.proposal ? proposalLines(result.proposal) : [`Roles changed: ${personLine(result.person)}`], result);
    });

  actingOptions(people.command('revoke <person>').description('revoke a person (an admin, --as): their approvals of anything not yet sent die with it').requiredOption('--reason <text>', 'why'))
    .action(async (named: string, o: ActingOptions & { reason: string }) => {
      const target = await findPerson(deps, named);
      const result = await actingAs(deps, o, () => desk().call('people', 'revoke', { personId: target.id, reason: o.reason }));
      deps.print(result.proposal ? proposalLines(result.proposal) : [`Revoked ${personLine(result.person)}`, `${plural(result.approvalsVoided, 'approval')} of payouts not yet sent ${result.approvalsVoided === 1 ? 'is' : 'are'} void`], result);
    });

  people
    .command('control')
    .description("the control records (people, roles, policy) as this desk verified them: root fingerprint, problems, changes waiting for a second admin")
    .action(async () => {
      const c = await desk().call('people', 'control', undefined);
      deps.print(controlLines(c), c);
    });

  actingOptions(people.command('cosign <change>').description('add your signature (a second admin, --as) to a change waiting for it (see people control)'))
    .action(async (change: string, o: ActingOptions) => {
      const hash = change.trim().toLowerCase();
      const { proposal, added } = await actingAs(deps, o, async (who): Promise<{ proposal: ControlProposalInfo; added: boolean }> => {
        const before = (await desk().call('people', 'control', undefined)).proposals.find((p) => p.hash === hash);
        const after = await desk().call('people', 'cosign', { hash });
        // Still waiting: it needs yet another signature; gone from the waiting changes: it is in the control records.
        const waiting = after.proposals.find((p) => p.hash === hash);
        if (waiting) return { proposal: waiting, added: false };
        return { proposal: { hash, seq: before?.seq ?? after.records, what: before?.what ?? hash, signedBy: [...(before?.signedBy ?? []), who.name], needs: before?.needs ?? 0 }, added: true };
      });
      deps.print(added ? `Signed and in force: ${proposal.what}` : proposalLines(proposal), { proposal, added });
    });

  actingOptions(people.command('seal').description('sign the people and policy from before this version into the control records (an admin among them, --as); nothing is sent until then'))
    .action(async (o: ActingOptions) => {
      const c = await actingAs(deps, o, () => desk().call('people', 'seal', undefined));
      deps.print([`The people and policy are signed into the control records`, ...controlLines(c)], c);
    });

  people
    .command('trust <fingerprint>')
    .description("confirm the team's root fingerprint after comparing it with the team's admin (a LIVE sender desk sends only then)")
    .action(async (fingerprint: string) => {
      const c = await desk().call('people', 'confirmRoot', { fingerprint });
      deps.print([`Root ${c.fingerprint ?? ''} confirmed at this desk`, ...controlLines(c)], c);
    });

  people
    .command('unlock <person>')
    .description('check a passphrase: unlocks the signing key and locks it again (each command unlocks for itself)')
    .option('--passphrase-env <name>', 'environment variable holding the passphrase')
    .option('--passphrase-file <file>', 'file whose first line is the passphrase')
    .action(async (named: string, o: ActingOptions) => {
      const person = await findPerson(deps, named);
      await actingAs(deps, { ...o, as: person.id }, async () => undefined);
      deps.print(`${person.name}'s signing key opens with this passphrase`, { personId: person.id, unlocked: true });
    });

  registerSecondFactorCommands(people, deps, (o, work) => actingAs(deps, o, work));
  registerAlertCommands(people, deps, (o, work) => actingAs(deps, o, work));

  // ---- approvals ----
  const approvals = program.command('approvals').description('approvals and rejections of payouts and batches (dual control)');

  approvals
    .command('list')
    .description('approvals and rejections, newest first')
    .option('--limit <n>', 'at most this many', intOption('limit'), 50)
    .action(async (o: { limit: number }) => {
      // No verb lists the signed records (approvals:queue is what waits): the dual-control service's list.
      const all = await svc().listApprovals(profileId(), o.limit);
      const nameOf = namesOf(await peopleOf(deps));
      // And what waits for approvals now, with who can give them (approvals:queue, as the Approvals screen).
      const waiting = (await desk().call('approvals', 'queue', undefined)).filter((item) => item.state === 'waiting' && item.stillNeeded);
      const waitingLines = waiting.flatMap((item) => [
        `${item.subject.kind} ${item.subject.id} (${item.title}):`,
        ...stillNeededLines(item.subject, { more: item.stillNeeded!.more, given: item.approvedBy.length, from: item.stillNeeded!.from }, deps.env).map((l) => `  ${l}`),
      ]);
      deps.print([...(all.length === 0 ? ['No approvals yet'] : all.map((a) => approvalLine(a, nameOf))), ...(waitingLines.length > 0 ? ['', ...waitingLines] : [])], all);
    });

  approvals
    .command('show <kind> <id>')
    .description('what would be signed for a batch or payout (its manifest digest and totals) and whether it may be sent')
    .action(async (kind: string, id: string) => {
      // The subject as the dual-control service reads it (payee flags with why, each check of the verdict):
      // approvals:show answers the screen's shape, which carries neither.
      const view = await svc().show(profileId(), subjectOf(kind, id));
      deps.print(shownLines(view, await peopleOf(deps), deps.env), view);
    });

  for (const decision of ['approve', 'reject'] as const) {
    const command = actingOptions(approvals.command(`${decision} <kind> <id>`).description(`${decision} a batch or payout as an approver (--as), signing its manifest`));
    if (decision === 'reject') command.requiredOption('--reason <text>', 'why it is rejected');
    else command.option('--reason <text>', 'a note');
    command.action(async (kind: string, id: string, o: ActingOptions & { reason?: string }) => {
      const subject = subjectOf(kind, id);
      const { approval, view } = await actingAs(deps, o, async (who) => {
        if (decision === 'approve' && o.reason !== undefined) {
          // approvals:approve takes no note: an approval with one is signed by the dual-control service itself.
          const session = desk().runtime.sessionFor(profileId());
          if (!session) throw new Error(`${who.name} is not unlocked at this desk`);
          return svc().decide(profileId(), subject, decision, o.reason, session);
        }
        // approvals:approve asks for the passphrase again, as the screen does: a desk left unlocked does not approve on its own.
        const detail = decision === 'approve'
          ? await desk().call('approvals', 'approve', { ...subject, passphrase: who.passphrase })
          : await desk().call('approvals', 'reject', { ...subject, reason: o.reason ?? '' });
        return { approval: await decisionOf(subject, who.personId, decision, detail.manifestDigest), view: await svc().show(profileId(), subject) };
      });
      deps.print([`${decision === 'approve' ? 'Approved' : 'Rejected'} ${kind} ${id} (manifest SHA-256 ${approval.manifestDigest})`, ...shownLines(view, await peopleOf(deps), deps.env)], { approval, view });
    });
  }

  // ---- policy ----
  const policy = program.command('policy').description('the approval policy of the profile');

  policy
    .command('show')
    .description('the policy in force: approvals needed by amount band per currency, and for new or changed payees')
    .action(async () => {
      const p = await desk().call('approvals', 'policy', undefined);
      const bands = Object.entries(p.rules.bands).flatMap(([currency, list]) => list.map((b) => `  ${currency} from ${b.atLeast}: ${plural(b.approvals, 'approval')}`));
      deps.print(
        [
          `Policy version ${p.version}${p.isDefault ? ' (the built-in default)' : ` set by ${String(p.setBy?.id ?? null)} at ${String(p.setAt)}`}${p.enforced ? '' : '; not enforced: nobody on this desk yet'}`,
          ...(bands.length > 0 ? bands : ['  no approval needed at any amount']),
          `  new or changed payee: +${p.rules.newOrChangedPayee}${p.rules.countPossibleDuplicates ? ' (a possible duplicate counts as one)' : ''}`,
          ...(p.rules.secondFactor ? ['  a second factor on every approval and admin change'] : []),
        ],
        { policy: policyData(profileId(), p), isDefault: p.isDefault, enforced: p.enforced },
      );
    });

  actingOptions(policy.command('set').description('a new version of the policy, signed by an admin (--as); approvals given under the old one are void').requiredOption('--file <rules.json>', 'the rules: {"bands": {"EUR": [{"atLeast": "1000", "approvals": 1}]}, "newOrChangedPayee": 1}'))
    .action(async (o: ActingOptions & { file: string }) => {
      let rules: PolicyRules;
      try {
        rules = JSON.parse(await readFile(o.file, 'utf8')) as PolicyRules;
      } catch (e) {
        throw new CliUsageError(`Cannot read the rules from ${o.file}: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (!rules || typeof rules !== 'object' || typeof rules.bands !== 'object' || rules.bands === null || Array.isArray(rules.bands) || typeof rules.newOrChangedPayee !== 'number') {
        throw new CliUsageError('The rules need "bands" (an object of currency → list of {atLeast, approvals}) and "newOrChangedPayee" (a number)');
      }
      for (const list of Object.values(rules.bands)) {
        if (!Array.isArray(list) || list.some((b) => typeof b !== 'object' || b === null || typeof (b as { atLeast?: unknown }).atLeast !== 'string' || typeof (b as { approvals?: unknown }).approvals !== 'number')) {
          throw new CliUsageError('Each band is {"atLeast": "<amount as a string>", "approvals": <0-3>}');
        }
      }
      const p = await actingAs(deps, o, () => desk().call('approvals', 'setPolicy', { rules: rules as PolicyRulesView }));
      const proposal = p.proposal ?? null;
      deps.print(proposal ? proposalLines(proposal) : `Policy version ${p.version} is in force; approvals given under earlier versions are void`, { policy: policyData(profileId(), p), proposal });
    });
}

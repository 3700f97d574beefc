// An engine under dual control for engine tests: a temp journal with the people as a signed control chain (and a
// policy version when given), the journal's approval gate, the preparers signing what is submitted, and approvals
// signed over the manifest as the journal holds it. `clock`: the journal, the engine and the gate read it.
import { signApproval } from '../../../main/approvals/approval';
import { journalApprovalGate, manifestFromJournal } from '../../../main/approvals/gate';
import type { Subject } from '../../../main/approvals/manifest';
import type { PolicyRules } from '../../../main/approvals/policy';
import type { Environment } from '../../../main/profiles/profile-schema';
import { SqliteDualControlRepository } from '../../../main/store/sqlite/dual-control';
import { appendRecord, chainOf, preparingAs, readerOf, type Member } from '../approvals/helpers';
import { tempJournal } from '../journal/helpers';
import { engineFixture, type EngineFixture } from './engine-helpers';
import { FakeGateway } from './fake-gateway';

export const DESK_PROFILE = 'prof-1';

export interface DualControlDesk {
  f: EngineFixture;
  approveAs(m: Member, subject: Subject): Promise<void>;
}

export async function dualControlDesk(o: {
  members: Member[];
  /** Who signs at submit (the engine's prepare hook). */
  preparers: Member[];
  environment: Environment;
  /** When the chain's records were signed. */
  chainAt: number;
  /** A policy version 1 signed by `admins` at `at`; the built-in default when absent. */
  policy?: { rules: PolicyRules; admins: Member[]; at: number };
  clock?: () => number;
}): Promise<DualControlDesk> {
  const clock = o.clock ?? Date.now;
  const t = tempJournal(o.clock ? { now: o.clock } : {});
  const repo = new SqliteDualControlRepository(t.journal);
  for (const r of chainOf(DESK_PROFILE, o.members, { at: o.chainAt })) await repo.appendChain(r);
  if (o.policy) await appendRecord(repo, { kind: 'policy', version: 1, rules: o.policy.rules }, o.policy.admins, o.policy.at);
  const reader = readerOf(repo, { profileId: DESK_PROFILE, environment: o.environment });
  const gate = journalApprovalGate({ journal: t.journal, repository: repo, control: () => reader.read(), ...(o.clock ? { now: o.clock } : {}) });
  const f = engineFixture({ ...(o.clock ? { now: o.clock } : {}), approvalGate: gate, prepare: preparingAs(repo, o.preparers, DESK_PROFILE, clock) }, new FakeGateway(), t);
  return {
    f,
    async approveAs(m, subject) {
      const state = await reader.read();
      const manifest = (await manifestFromJournal(t.journal, state.scope, subject, state.policy.version))!;
      await repo.addApproval(signApproval(m.session, { id: globalThis.crypto.randomUUID(), manifest, decision: 'approve', reason: null, signedAt: clock() }));
    },
  };
}

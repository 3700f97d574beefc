// Where the dual-control records of one profile live: the control chain (people, roles, revocations, policy
// versions, registered desks: main/trust/), records waiting for a second admin's signature, approvals, the
// preparers' signatures, and the rows from before the chain. Plain data behind a small async interface, so the
// journal's SQLite adapter (store/sqlite/dual-control.ts) and the team database's (store/postgres/dual-control.ts) are a change of
// adapter, not of model. Everything is only ever added. Nothing read here is trusted as it is: the chain is
// replayed and checked against this desk's keychain pin (main/trust/control-state.ts), approvals and
// preparations are checked against the people the chain establishes.
import type { Person } from '../people/roles';
import type { ChainRecord } from './chain-record';
import type { ApprovalRecord } from '../approvals/approval';
import type { ApprovalStore } from '../approvals/approval-store';
import type { Subject } from '../approvals/manifest';
import type { ApprovalPolicy } from '../approvals/policy';
import type { PreparationRecord } from '../approvals/preparation';
import { CodedError } from '../domain/coded-error';

/** People and policy versions as rows written before the control chain existed (never trusted: an admin seals them). */
export interface LegacyControl {
  people: Person[];
  policies: ApprovalPolicy[];
}

export interface DualControlRepository extends ApprovalStore {
  /** Every record of the control chain, in order, as stored (unchecked). */
  chain(): Promise<ChainRecord[]>;
  /**
   * Appends the next record. Refused (CHAIN_MOVED) unless it follows the newest stored record (seq one more,
   * prev its hash): two admins racing, or a chain that is not the one the record was drafted on.
   */
  appendChain(record: ChainRecord): Promise<void>;
  /** Records signed by some of their signers, waiting for the others (a second admin), oldest first. */
  proposals(): Promise<ChainRecord[]>;
  /** Stores a proposal, or a copy with more signatures (the newest copy of a hash counts). */
  addProposal(record: ChainRecord): Promise<void>;
  /** People and policies from before the chain; null when there are none. */
  legacy(): Promise<LegacyControl | null>;

}

export class RepositoryError extends CodedError<'NOT_FOUND' | 'DUPLICATE' | 'CHAIN_MOVED'> {}

export const chainMovedMessage = (seq: number): string =>
  `the control records changed meanwhile (another admin, or another desk): record ${seq} was not added; try again`;

/** In-memory repository for unit tests; the same rules as the SQLite adapter. */
export class MemoryDualControlRepository implements DualControlRepository {
  readonly records: ChainRecord[] = [];
  private readonly proposed = new Map<string, ChainRecord>();
  private readonly approvals: ApprovalRecord[] = [];
  private readonly preparations: PreparationRecord[] = [];
  /** Rows from before the chain (tests of sealing set it). */
  legacyRows: LegacyControl | null = null;
  private writes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  changeMarker(): string {
    return String(this.writes);
  }

  async chain(): Promise<ChainRecord[]> {
    return this.records.map((r) => structuredClone(r));
  }
  async appendChain(record: ChainRecord): Promise<void> {
    const head = this.records.at(-1);
    if (record.seq !== (head?.seq ?? 0) + 1 || (head && record.prev !== head.hash)) throw new RepositoryError('CHAIN_MOVED', chainMovedMessage(record.seq));
    this.records.push(structuredClone(record));
    this.writes++;
  }
  async proposals(): Promise<ChainRecord[]> {
    return [...this.proposed.values()].map((r) => structuredClone(r));
  }
  async addProposal(record: ChainRecord): Promise<void> {
    this.proposed.delete(record.hash);
    this.proposed.set(record.hash, structuredClone(record));
    this.writes++;
  }
  async legacy(): Promise<LegacyControl | null> {
    return this.legacyRows ? structuredClone(this.legacyRows) : null;
  }
  async addApproval(approval: ApprovalRecord): Promise<void> {
    if (this.approvals.some((a) => a.id === approval.id)) throw new RepositoryError('DUPLICATE', `approval ${approval.id} already exists`);
    this.approvals.push({ ...structuredClone(approval), recordedAt: this.now() });
    this.writes++;
  }
  async approvalsFor(subject: Subject): Promise<ApprovalRecord[]> {
    return this.approvals.filter((a) => a.subject.kind === subject.kind && a.subject.id === subject.id).map((a) => structuredClone(a));
  }
  async listApprovals(limit = 100): Promise<ApprovalRecord[]> {
    return this.approvals.slice(-limit).reverse().map((a) => structuredClone(a));
  }
  async addPreparation(preparation: PreparationRecord): Promise<void> {
    if (this.preparations.some((p) => p.id === preparation.id)) throw new RepositoryError('DUPLICATE', `preparation ${preparation.id} already exists`);
    this.preparations.push({ ...structuredClone(preparation), recordedAt: this.now() });
    this.writes++;
  }
  async preparationsFor(subject: Subject): Promise<PreparationRecord[]> {
    return this.preparations.filter((p) => p.subject.kind === subject.kind && p.subject.id === subject.id).map((p) => structuredClone(p));
  }
}

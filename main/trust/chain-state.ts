// Replays the control chain (chain-record.ts) into the people, roles, policy versions and registered desks it
// establishes, checking every record as it goes: its place (seq, prev, hash), its time (never before the one
// before it), who signed it (the signers the record names, each signature valid) and whether they were allowed
// to make it at that point of the chain:
//   genesis   the root, who holds admin, signs it; it is the first record and only the first
//   enrolled  the enrolling person signs with their own new key; they hold only the viewer role
//   roles     an admin; two admins (distinct) when the policy's secondAdmin is on, the chain has two or more
//             admins, and the change grants approver or admin or takes admin away
//   revoked   an admin; two as above when the person revoked holds admin
//   policy    an admin; two as above; versions follow each other
//   desk      an admin
// and no record may leave the chain without an admin. The first record that fails stops the replay: what came
// before it stands, nothing after it counts. Pure: no clock, no store.
import { checkRules, type ApprovalPolicy, type PolicyRules } from '../approvals/policy';
import { checkPersonInput, heldRoleAt, type Person, type Role, type RoleGrant } from '../people/roles';
import { CHAIN_START, recordHash, rootFingerprint, signatureValid, type ChainBody, type ChainRecord } from './chain-record';
import { CodedError } from '../domain/coded-error';

export type ChainProblemCode = 'MALFORMED' | 'BROKEN_LINK' | 'BAD_HASH' | 'BAD_SIGNATURE' | 'NOT_ALLOWED' | 'OUT_OF_TIME';

export interface ChainProblem {
  code: ChainProblemCode;
  /** The first record that does not hold. */
  seq: number;
  message: string;
}

export interface RegisteredDesk {
  keyId: string;
  publicKey: string;
  deskName: string;
  registeredAt: number;
  registeredBy: string;
  seq: number;
}

export interface ChainState {
  scope: string;
  rootId: string;
  fingerprint: string;
  head: { seq: number; hash: string; at: number };
  people: Person[];
  /** Policy versions set in the chain, oldest first. */
  policies: ApprovalPolicy[];
  desks: RegisteredDesk[];
}

interface MutablePerson extends Omit<Person, 'grants'> {
  grants: RoleGrant[];
}

export const APPROVER_OR_ADMIN: ReadonlySet<Role> = new Set(['approver', 'admin']);

/** Signatures a change needs under the policy in force: two when the switch is on and there are two admins to give them. */
export function adminQuorum(rules: PolicyRules | null, activeAdmins: number): number {
  return rules?.secondAdmin === true && activeAdmins >= 2 ? 2 : 1;
}

/** People holding admin at `at`, not revoked. */
export function activeAdminsAt(people: readonly Person[], at: number): Person[] {
  return people.filter((p) => (p.revokedAt === null || p.revokedAt > at) && heldRoleAt(p, 'admin', at));
}

class Refused extends CodedError<ChainProblemCode> {}

/** The chain so far, extended one record at a time. */
export class ChainReplay {
  private scope = '';
  private rootId = '';
  private fingerprint = '';
  private head: { seq: number; hash: string; at: number } = { seq: 0, hash: CHAIN_START, at: 0 };
  private readonly people = new Map<string, MutablePerson>();
  private readonly keys = new Set<string>();
  private readonly policies: ApprovalPolicy[] = [];
  private readonly desks: RegisteredDesk[] = [];

  get length(): number {
    return this.head.seq;
  }

  /** Checks the record against the chain so far and takes it in; throws ChainRecordError (nothing taken) if it does not hold. */
  apply(record: ChainRecord): void {
    try {
      this.check(record);
    } catch (error) {
      if (error instanceof Refused) throw new ChainRecordError({ code: error.code, seq: record.seq, message: `control record ${record.seq}: ${error.message}` });
      throw new ChainRecordError({ code: 'MALFORMED', seq: record.seq, message: `control record ${record.seq} cannot be read: ${error instanceof Error ? error.message : String(error)}` });
    }
    this.take(record);
  }

  state(): ChainState | null {
    if (this.head.seq === 0) return null;
    return {
      scope: this.scope, rootId: this.rootId, fingerprint: this.fingerprint, head: { ...this.head },
      people: [...this.people.values()].map((p) => ({ ...p, grants: p.grants.map((g) => ({ ...g })) })),
      policies: this.policies.map((p) => structuredClone(p)),
      desks: this.desks.map((d) => ({ ...d })),
    };
  }

  /** People as of now (no copy): for checks while drafting the next record. */
  peopleNow(): readonly Person[] {
    return [...this.people.values()];
  }

  currentRules(): PolicyRules | null {
    return this.policies.at(-1)?.rules ?? null;
  }

  /** The signatures a new record with this body would need, given the chain so far (0: not an admin's record). */
  signaturesNeeded(body: ChainBody, at: number): number {
    switch (body.kind) {
      case 'genesis':
      case 'enrolled':
        return 0;
      case 'desk':
        return 1;
      default: {
        const admins = activeAdminsAt(this.peopleNow(), at).length;
        return this.raisesPower(body, at) ? adminQuorum(this.currentRules(), admins) : 1;
      }
    }
  }

  private raisesPower(body: ChainBody, at: number): boolean {
    if (body.kind === 'policy') return true;
    if (body.kind === 'roles') {
      const person = this.people.get(body.personId);
      if (!person) return true;
      const held = new Set(person.grants.filter((g) => g.removedAt === null).map((g) => g.role));
      const granted = body.roles.filter((r) => !held.has(r));
      return granted.some((r) => APPROVER_OR_ADMIN.has(r)) || (held.has('admin') && !body.roles.includes('admin'));
    }
    if (body.kind === 'revoked') {
      const person = this.people.get(body.personId);
      return person !== undefined && heldRoleAt(person, 'admin', at);
    }
    return false;
  }

  private check(r: ChainRecord): void {
    if (!Number.isSafeInteger(r.seq) || r.seq !== this.head.seq + 1) throw new Refused('BROKEN_LINK', `comes at place ${this.head.seq + 1} but says ${r.seq}`);
    if (r.prev !== this.head.hash) throw new Refused('BROKEN_LINK', 'does not name the record before it (one was removed, replaced or reordered)');
    if (recordHash(r) !== r.hash) throw new Refused('BAD_HASH', 'its content does not give its hash (it was edited)');
    if (!Number.isSafeInteger(r.at) || r.at < this.head.at) throw new Refused('OUT_OF_TIME', 'is dated before the record it follows');
    const signers = r.signatures.map((x) => x.signerId);
    if (new Set(signers).size !== signers.length || signers.length === 0) throw new Refused('MALFORMED', 'carries no signature, or two by one person');
    const body = r.body;
    if (body.kind !== 'genesis' && this.head.seq === 0) throw new Refused('NOT_ALLOWED', 'the chain must start with its genesis');
    const keyOf = (personId: string): string => {
      if (body.kind === 'genesis') return body.people.find((p) => p.id === personId)?.publicKey ?? '';
      if (body.kind === 'enrolled' && body.person.id === personId) return body.person.publicKey;
      return this.people.get(personId)?.publicKey ?? '';
    };
    for (const { signerId, signature } of r.signatures) {
      if (!signatureValid(r.hash, signature, keyOf(signerId))) throw new Refused('BAD_SIGNATURE', `the signature of ${this.nameOf(signerId, body)} does not verify`);
    }
    switch (body.kind) {
      case 'genesis': {
        if (this.head.seq !== 0) throw new Refused('NOT_ALLOWED', 'a second genesis');
        if (!body.scope) throw new Refused('MALFORMED', 'a genesis without a scope');
        if (body.people.length === 0) throw new Refused('MALFORMED', 'a genesis without people');
        const root = body.people[0]!;
        if (!root.roles.includes('admin')) throw new Refused('NOT_ALLOWED', 'its root does not hold admin');
        if (signers.length !== 1 || signers[0] !== root.id) throw new Refused('NOT_ALLOWED', 'a genesis is signed by its root alone');
        const ids = new Set<string>();
        const keys = new Set<string>();
        for (const p of body.people) {
          this.checkPerson(p, p.roles);
          if (ids.has(p.id) || keys.has(p.publicKey)) throw new Refused('MALFORMED', `${p.name} is in it twice`);
          ids.add(p.id);
          keys.add(p.publicKey);
        }
        if (body.policy) this.checkPolicy(body.policy.rules, body.policy.version >= 1 && Number.isSafeInteger(body.policy.version));
        return;
      }
      case 'enrolled': {
        if (this.people.has(body.person.id) || this.keys.has(body.person.publicKey)) throw new Refused('NOT_ALLOWED', `${body.person.name} is already a person of this chain`);
        this.checkPerson(body.person, ['viewer']);
        if (signers.length !== 1 || signers[0] !== body.person.id) throw new Refused('NOT_ALLOWED', 'an enrolment is signed by the person enrolling alone');
        return;
      }
      case 'roles':
      case 'revoked': {
        const person = this.people.get(body.personId);
        if (!person) throw new Refused('NOT_ALLOWED', `names no person of this chain (${body.personId})`);
        if (person.revokedAt !== null) throw new Refused('NOT_ALLOWED', `${person.name} was revoked already`);
        if (body.kind === 'roles') this.checkPerson(person, body.roles);
        else if (typeof body.reason !== 'string' || !body.reason.trim()) throw new Refused('MALFORMED', 'a revocation without a reason');
        this.checkAdmins(r, body);
        const adminsAfter = activeAdminsAt(this.peopleNow(), r.at).filter((p) => p.id !== person.id).length + (body.kind === 'roles' && body.roles.includes('admin') ? 1 : 0);
        if (adminsAfter === 0) throw new Refused('NOT_ALLOWED', `it would leave the chain without an admin`);
        return;
      }
      case 'policy': {
        const current = this.policies.at(-1)?.version ?? 0;
        this.checkPolicy(body.rules, body.version === current + 1);
        this.checkAdmins(r, body);
        return;
      }
      case 'desk': {
        if (!/^[0-9a-f]{32}$/.test(body.keyId) || !body.publicKey || !body.deskName) throw new Refused('MALFORMED', 'a desk registration without a key id, key or name');
        if (this.desks.some((d) => d.keyId === body.keyId)) throw new Refused('NOT_ALLOWED', `desk key ${body.keyId} is registered already`);
        this.checkAdmins(r, body);
        return;
      }
      default:
        throw new Refused('MALFORMED', `unknown kind "${(body as { kind: unknown }).kind as string}"`);
    }
  }

  private checkPerson(p: { id: string; name: string; publicKey?: string }, roles: readonly string[]): void {
    if (typeof p.id !== 'string' || !p.id) throw new Refused('MALFORMED', 'a person without an id');
    if ('publicKey' in p && (typeof p.publicKey !== 'string' || !p.publicKey)) throw new Refused('MALFORMED', `${p.name} has no public key`);
    try {
      const clean = checkPersonInput(p.name, roles);
      if (clean.name !== p.name || clean.roles.length !== roles.length) throw new Error('roles are not in order or repeat');
    } catch (error) {
      throw new Refused('MALFORMED', error instanceof Error ? error.message : String(error));
    }
  }

  private checkPolicy(rules: PolicyRules, versionOk: boolean): void {
    if (!versionOk) throw new Refused('NOT_ALLOWED', 'its policy version does not follow the one before');
    try {
      if (JSON.stringify(checkRules(rules)) !== JSON.stringify(rules)) throw new Error('its rules are not written as the desk writes them');
    } catch (error) {
      throw new Refused('MALFORMED', `its policy cannot be applied: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Every signer an admin at the record's time, as many as the change needs. */
  private checkAdmins(r: ChainRecord, body: ChainBody): void {
    const admins = activeAdminsAt(this.peopleNow(), r.at);
    for (const { signerId } of r.signatures) {
      if (!admins.some((a) => a.id === signerId)) throw new Refused('NOT_ALLOWED', `${this.nameOf(signerId, body)} is not an admin`);
    }
    const needed = this.signaturesNeeded(body, r.at);
    if (r.signatures.length < needed) throw new Refused('NOT_ALLOWED', `it needs ${needed} admins' signatures (the policy's secondAdmin), it has ${r.signatures.length}`);
  }

  private nameOf(personId: string, body: ChainBody): string {
    if (body.kind === 'genesis') return body.people.find((p) => p.id === personId)?.name ?? personId;
    if (body.kind === 'enrolled' && body.person.id === personId) return body.person.name;
    return this.people.get(personId)?.name ?? `an unknown person (${personId})`;
  }

  private take(r: ChainRecord): void {
    const body = r.body;
    const by = r.signatures[0]!.signerId;
    const grant = (personId: string, role: Role): RoleGrant => ({ personId, role, grantedAt: r.at, grantedBy: by, removedAt: null, removedBy: null });
    switch (body.kind) {
      case 'genesis':
        this.scope = body.scope;
        this.rootId = body.people[0]!.id;
        this.fingerprint = rootFingerprint(r);
        for (const p of body.people) this.addPerson(p, r.at, null, p.roles.map((role) => grant(p.id, role)));
        if (body.policy) this.policies.push(this.policyOf(body.policy.version, body.policy.rules, r));
        break;
      case 'enrolled':
        this.addPerson(body.person, r.at, null, [grant(body.person.id, 'viewer')]);
        break;
      case 'roles': {
        const person = this.people.get(body.personId)!;
        const wanted = new Set(body.roles);
        const open = person.grants.filter((g) => g.removedAt === null);
        for (const g of open) if (!wanted.has(g.role)) Object.assign(g, { removedAt: r.at, removedBy: by });
        for (const role of body.roles) if (!open.some((g) => g.role === role)) person.grants.push(grant(person.id, role));
        break;
      }
      case 'revoked': {
        const person = this.people.get(body.personId)!;
        Object.assign(person, { revokedAt: r.at, revokedBy: by, revokeReason: body.reason });
        for (const g of person.grants) if (g.removedAt === null) Object.assign(g, { removedAt: r.at, removedBy: by });
        break;
      }
      case 'policy':
        this.policies.push(this.policyOf(body.version, body.rules, r));
        break;
      case 'desk':
        this.desks.push({ keyId: body.keyId, publicKey: body.publicKey, deskName: body.deskName, registeredAt: r.at, registeredBy: by, seq: r.seq });
        break;
    }
    this.head = { seq: r.seq, hash: r.hash, at: r.at };
  }

  private addPerson(p: { id: string; name: string; publicKey: string }, at: number, by: string | null, grants: RoleGrant[]): void {
    this.people.set(p.id, { id: p.id, name: p.name, publicKey: p.publicKey, createdAt: at, createdBy: by, revokedAt: null, revokedBy: null, revokeReason: null, grants });
    this.keys.add(p.publicKey);
  }

  private policyOf(version: number, rules: PolicyRules, r: ChainRecord): ApprovalPolicy {
    // The record's hash stands for the signature: the chain's signatures are what vouch for it.
    return { profileId: this.scope, version, rules: structuredClone(rules), setBy: r.signatures[0]!.signerId, setAt: r.at, signature: r.hash };
  }
}

export class ChainRecordError extends CodedError<ChainProblemCode> {
  constructor(readonly problem: ChainProblem) {
    super(problem.code, problem.message);
  }
}

/** Replays every record; the state up to the first that fails, and that failure. */
export function replayChain(records: readonly ChainRecord[]): { replay: ChainReplay; problem: ChainProblem | null } {
  const replay = new ChainReplay();
  for (const record of records) {
    try {
      replay.apply(record);
    } catch (error) {
      if (error instanceof ChainRecordError) return { replay, problem: error.problem };
      throw error;
    }
  }
  return { replay, problem: null };
}

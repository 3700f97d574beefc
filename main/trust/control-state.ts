// Who may approve, under which policy, and whether dual control is on, as this desk may believe it: the control
// chain read from the profile's store, replayed (chain-state.ts) and held against this desk's keychain pin
// (control-pin.ts). Nothing here reads a bare row: a person, role or policy is what a verified record says.
//
// Dual control is on (enforced) when the chain has a record, when rows from before the chain are there, or when
// this desk's pin says it was on; it is provably off only when none of the three holds. A `problem` means nothing
// may be sent or approved on this desk now, and says why:
//   a record fails (MALFORMED, BROKEN_LINK, BAD_HASH, BAD_SIGNATURE, NOT_ALLOWED, OUT_OF_TIME)
//   ROOT_MISMATCH   the chain starts at another root than the one pinned (replaced)
//   ROLLED_BACK     it no longer reaches the newest record pinned (cut back, or that record replaced)
//   CHAIN_MISSING   the pin says on and the store has no chain (deleted, truncated, another database)
//   NOT_SEALED      people from before the chain wait for an admin to sign them into one (people seal)
// A team profile's verified chain is mirrored into this desk's own journal, so a profile pointed at a new, empty
// team database carries its chain there (finding: joining a team database switched dual control off).
import type { PolicyEnvironment } from '../approvals/policy';
import { defaultPolicy } from '../approvals/policy';
import type { GateControl } from '../approvals/gate';
import type { DualControlRepository, LegacyControl } from './repository';
import type { KeyStore } from '../keys/key-store';
import type { Person } from '../people/roles';
import { encodeChainRecord } from './chain-codec';
import type { ChainRecord } from './chain-record';
import { ChainRecordError, ChainReplay, type ChainProblemCode, type ChainState, type RegisteredDesk } from './chain-state';
import { readControlPin, writeControlPin, type ControlPin } from './control-pin';

export type TrustProblemCode = ChainProblemCode | 'ROOT_MISMATCH' | 'ROLLED_BACK' | 'CHAIN_MISSING' | 'NOT_SEALED';

export interface TrustProblem {
  code: TrustProblemCode;
  message: string;
}

/** The gate's view of the control records (approvals/gate.ts GateControl), with what the desk shows besides. */
export interface ControlState extends GateControl {
  people: Person[];
  chain: ChainState | null;
  /** The verified records, in order. */
  records: readonly ChainRecord[];
  /** Why nothing may be sent or approved on this desk now; null when the chain holds. */
  problem: TrustProblem | null;
  pin: ControlPin | null;
  /** Rows from before the chain, while no chain exists. */
  legacy: LegacyControl | null;
}

export interface ControlReaderOptions {
  repository: DualControlRepository;
  keyStore: KeyStore;
  profileId: string;
  environment: PolicyEnvironment;
  /** Where the records are, for messages ("this profile's journal", "the team database at …"). */
  where: string;
  /**
   * A team profile: this desk's own journal's repository, where the verified chain is mirrored and from which
   * it is carried to a team database that has none. Null for a single desk (its journal is its own).
   */
  mirror?: DualControlRepository | null;
  /** Told once a chain was carried to the store (the caller audits it). */
  onCarried?: (records: number) => Promise<void> | void;
}

const fingerprintText = (pin: ControlPin) => (pin.fingerprint ? `root ${pin.fingerprint}` : 'people from before the chain');

/** Reads and checks a profile's control chain; keeps what it verified, so a read replays only new records. */
export class ControlReader {
  private verified: { encoded: string[]; replay: ChainReplay; records: ChainRecord[] } = { encoded: [], replay: new ChainReplay(), records: [] };

  constructor(private readonly options: ControlReaderOptions) {}

  async read(): Promise<ControlState> {
    const { repository, keyStore, profileId } = this.options;
    const pin = await readControlPin(keyStore, profileId);
    let stored: ChainRecord[];
    let readProblem: TrustProblem | null = null;
    try {
      stored = await repository.chain();
    } catch (error) {
      if (!(error instanceof ChainRecordError)) throw error;
      // A row that is not a record: the chain as far as it reads, then the problem.
      stored = [];
      readProblem = { code: error.problem.code, message: `${error.problem.message} (${this.options.where})` };
    }
    if (stored.length === 0 && !readProblem && pin?.fingerprint && this.options.mirror) {
      const carried = await this.carry(pin);
      if (carried) stored = await repository.chain();
    }
    const { replay, records, problem: recordProblem } = this.replay(stored);
    const chain = replay.state();
    let problem: TrustProblem | null = readProblem ?? (recordProblem ? { code: recordProblem.code, message: `${recordProblem.message} (${this.options.where})` } : null);
    let legacy: LegacyControl | null = null;
    let nextPin: ControlPin | null = pin;

    if (!chain) {
      legacy = await repository.legacy();
      if (pin?.fingerprint || (pin && !legacy)) {
        problem ??= {
          code: 'CHAIN_MISSING',
          message: `Dual control was on at this desk (${fingerprintText(pin)}${pin.head ? `, record ${pin.head.seq}` : ''}) and ${this.options.where} holds no control records: they were deleted, or this is another database. Nothing is sent until they are back`,
        };
      } else if (legacy) {
        problem ??= { code: 'NOT_SEALED', message: 'The people and policy from before this version are not signed into the control records yet: an admin signs them once (people seal, or People › Sign as admin). Nothing is sent until then' };
        nextPin ??= { on: true, fingerprint: null, head: null, confirmed: false };
      }
    } else {
      if (pin?.fingerprint && pin.fingerprint !== chain.fingerprint) {
        problem = {
          code: 'ROOT_MISMATCH',
          message: `The control records in ${this.options.where} start at root ${chain.fingerprint}, not at root ${pin.fingerprint}, which this desk pinned: they were replaced. Nothing is sent`,
        };
      } else if (pin?.head && (records[pin.head.seq - 1]?.hash ?? null) !== pin.head.hash) {
        // A record that fails before the pinned one is named as such; otherwise the chain was cut or replaced.
        if (!(recordProblem && records.length < pin.head.seq)) {
          problem = {
            code: 'ROLLED_BACK',
            message: `The control records in ${this.options.where} no longer reach record ${pin.head.seq} as this desk verified it (they hold ${records.length}): they were cut back or replaced. Nothing is sent`,
          };
        }
      } else if (!pin || !pin.head || pin.head.seq < chain.head.seq || !pin.fingerprint) {
        nextPin = { on: true, fingerprint: chain.fingerprint, head: { seq: chain.head.seq, hash: chain.head.hash }, confirmed: pin?.confirmed ?? this.options.mirror == null };
      }
      if (!problem || problem.code !== 'ROOT_MISMATCH') await this.mirror(records);
    }
    if (nextPin !== pin && nextPin) await writeControlPin(keyStore, profileId, nextPin);

    // Rows that are not records count as a chain: a store that holds any is not one without dual control.
    const enforced = chain !== null || legacy !== null || nextPin !== null || readProblem !== null || recordProblem !== null;
    const policies = chain?.policies ?? [];
    const scope = chain?.scope ?? profileId;
    const builtIn = defaultPolicy(scope, this.options.environment);
    return {
      enforced, scope, people: chain?.people ?? [], policy: policies.at(-1) ?? builtIn, policies, defaultPolicy: builtIn, chain, records,
      problem: enforced ? problem : null, pin: nextPin, legacy,
    };
  }

  /** This desk made the chain's first record: its root is pinned as known, not as found. */
  async madeHere(genesis: ChainRecord): Promise<void> {
    const replay = new ChainReplay();
    replay.apply(genesis);
    const state = replay.state()!;
    await writeControlPin(this.options.keyStore, this.options.profileId, { on: true, fingerprint: state.fingerprint, head: { seq: 1, hash: genesis.hash }, confirmed: true });
  }

  /** The replay of the verified records (to draft the next one); call after read(). */
  replayNow(): ChainReplay {
    return this.verified.replay;
  }

  /** A person compared the root fingerprint out of band: the pin is marked confirmed (refused for another root). */
  async confirm(fingerprint: string): Promise<ControlState> {
    const state = await this.read();
    if (!state.chain) throw new Error(`No control records in ${this.options.where} to confirm`);
    const given = fingerprint.trim().toLowerCase();
    if (given !== state.chain.fingerprint) throw new Error(`The root fingerprint here is ${state.chain.fingerprint}, not ${given}: do not trust these records; ask your admin`);
    if (state.problem) throw new Error(state.problem.message);
    await writeControlPin(this.options.keyStore, this.options.profileId, { ...state.pin!, fingerprint: state.chain.fingerprint, confirmed: true });
    return this.read();
  }

  /** Replays what is new since the last read; starts over when stored records differ from those verified. */
  private replay(stored: ChainRecord[]): { replay: ChainReplay; records: ChainRecord[]; problem: ChainRecordError['problem'] | null } {
    const encoded = stored.map(encodeChainRecord);
    const known = this.verified.encoded;
    const prefix = known.length <= encoded.length && known.every((e, i) => e === encoded[i]);
    const base = prefix ? this.verified : { encoded: [] as string[], replay: new ChainReplay(), records: [] as ChainRecord[] };
    const replay = prefix ? this.verified.replay : base.replay;
    const records = [...base.records];
    const kept = [...base.encoded];
    let problem: ChainRecordError['problem'] | null = null;
    for (let i = base.records.length; i < stored.length; i++) {
      try {
        replay.apply(stored[i]!);
      } catch (error) {
        if (!(error instanceof ChainRecordError)) throw error;
        problem = error.problem;
        break;
      }
      records.push(stored[i]!);
      kept.push(encoded[i]!);
    }
    // Only a clean prefix is kept: a later read that finds the stored rows changed starts from scratch.
    this.verified = { encoded: kept, replay, records };
    return { replay, records, problem };
  }

  /** Appends to this desk's own copy the verified records it does not have yet (a team profile). */
  private async mirror(records: readonly ChainRecord[]): Promise<void> {
    const own = this.options.mirror;
    if (!own || records.length === 0) return;
    try {
      const have = await own.chain();
      if (have.length >= records.length) return;
      if (have.some((r, i) => r.hash !== records[i]!.hash)) return;
      for (const r of records.slice(have.length)) await own.appendChain(r);
    } catch {
      // The copy is a convenience for carrying the chain; the pin is what guards it.
    }
  }

  /** The store has no chain, the pin names one: carries this desk's own copy there if it reaches the pin. */
  private async carry(pin: ControlPin): Promise<boolean> {
    const own = this.options.mirror;
    if (!own) return false;
    let copy: ChainRecord[];
    try {
      copy = await own.chain();
    } catch {
      return false;
    }
    const replay = new ChainReplay();
    try {
      for (const r of copy) replay.apply(r);
    } catch {
      return false;
    }
    const state = replay.state();
    if (!state || state.fingerprint !== pin.fingerprint || (pin.head && copy[pin.head.seq - 1]?.hash !== pin.head.hash)) return false;
    for (const r of copy) await this.options.repository.appendChain(r);
    await this.options.onCarried?.(copy.length);
    return true;
  }
}

/**
 * The desks an admin registered, as far as this desk may believe its control chain; null while dual control is
 * off. A chain from another root than the one pinned registers nothing (its admins are not this team's); a
 * chain that fails later, or was cut back, still vouches for what its verified records registered.
 */
export function adminRegisteredDesks(state: ControlState): RegisteredDesk[] | null {
  if (!state.enforced) return null;
  if (state.problem?.code === 'ROOT_MISMATCH') return [];
  return state.chain?.desks ?? [];
}

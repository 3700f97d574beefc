// What costs the most in a subject's view (dual-control.ts subjectView): its manifest rebuilt from the journal's
// rows, the manifest's two digests (the approvals' and the preparer's) and the payee book's flags of its rows.
// The approvals queue asks this for every waiting subject at every open, so it may reuse what it worked out last
// time, but only under a key that moves with every write its inputs could have seen:
//   - the SQLite journal's write markers: total_changes() counts this connection's writes, PRAGMA data_version
//     moves with every commit of any other connection or process (a row edited with the sqlite3 tool, the CLI).
//     The rows, the batch, the payee book, earlier payouts ("paid before") and the control records are all in
//     that one file, so any edit of any of them gives another key;
//   - the control state the flags and the digest were worked out under (scope, policy version, chain head, problem).
// A journal without such markers (the team journal on PostgreSQL) is never served from here. Only the queue
// reads through the cache; the gate (engine/approved-sends.ts, approvals/gate.ts) rebuilds everything at send time.
import type { Manifest, Subject } from '../approvals/manifest';
import type { DeskJournal } from '../journal';
import type { PayeeFlag } from '../payees/match';
import { Journal } from '../store/sqlite';
import type { ControlState } from '../trust/control-state';

export interface SubjectFacts {
  /** The manifest without its rows (verification needs the rest; the digests stand for the rows). */
  manifest: Manifest;
  rowCount: number;
  /** Digest of the manifest (what approvals sign) and of its preparation variant (what the preparer signed). */
  digest: string;
  preparedDigest: string;
  payeeFlags: PayeeFlag[];
}

/** A marker that changes with every write to this journal, or null when the journal gives none. */
export function journalWriteMarker(journal: DeskJournal): string | null {
  if (!(journal instanceof Journal)) return null;
  const own = journal.db.prepare('SELECT total_changes() AS n').get() as { n: number };
  const others = journal.db.pragma('data_version', { simple: true }) as number;
  return `${own.n}.${others}`;
}

const controlKey = (s: ControlState): string => [s.scope, s.enforced, s.policy.version, s.chain?.head.hash ?? '-', s.problem?.code ?? '-'].join('|');
const subjectKey = (subject: Subject): string => `${subject.kind}:${subject.id}`;

/** Facts per subject of each journal (a journal opened again is another object, with nothing cached). */
export class SubjectFactsCache {
  private readonly byJournal = new WeakMap<DeskJournal, Map<string, { key: string; facts: SubjectFacts | undefined }>>();
  private readonly lists = new WeakMap<DeskJournal, Map<string, { marker: string; value: readonly string[] }>>();

  /**
   * A list read from the journal (`name` says which), read again only after a write to it: the queue's held
   * payouts are found by walking the payouts, which costs more than everything else of a warm open.
   */
  async list(journal: DeskJournal, name: string, read: () => Promise<readonly string[]>): Promise<readonly string[]> {
    const marker = journalWriteMarker(journal);
    if (marker === null) return read();
    let lists = this.lists.get(journal);
    if (!lists) this.lists.set(journal, (lists = new Map()));
    const hit = lists.get(name);
    if (hit && hit.marker === marker) return hit.value;
    const value = await read();
    lists.set(name, { marker, value });
    return value;
  }

  /**
   * The facts of `subject` under `state`, computed by `compute` unless they were computed under the same key.
   * The key is read before `compute` reads anything: a write while it runs leaves an entry nobody asks for again.
   */
  async get(journal: DeskJournal, state: ControlState, subject: Subject, compute: () => Promise<SubjectFacts | undefined>): Promise<SubjectFacts | undefined> {
    const marker = journalWriteMarker(journal);
    if (marker === null) return compute();
    const key = `${marker}|${controlKey(state)}`;
    let entries = this.byJournal.get(journal);
    if (!entries) this.byJournal.set(journal, (entries = new Map()));
    const hit = entries.get(subjectKey(subject));
    if (hit && hit.key === key) return hit.facts;
    const facts = await compute();
    entries.set(subjectKey(subject), { key, facts });
    return facts;
  }

  /**
   * The facts of `subject` when they were worked out under the journal and control state as they are now, computing
   * nothing: undefined when not (`facts` undefined inside: the journal has no such subject). Never for a journal
   * without write markers.
   */
  peek(journal: DeskJournal, state: ControlState, subject: Subject): { facts: SubjectFacts | undefined } | undefined {
    const marker = journalWriteMarker(journal);
    if (marker === null) return undefined;
    const hit = this.byJournal.get(journal)?.get(subjectKey(subject));
    return hit && hit.key === `${marker}|${controlKey(state)}` ? { facts: hit.facts } : undefined;
  }

  /** Forgets every subject of `journal` but `keep` (those the queue still lists). */
  keepOnly(journal: DeskJournal, keep: readonly Subject[]): void {
    const entries = this.byJournal.get(journal);
    if (!entries) return;
    const wanted = new Set(keep.map(subjectKey));
    for (const k of entries.keys()) if (!wanted.has(k)) entries.delete(k);
  }
}

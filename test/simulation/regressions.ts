// Histories the simulation found on the code before "Never pay twice, proved", shortened to the steps
// that still failed there. Each is replayed in the test suite and must now pass. `before` is what the
// old code did with it.
import type { Step } from './steps';

export interface RecordedHistory {
  name: string;
  seed: number;
  before: string;
  /** Replayed on a desk with dual control set up (people, policy), as even seeds are. */
  dualControl?: boolean;
  /** Replayed on SQLite only, and why: the fix holds there and not (yet) on a team database. */
  sqliteOnly?: string;
  steps: Step[];
}

export const RECORDED_HISTORIES: readonly RecordedHistory[] = [
  {
    name: 'retry failed rows after another row of the batch failed later',
    seed: 69,
    before: 'invariant 1: the rows retried first were sent a third time by the second retry (two live attempts of one intent)',
    steps: [
      { kind: 'batch', outcomes: ['returns', 'fails', 'fails', 'fails'], after: 16_781 },
      { kind: 'retry', pick: 0.57, after: 1_156 },
      { kind: 'retry', pick: 0.965, after: 677 },
      { kind: 'single', outcome: 'pays', after: 807 },
      { kind: 'batch', outcomes: ['pays', 'pays'], after: 866 },
      { kind: 'retry', pick: 0.275, after: 395 },
    ],
  },
  {
    name: 'a timed-out create read back once, found nowhere, then cancelled; it lands later',
    seed: 69,
    before: 'invariant 5: the desk showed CANCELLED while the gateway paid it (and a retry would have paid it again)',
    steps: [
      { kind: 'wrong-key', after: 42_410 },
      { kind: 'single', outcome: 'pays', after: 175 },
      { kind: 'single', outcome: 'fails', after: 73 },
      { kind: 'single', outcome: 'returns', after: 830 },
      { kind: 'fix-key', after: 361 },
      { kind: 'create-faults', faults: ['store-no-answer'], after: 1_445 },
      { kind: 'single', outcome: 'pays', after: 807 },
      { kind: 'batch', outcomes: ['pays', 'pays'], after: 866 },
      { kind: 'resume', pick: 0.291, after: 17_098 },
      { kind: 'create-faults', faults: ['store-no-answer', 'land-late', 'reset-after-store'], after: 411 },
      { kind: 'wait', ms: 45_270, after: 1_452 },
      { kind: 'batch', outcomes: ['pays', 'fails', 'returns'], after: 410 },
      { kind: 'cancel', pick: 0.858, after: 354 },
    ],
  },
  {
    name: 'a 4xx answering the second try of an id whose first try timed out',
    seed: 23,
    before: 'invariant 1: the payout was REJECTED, retried under a new id, and both were paid when the first try landed',
    steps: [
      { kind: 'create-faults', faults: ['reset-after-store', 'land-late', 'land-late'], after: 763 },
      { kind: 'batch', outcomes: ['pays', 'pays', 'pays', 'returns', 'pays', 'fails'], after: 776 },
      { kind: 'wait', ms: 70_270, after: 7 },
      { kind: 'retry', pick: 0.556, after: 354 },
    ],
  },
  {
    name: 'a wrong key, then the key fixed and the desk restarted',
    seed: 15,
    before: 'invariant 1: "unexpected problem", the payout stayed QUEUED and left on the restart while the person entered it again',
    steps: [
      { kind: 'wrong-key', after: 985 },
      { kind: 'single', outcome: 'pays', after: 8_162 },
      { kind: 'fix-key', after: 396 },
      { kind: 'crash', after: 21_990 },
    ],
  },
  {
    name: 'a cancel while a send is refused for bad credentials',
    seed: 113,
    before: 'invariant 4: the run ending on the refusal turned the cancelled batch back to PAUSED, so a resume sent a row after the cancel',
    steps: [
      { kind: 'wrong-key', after: 1_207 },
      { kind: 'rate-burst', ms: 4_805, after: 794 },
      { kind: 'batch', outcomes: ['fails'], after: 1_489 },
      { kind: 'cancel', pick: 0.772, after: 515 },
      { kind: 'fix-key', after: 247 },
      { kind: 'resume', pick: 0.04, after: 395 },
    ],
  },
  {
    name: 'the gateway stops knowing an accepted payout',
    seed: 8,
    before: 'invariant 5: the payout stayed ACCEPTED for ever with nothing shown',
    steps: [
      { kind: 'batch', outcomes: ['pays', 'fails', 'fails', 'fails'], after: 627 },
      { kind: 'forget', pick: 0.891, ms: 51_294, after: 49_575 },
    ],
  },
  {
    name: 'the policy changes while a resumed batch waits for its rate slots',
    seed: 508,
    dualControl: true,
    before: 'invariant 7: the batch passed the gate at its resume under policy 1 (no approval needed) and its rows left after policy 2 (one needed), with none',
    steps: [
      { kind: 'batch', outcomes: ['pays', 'pays', 'pays', 'returns', 'fails', 'fails'], after: 965 },
      { kind: 'single', outcome: 'fails', after: 1_249 },
      { kind: 'cancel', pick: 0.685, after: 973 },
      { kind: 'single', outcome: 'fails', after: 473 },
      { kind: 'wrong-key', after: 1_172 },
      { kind: 'single', outcome: 'pays', after: 13_588 },
      { kind: 'single', outcome: 'pays', after: 461 },
      { kind: 'batch', outcomes: ['pays', 'pays', 'fails', 'returns'], after: 1_003 },
      { kind: 'batch', outcomes: ['returns', 'pays'], after: 601 },
      { kind: 'rate-burst', ms: 3_860, after: 374 },
      { kind: 'resume', pick: 0.538, after: 1_332 },
      { kind: 'policy', after: 371 },
    ],
  },
  {
    name: 'someone with the journal marks a held payout UNKNOWN and rewrites its account; the desk restarts',
    seed: 2,
    dualControl: true,
    before: 'invariants 2 and 8: a re-send of an unknown outcome passed no approval check, so after the restart the GET found nothing and the desk created the payout, to the account written in the journal, with no approval (issue 23, finding 1)',
    steps: [
      // The seventh payout (476.14 EUR) needs an approval under the first policy and is held.
      ...Array.from({ length: 7 }, (): Step => ({ kind: 'single', outcome: 'pays', after: 500 })),
      { kind: 'tamper', act: 'flip-unknown-elsewhere', pick: 0, after: 500 },
      { kind: 'crash', after: 30_000 },
    ],
  },
  {
    name: 'an account rewritten in the journal, then the batch cancelled and its rows retried',
    seed: 42,
    dualControl: true,
    before: 'invariant 2: "retry failed rows" copied the rewritten account into a new batch its preparer signed, and it was paid there',
    steps: [
      { kind: 'single', outcome: 'returns', after: 47 },
      { kind: 'single', outcome: 'pays', after: 1_176 },
      { kind: 'single', outcome: 'pays', after: 1_264 },
      { kind: 'batch', outcomes: ['pays', 'pays', 'fails'], after: 24_824 },
      { kind: 'batch', outcomes: ['pays'], after: 1_233 },
      { kind: 'tamper', act: 'edit-account', pick: 0.413, after: 1_064 },
      { kind: 'cancel', pick: 0.029, after: 505 },
      { kind: 'retry', pick: 0.221, after: 1_004 },
      { kind: 'approve', pick: 0.546, who: 0.984, after: 584 },
    ],
  },
  {
    name: 'a rejection deleted from the journal, then another approver approves',
    seed: 228,
    dualControl: true,
    before: 'invariant 7: someone with the journal deleted every approval, Bob\'s rejection with them; Dave\'s approval then sent the payout Bob had rejected',
    steps: [
      { kind: 'single', outcome: 'pays', after: 6 },
      { kind: 'single', outcome: 'returns', after: 434 },
      { kind: 'batch', outcomes: ['pays', 'pays', 'pays', 'pays'], after: 467 },
      { kind: 'single', outcome: 'pays', after: 1_438 },
      { kind: 'reject', pick: 0.19, who: 0.281, after: 8_108 },
      { kind: 'tamper', act: 'truncate-approvals', pick: 0.78, after: 52_825 },
      { kind: 'approve', pick: 0.041, who: 0.949, after: 13_602 },
    ],
  },
  {
    name: 'an account rewritten in the journal while its approved batch waits for rate slots',
    seed: 370,
    dualControl: true,
    before: 'invariant 2: the row read before the wait was sent (the approved account), while the journal said ATTACKER-1: the journal no longer told where the money went',
    sqliteOnly:
      "a team desk cannot read its row synchronously at the slot (SendClaim.current is SQLite's): on a team database, a row the database's owner rewrites while its send waits for a rate slot still leaves as read before the wait, to the approved account (docs/threat-model.md)",
    steps: [
      { kind: 'batch', outcomes: ['pays', 'pays', 'pays', 'pays', 'fails', 'pays'], after: 697 },
      { kind: 'single', outcome: 'fails', after: 884 },
      { kind: 'rate-burst', ms: 4_771, after: 1_037 },
      { kind: 'crash', after: 604 },
      { kind: 'approve', pick: 0.654, who: 0.445, after: 730 },
      { kind: 'tamper', act: 'edit-account', pick: 0.118, after: 732 },
    ],
  },
];

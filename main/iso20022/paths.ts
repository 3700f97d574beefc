// The elements of a pain.001 the reader looks at, as a tree of local names from the Document down: an element
// opened under a known one finds its node with one map lookup, and anything else falls into NONE with all it holds.
// `field` names a text to keep; `presence` a mandatory element whose being there is all that matters.

/** Texts kept (each also a bit in a section's "seen" mask, so a second one of a once-only element is caught). */
export const FIELD = {
  instrId: 1,
  endToEndId: 2,
  instructedAmount: 3,
  equivalentAmount: 4,
  currency: 5,
  serviceLevel: 6,
  creditorAgentBic: 7,
  creditorName: 8,
  email: 9,
  iban: 10,
  otherAccountId: 11,
  unstructured: 12,
  reference: 13,
  messageId: 14,
  createdAt: 15,
  headerCount: 16,
  headerSum: 17,
  pmtInfId: 18,
  groupCount: 19,
  groupSum: 20,
  groupServiceLevel: 21,
  // The payment group's requested execution date: the element's own text (001.001.03), or its <Dt> or <DtTm>
  // (001.001.09). Numbered past the bits above, they are kept by value, never in a "seen" mask (GroupState
  // catches a second one).
  executionDateText: 32,
  executionDate: 33,
  executionDateTime: 34,
} as const;

/** Mandatory elements checked by presence: bits above every FIELD bit, in the same masks. */
export const PRESENT = {
  paymentId: 1 << 22,
  amount: 1 << 23,
  creditor: 1 << 24,
  paymentMethod: 1 << 25,
  executionDate: 1 << 26,
  debtor: 1 << 27,
  debtorAccount: 1 << 28,
  debtorAgent: 1 << 29,
  initiatingParty: 1 << 30,
} as const;

export type Section = 'header' | 'group' | 'transaction';

export interface PathNode {
  readonly children: ReadonlyMap<string, PathNode>;
  field: number;
  presence: number;
  readonly section: Section | null;
  /** Opening this element starts a group header, a payment group or a transaction. */
  readonly starts: Section | null;
}

function node(section: Section | null, starts: Section | null = null): PathNode & { children: Map<string, PathNode> } {
  return { children: new Map(), field: 0, presence: 0, section, starts };
}

function tree(section: Section, specs: readonly (readonly [path: string, field: number, presence?: number])[]): PathNode & { children: Map<string, PathNode> } {
  const root = node(section, section);
  for (const [path, field, presence = 0] of specs) {
    let at = root;
    for (const name of path.split('/')) {
      let next = at.children.get(name) as (PathNode & { children: Map<string, PathNode> }) | undefined;
      if (!next) {
        next = node(section);
        at.children.set(name, next);
      }
      at = next;
    }
    at.field = field;
    at.presence = presence;
  }
  return root;
}

const TRANSACTION = tree('transaction', [
  ['PmtId', 0, PRESENT.paymentId],
  ['PmtId/InstrId', FIELD.instrId],
  ['PmtId/EndToEndId', FIELD.endToEndId],
  ['Amt', 0, PRESENT.amount],
  ['Amt/InstdAmt', FIELD.instructedAmount],
  ['Amt/EqvtAmt/Amt', FIELD.equivalentAmount],
  ['PmtTpInf/SvcLvl/Cd', FIELD.serviceLevel],
  ['CdtrAgt/FinInstnId/BIC', FIELD.creditorAgentBic],
  ['CdtrAgt/FinInstnId/BICFI', FIELD.creditorAgentBic],
  ['Cdtr', 0, PRESENT.creditor],
  ['Cdtr/Nm', FIELD.creditorName],
  ['Cdtr/CtctDtls/EmailAdr', FIELD.email],
  ['CdtrAcct/Id/IBAN', FIELD.iban],
  ['CdtrAcct/Id/Othr/Id', FIELD.otherAccountId],
  ['RmtInf/Ustrd', FIELD.unstructured],
  ['RmtInf/Strd/CdtrRefInf/Ref', FIELD.reference],
  ['RmtInf/Strd/RfrdDocInf/Nb', FIELD.reference],
]);

const GROUP = tree('group', [
  ['PmtInfId', FIELD.pmtInfId],
  ['PmtMtd', 0, PRESENT.paymentMethod],
  ['NbOfTxs', FIELD.groupCount],
  ['CtrlSum', FIELD.groupSum],
  ['PmtTpInf/SvcLvl/Cd', FIELD.groupServiceLevel],
  ['ReqdExctnDt', FIELD.executionDateText, PRESENT.executionDate],
  ['ReqdExctnDt/Dt', FIELD.executionDate],
  ['ReqdExctnDt/DtTm', FIELD.executionDateTime],
  ['Dbtr', 0, PRESENT.debtor],
  ['DbtrAcct', 0, PRESENT.debtorAccount],
  ['DbtrAgt', 0, PRESENT.debtorAgent],
]);
GROUP.children.set('CdtTrfTxInf', TRANSACTION);

const HEADER = tree('header', [
  ['MsgId', FIELD.messageId],
  ['CreDtTm', FIELD.createdAt],
  ['NbOfTxs', FIELD.headerCount],
  ['CtrlSum', FIELD.headerSum],
  ['InitgPty', 0, PRESENT.initiatingParty],
]);

const INITIATION = node(null);
INITIATION.children.set('GrpHdr', HEADER);
INITIATION.children.set('PmtInf', GROUP);

/** The Document element. */
export const ROOT: PathNode = (() => {
  const root = node(null);
  root.children.set('CstmrCdtTrfInitn', INITIATION);
  return root;
})();

/** Any element the reader does not look at, and everything under it. */
export const NONE: PathNode = node(null);

// Reads an ISO 20022 pain.001 credit-transfer initiation (versions 001.001.03 and 001.001.09) with saxes, a
// streaming XML parser, fed a slice at a time so the main process keeps answering on a 50 MB file. It checks the
// message as a whole (well-formed, no DOCTYPE, a known namespace, the mandatory elements, NbOfTxs and CtrlSum of the
// group header and of each payment group, compared exactly) and hands back every CdtTrfTxInf as plain text fields;
// main/iso20022/pain001.ts turns those into payout rows. Any problem here refuses the whole file (Pain001FileError).
//
// Elements are followed through a tree of the paths read (paths.ts) rather than by joining names into strings,
// and namespaces are resolved here from the xmlns attributes (saxes' own resolution costs a third of a 100,000-
// transaction import): 1.5 million elements must cost little each.
import { TextDecoder } from 'node:util';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { TimeSlicer } from '../csv/time-slice';
import { MAX_CSV_ROWS } from '../csv/types';
import { DecimalSum, parseDecimal } from './decimal';
import { Pain001FileError, type Pain001FileErrorCode } from './errors';
import { FIELD, NONE, PRESENT, ROOT, type PathNode } from './paths';

export const PAIN001_NAMESPACES: Readonly<Record<string, Pain001Version>> = {
  'urn:iso:std:iso:20022:tech:xsd:pain.001.001.03': 'pain.001.001.03',
  'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09': 'pain.001.001.09',
};
export type Pain001Version = 'pain.001.001.03' | 'pain.001.001.09';

/** One CdtTrfTxInf, its texts trimmed as written; null where the file has no such element. */
export interface Pain001Transaction {
  /** 1-based position in the file: the transaction's row number in the review. */
  index: number;
  pmtInfId: string;
  instrId: string | null;
  endToEndId: string;
  /** InstdAmt (or EqvtAmt/Amt when `equivalent`) as written, checked to be decimal text. */
  amount: string;
  currency: string;
  /** EqvtAmt: an amount for the bank to convert, which a payout cannot carry. */
  equivalent: boolean;
  creditorName: string | null;
  iban: string | null;
  otherAccountId: string | null;
  email: string | null;
  creditorAgentBic: string | null;
  /** The transaction's own PmtTpInf/SvcLvl/Cd codes, else its payment group's. */
  serviceLevels: readonly string[];
  unstructured: readonly string[];
  /** Strd references: CdtrRefInf/Ref and RfrdDocInf/Nb. */
  structured: readonly string[];
  /** Its payment group's ReqdExctnDt as written (a date, or a 001.001.09 DtTm); null when empty. */
  requestedExecution: string | null;
}

export interface Pain001Group {
  pmtInfId: string;
  transactions: number;
  requestedExecution: string | null;
}

export interface Pain001Document {
  version: Pain001Version;
  messageId: string;
  createdAt: string;
  groups: Pain001Group[];
  transactions: Pain001Transaction[];
}

/** Bytes decoded at a time (and handed to the parser as one piece): a few milliseconds of parsing. */
const SLICE_BYTES = 64 * 1024;
const NOTHING: readonly string[] = Object.freeze([]);

interface GroupState {
  pmtInfId: string;
  nbOfTxs: string | null;
  ctrlSum: string | null;
  serviceLevels: string[];
  count: number;
  sum: DecimalSum;
  /** ReqdExctnDt as written, and whether it came from a <Dt>/<DtTm> child (001.001.09). */
  execution: string | null;
  executionFromChild: boolean;
}

interface HeaderState {
  messageId: string;
  createdAt: string;
  nbOfTxs: string | null;
  ctrlSum: string | null;
}

function refuse(code: Pain001FileErrorCode, message: string, path: string | null = null, where: string | null = null): never {
  throw new Pain001FileError(code, message, path, where);
}

/** The decoder the byte order mark asks for; UTF-8 without one (what pain.001 files are). */
function decoderFor(bytes: Uint8Array): TextDecoder {
  const [a, b] = [bytes[0], bytes[1]];
  if (a === 0xff && b === 0xfe) return new TextDecoder('utf-16le', { fatal: true });
  if (a === 0xfe && b === 0xff) return new TextDecoder('utf-16be', { fatal: true });
  if (a === 0 || b === 0) {
    refuse('XML_ENCODING', 'The file looks like UTF-16 without a byte order mark; save it as UTF-8 (the encoding of pain.001 files) and import it again.');
  }
  return new TextDecoder('utf-8', { fatal: true });
}

/** True when the bytes are only white space (or a byte order mark). */
function isBlank(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0xef && c !== 0xbb && c !== 0xbf && c !== 0xfe && c !== 0xff && c !== 0) return false;
  }
  return true;
}

/** A namespace prefix binding an element made, undone when it closes. */
interface Binding {
  depth: number;
  prefix: string;
  previous: string | undefined;
}

class Pain001Reader {
  version: Pain001Version | null = null;
  private namespace = '';
  private readonly names: string[] = [];
  private readonly nodes: PathNode[] = [];
  private readonly bindings = new Map<string, string>([['xml', 'http://www.w3.org/XML/1998/namespace']]);
  private readonly undo: Binding[] = [];
  /** Open elements of another namespace (an extension under SplmtryData): skipped with all they hold. */
  private foreign = 0;
  private capturing = false;
  private text = '';
  private header: HeaderState | null = null;
  private headerSeen = 0;
  private group: GroupState | null = null;
  private groupSeen = 0;
  private tx: Pain001Transaction | null = null;
  private txSeen = 0;
  private readonly sum = new DecimalSum();
  readonly groups: Pain001Group[] = [];
  readonly transactions: Pain001Transaction[] = [];
  private rootClosed = false;

  constructor(private readonly parser: SaxesParser<{ xmlns: false; position: true }>, private readonly decodedAs: string) {
    parser.on('xmldecl', (decl) => this.checkEncoding(decl.encoding));
    parser.on('doctype', () =>
      refuse(
        'XML_DOCTYPE',
        `The file has a DOCTYPE declaration (line ${parser.line}). pain.001 files have none, and a DOCTYPE can declare entities that read other files or expand without end (XXE, "billion laughs"), so it is refused before anything in it is expanded; export the file again from the ERP without a DOCTYPE.`,
      ),
    );
    parser.on('opentag', (node) => this.open(node));
    parser.on('closetag', () => this.close());
    parser.on('text', (t) => {
      if (this.capturing) this.text += t;
    });
    parser.on('cdata', (t) => {
      if (this.capturing) this.text += t;
    });
  }

  private checkEncoding(encoding: string | undefined): void {
    const declared = encoding?.toLowerCase().replace(/[^a-z0-9]/g, '');
    if (!declared) return;
    const utf16 = this.decodedAs.startsWith('utf-16');
    if (utf16 ? !declared.startsWith('utf16') : declared !== 'utf8') {
      refuse('XML_ENCODING', `The file declares encoding "${encoding}", but pain.001 files are UTF-8; export it from the ERP as UTF-8 and import it again.`);
    }
  }

  private path(): string {
    return this.names.length > 0 ? this.names.join('/') : 'Document';
  }

  /** "PmtInf "PI-2", transaction 7 (EndToEndId "E2E-7")": where a problem is, as a person finds it. */
  private where(): string {
    const group = this.group?.pmtInfId ? `PmtInf "${this.group.pmtInfId}"` : `payment group ${this.groups.length + 1}`;
    const tx = this.tx;
    if (!tx) return group;
    const id = tx.endToEndId ? `EndToEndId "${tx.endToEndId}"` : tx.instrId ? `InstrId "${tx.instrId}"` : 'no EndToEndId';
    return `${group}, transaction ${tx.index} (${id})`;
  }

  private declare(attributes: Record<string, string>, depth: number): void {
    for (const key in attributes) {
      if (key !== 'xmlns' && !key.startsWith('xmlns:')) continue;
      const prefix = key === 'xmlns' ? '' : key.slice(6);
      this.undo.push({ depth, prefix, previous: this.bindings.get(prefix) });
      this.bindings.set(prefix, attributes[key]!);
    }
  }

  private open(node: SaxesTagPlain): void {
    if (this.foreign > 0) {
      this.foreign++;
      return;
    }
    const depth = this.names.length + 1;
    this.declare(node.attributes, depth);
    const name = node.name;
    const colon = name.indexOf(':');
    const prefix = colon < 0 ? '' : name.slice(0, colon);
    const local = colon < 0 ? name : name.slice(colon + 1);
    const uri = this.bindings.get(prefix);
    if (uri === undefined && prefix !== '') refuse('XML_MALFORMED', `The element <${name}> (line ${this.parser.line}) uses the prefix "${prefix}", which no xmlns:${prefix} attribute declares.`);
    if (depth === 1) {
      this.openRoot(name, local, uri ?? '');
      return;
    }
    if (uri !== this.namespace) {
      // Not of the pain.001 schema: not ours to read. Its own bindings are undone when it closes.
      this.dropBindings(depth);
      this.foreign = 1;
      return;
    }
    const parent = this.nodes[this.nodes.length - 1] ?? NONE;
    const path = parent.children.get(local) ?? NONE;
    if (depth === 2 && path === NONE) refuse('XML_NAMESPACE', `The Document holds ${local}, not a customer credit transfer initiation (CstmrCdtTrfInitn).`, `Document/${local}`);
    this.names.push(local);
    this.nodes.push(path);
    if (path === NONE) {
      this.capturing = false;
      return;
    }
    if (path.starts === 'header') this.openHeader();
    else if (path.starts === 'group') this.openGroup();
    else if (path.starts === 'transaction') this.openTransaction();
    if (path.presence !== 0) {
      if (path.section === 'transaction') this.txSeen |= path.presence;
      else if (path.section === 'group') this.groupSeen |= path.presence;
      else this.headerSeen |= path.presence;
    }
    if (path.field === FIELD.instructedAmount) this.setOnce(FIELD.currency, (node.attributes['Ccy'] ?? '').trim());
    else if (path.field === FIELD.equivalentAmount) this.setOnce(FIELD.currency, (node.attributes['Ccy'] ?? '').trim());
    this.capturing = path.field !== 0;
    this.text = '';
  }

  private openRoot(name: string, local: string, uri: string): void {
    const version = PAIN001_NAMESPACES[uri];
    if (local !== 'Document' || !version) {
      const named = /pain\.(\d{3})\.\d{3}\.\d{2}/.exec(uri);
      const what = !uri
        ? 'has no namespace'
        : named?.[1] === '001'
          ? `is ${named[0]}, a version not read here`
          : named
            ? `is ${named[0]}, not a credit transfer initiation (pain.001)`
            : `has the namespace "${uri}"`;
      refuse(
        'XML_NAMESPACE',
        `This XML file is not an ISO 20022 credit transfer initiation this desk reads: its root element <${name}> ${what}. Supported: <Document> in urn:iso:std:iso:20022:tech:xsd:pain.001.001.03 or pain.001.001.09.`,
        local,
      );
    }
    this.version = version!;
    this.namespace = uri;
    this.names.push('Document');
    this.nodes.push(ROOT);
  }

  private openHeader(): void {
    if (this.header) refuse('XML_DUPLICATE_ELEMENT', `The message has more than one group header (GrpHdr, line ${this.parser.line}); a pain.001 has exactly one.`, this.path());
    this.header = { messageId: '', createdAt: '', nbOfTxs: null, ctrlSum: null };
  }

  private openGroup(): void {
    this.group = { pmtInfId: '', nbOfTxs: null, ctrlSum: null, serviceLevels: [], count: 0, sum: new DecimalSum(), execution: null, executionFromChild: false };
    this.groupSeen = 0;
  }

  private openTransaction(): void {
    const index = this.transactions.length + 1;
    if (index > MAX_CSV_ROWS) {
      refuse('TOO_MANY_ROWS', `The file has more than ${MAX_CSV_ROWS.toLocaleString('en-US')} transactions (CdtTrfTxInf); split the payment run into files of at most ${MAX_CSV_ROWS.toLocaleString('en-US')}.`);
    }
    this.txSeen = 0;
    this.tx = {
      index, pmtInfId: '', instrId: null, endToEndId: '', amount: '', currency: '', equivalent: false, creditorName: null, iban: null,
      otherAccountId: null, email: null, creditorAgentBic: null, serviceLevels: NOTHING, unstructured: NOTHING, structured: NOTHING, requestedExecution: null,
    };
  }

  /** Fields the schema allows once: a second one refuses the file. */
  private setOnce(field: number, value: string): void {
    const bit = 1 << field;
    if (this.txSeen & bit) refuse('XML_DUPLICATE_ELEMENT', `${this.where()}: ${this.path()} appears twice (line ${this.parser.line}); the schema allows it once.`, this.path(), this.where());
    this.txSeen |= bit;
    const tx = this.tx!;
    switch (field) {
      case FIELD.instrId: tx.instrId = value; break;
      case FIELD.endToEndId: tx.endToEndId = value; break;
      case FIELD.instructedAmount: tx.amount = value; break;
      case FIELD.equivalentAmount: tx.amount = value; tx.equivalent = true; break;
      case FIELD.currency: tx.currency = value; break;
      case FIELD.creditorAgentBic: tx.creditorAgentBic = value; break;
      case FIELD.creditorName: tx.creditorName = value; break;
      case FIELD.email: tx.email = value; break;
      case FIELD.iban: tx.iban = value; break;
      case FIELD.otherAccountId: tx.otherAccountId = value; break;
    }
  }

  private dropBindings(depth: number): void {
    while (this.undo.length > 0 && this.undo[this.undo.length - 1]!.depth === depth) {
      const b = this.undo.pop()!;
      if (b.previous === undefined) this.bindings.delete(b.prefix);
      else this.bindings.set(b.prefix, b.previous);
    }
  }

  private close(): void {
    if (this.foreign > 0) {
      this.foreign--;
      return;
    }
    const depth = this.names.length;
    const path = this.nodes.pop() ?? NONE;
    if (path.field !== 0) this.field(path.field, this.text.trim());
    this.capturing = false;
    if (path.starts === 'transaction') this.closeTransaction();
    else if (path.starts === 'group') this.closeGroup();
    if (depth === 1) this.rootClosed = true;
    this.names.pop();
    if (this.undo.length > 0) this.dropBindings(depth);
  }

  private field(field: number, value: string): void {
    switch (field) {
      case FIELD.messageId:
      case FIELD.createdAt:
      case FIELD.headerCount:
      case FIELD.headerSum:
        return this.headerField(field, value);
      case FIELD.pmtInfId:
      case FIELD.groupCount:
      case FIELD.groupSum:
        return this.groupField(field, value);
      case FIELD.groupServiceLevel:
        if (value) this.group!.serviceLevels.push(value.toUpperCase());
        return;
      case FIELD.executionDateText:
      case FIELD.executionDate:
      case FIELD.executionDateTime:
        return this.executionField(field, value);
      case FIELD.serviceLevel: {
        const tx = this.tx!;
        if (!value) return;
        if (tx.serviceLevels === NOTHING) tx.serviceLevels = [];
        (tx.serviceLevels as string[]).push(value.toUpperCase());
        return;
      }
      case FIELD.unstructured: {
        const tx = this.tx!;
        if (!value) return;
        if (tx.unstructured === NOTHING) tx.unstructured = [];
        (tx.unstructured as string[]).push(value);
        return;
      }
      case FIELD.reference: {
        const tx = this.tx!;
        if (!value) return;
        if (tx.structured === NOTHING) tx.structured = [];
        (tx.structured as string[]).push(value);
        return;
      }
      case FIELD.currency:
        return;
      default:
        return this.setOnce(field, value);
    }
  }

  private headerField(field: number, value: string): void {
    const h = this.header!;
    const bit = 1 << field;
    if (this.headerSeen & bit) refuse('XML_DUPLICATE_ELEMENT', `${this.path()} appears twice (line ${this.parser.line}); the schema allows it once.`, this.path());
    this.headerSeen |= bit;
    if (field === FIELD.messageId) h.messageId = value;
    else if (field === FIELD.createdAt) h.createdAt = value;
    else if (field === FIELD.headerCount) h.nbOfTxs = value;
    else h.ctrlSum = value;
  }

  private groupField(field: number, value: string): void {
    const g = this.group!;
    const bit = 1 << field;
    if (this.groupSeen & bit) refuse('XML_DUPLICATE_ELEMENT', `${this.where()}: ${this.path()} appears twice (line ${this.parser.line}); the schema allows it once.`, this.path(), this.where());
    this.groupSeen |= bit;
    if (field === FIELD.pmtInfId) g.pmtInfId = value;
    else if (field === FIELD.groupCount) g.nbOfTxs = value;
    else g.ctrlSum = value;
  }

  /** ReqdExctnDt: its own text (001.001.03), or its <Dt> or <DtTm> (001.001.09), once per payment group. */
  private executionField(field: number, value: string): void {
    const g = this.group!;
    // A 001.001.09 child closes first; the wrapper's text is then that child's again, already taken.
    if (field === FIELD.executionDateText && g.executionFromChild) return;
    if (g.execution !== null) refuse('XML_DUPLICATE_ELEMENT', `${this.where()}: ${this.path()} appears twice (line ${this.parser.line}); the schema allows one requested execution date.`, this.path(), this.where());
    g.execution = value || null;
    g.executionFromChild = field !== FIELD.executionDateText;
  }

  private missing(element: string, where: string | null): never {
    return refuse(
      'XML_MISSING_ELEMENT',
      `${where ? `${where}: ` : ''}the mandatory element ${element} is missing (${this.version} requires it); the file is incomplete, export it again from the ERP.`,
      `${this.path()}/${element}`,
      where,
    );
  }

  /** Called before the transaction's element leaves the path (the path still ends in CdtTrfTxInf). */
  private closeTransaction(): void {
    const tx = this.tx!;
    const g = this.group!;
    const seen = this.txSeen;
    if (!(seen & PRESENT.paymentId) || !tx.endToEndId) this.missing('PmtId/EndToEndId', this.where());
    if (!(seen & PRESENT.amount)) this.missing('Amt', this.where());
    if (!(seen & ((1 << FIELD.instructedAmount) | (1 << FIELD.equivalentAmount)))) this.missing('Amt/InstdAmt', this.where());
    if (this.version === 'pain.001.001.09' && !(seen & PRESENT.creditor)) this.missing('Cdtr', this.where());
    const amount = parseDecimal(tx.amount);
    if (!amount) {
      refuse('XML_INVALID_VALUE', `${this.where()}: the amount "${tx.amount}" is not a decimal number (digits with an optional "." and decimals, such as 1250.50).`, `${this.path()}/Amt`, this.where());
    }
    if (tx.currency.length !== 3 || !/^[A-Z]{3}$/.test(tx.currency)) {
      refuse('XML_INVALID_VALUE', `${this.where()}: the amount's Ccy attribute ${tx.currency ? `"${tx.currency}" is not a currency code` : 'is missing'}; it must be a three-letter ISO 4217 code such as EUR.`, `${this.path()}/Amt`, this.where());
    }
    g.sum.addScaled(amount!.digits, amount!.scale);
    this.sum.addScaled(amount!.digits, amount!.scale);
    g.count++;
    tx.pmtInfId = g.pmtInfId;
    if (tx.serviceLevels === NOTHING) tx.serviceLevels = g.serviceLevels;
    this.transactions.push(tx);
    this.tx = null;
  }

  private closeGroup(): void {
    const g = this.group!;
    const where = this.where();
    if (!g.pmtInfId) this.missing('PmtInfId', where);
    for (const [bit, element] of [[PRESENT.paymentMethod, 'PmtMtd'], [PRESENT.executionDate, 'ReqdExctnDt'], [PRESENT.debtor, 'Dbtr'], [PRESENT.debtorAccount, 'DbtrAcct'], [PRESENT.debtorAgent, 'DbtrAgt']] as const) {
      if (!(this.groupSeen & bit)) this.missing(element, where);
    }
    if (g.count === 0) this.missing('CdtTrfTxInf', where);
    // Transactions read before PmtInfId (out of schema order) get it now.
    for (let i = this.transactions.length - g.count; i < this.transactions.length; i++) {
      const tx = this.transactions[i]!;
      tx.pmtInfId = g.pmtInfId;
      tx.requestedExecution = g.execution;
    }
    if (g.nbOfTxs !== null) this.checkCount(g.nbOfTxs, g.count, `PmtInf/NbOfTxs of ${where}`, `the payment group holds ${g.count}`, `${this.path()}/NbOfTxs`, where);
    if (g.ctrlSum !== null) this.checkSum(g.ctrlSum, g.sum, `PmtInf/CtrlSum of ${where}`, `${this.path()}/CtrlSum`, where);
    this.groups.push({ pmtInfId: g.pmtInfId, transactions: g.count, requestedExecution: g.execution });
    this.group = null;
  }

  private checkCount(declared: string, actual: number, what: string, holds: string, path: string, where: string | null): void {
    if (!/^\d{1,15}$/.test(declared)) refuse('XML_INVALID_VALUE', `${what} is "${declared}", not a number of transactions (1-15 digits).`, path, where);
    if (Number(declared) !== actual) {
      refuse('XML_COUNT_MISMATCH', `${what} says ${Number(declared)} transactions, but ${holds} (CdtTrfTxInf): the file is incomplete or was changed after the ERP made it; nothing was imported.`, path, where);
    }
  }

  private checkSum(declared: string, sum: DecimalSum, what: string, path: string, where: string | null): void {
    if (!parseDecimal(declared)) refuse('XML_INVALID_VALUE', `${what} is "${declared}", not a decimal number.`, path, where);
    if (!sum.equals(declared)) {
      refuse('XML_CONTROL_SUM_MISMATCH', `${what} is ${declared}, but the amounts of its transactions add up to ${sum.toString()}: the file is incomplete or was changed after the ERP made it; nothing was imported.`, path, where);
    }
  }

  /** The checks of the message as a whole, once the parser has seen its end. */
  finish(): Pain001Document {
    if (!this.version || !this.rootClosed) refuse('XML_MALFORMED', 'The file ends before its root element is closed; it was cut short.');
    const root = 'Document/CstmrCdtTrfInitn';
    const h = this.header;
    if (!h) return refuse('XML_MISSING_ELEMENT', `The message has no group header (GrpHdr), which ${this.version} requires; export the file again from the ERP.`, `${root}/GrpHdr`);
    const need = (value: string | null, element: string): string =>
      value || refuse('XML_MISSING_ELEMENT', `The group header lacks the mandatory element GrpHdr/${element} (${this.version} requires it); export the file again from the ERP.`, `${root}/GrpHdr/${element}`);
    const messageId = need(h.messageId, 'MsgId');
    const createdAt = need(h.createdAt, 'CreDtTm');
    const nbOfTxs = need(h.nbOfTxs, 'NbOfTxs');
    if (!(this.headerSeen & PRESENT.initiatingParty)) need(null, 'InitgPty');
    if (this.groups.length === 0) refuse('XML_MISSING_ELEMENT', `The message has no payment group (PmtInf), which ${this.version} requires.`, `${root}/PmtInf`);
    this.checkCount(nbOfTxs, this.transactions.length, 'GrpHdr/NbOfTxs', `the file holds ${this.transactions.length}`, `${root}/GrpHdr/NbOfTxs`, null);
    if (h.ctrlSum !== null) this.checkSum(h.ctrlSum, this.sum, 'GrpHdr/CtrlSum', `${root}/GrpHdr/CtrlSum`, null);
    return { version: this.version!, messageId, createdAt, groups: this.groups, transactions: this.transactions };
  }
}

/** saxes' own message ("3:14: unclosed tag: Amt") as a sentence; its position is line:column. */
function malformed(error: Error): Pain001FileError {
  const match = /^(?:[^:\n]*:)?(\d+):(\d+): (.*)$/s.exec(error.message);
  const where = match ? ` at line ${match[1]}, column ${Number(match[2]) + 1}` : '';
  const what = (match?.[3] ?? error.message).replace(/\.$/, '');
  return new Pain001FileError('XML_MALFORMED', `The file is not well-formed XML${where}: ${what}. Export it again from the ERP; nothing was imported.`);
}

/** Reads and checks a pain.001 message; throws Pain001FileError when the file as a whole cannot be used. */
export async function readPain001(bytes: Uint8Array, yieldNow: () => Promise<void>): Promise<Pain001Document> {
  if (isBlank(bytes)) refuse('EMPTY_FILE', 'The file is empty.');
  const decoder = decoderFor(bytes);
  const parser = new SaxesParser({ xmlns: false, position: true });
  const reader = new Pain001Reader(parser, decoder.encoding);
  const slicer = new TimeSlicer(yieldNow, 1);
  try {
    for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
      let text = '';
      try {
        text = decoder.decode(bytes.subarray(at, at + SLICE_BYTES), { stream: true });
      } catch {
        refuse('XML_ENCODING', `The file is not valid ${decoder.encoding.toUpperCase()}: the bytes near byte ${at.toLocaleString('en-US')} are no text in it; export the file from the ERP as UTF-8.`);
      }
      parser.write(text);
      if (slicer.due()) await slicer.pause();
    }
    parser.write(decoder.decode());
    parser.close();
  } catch (error) {
    if (error instanceof Pain001FileError) throw error;
    if (error instanceof Error) throw malformed(error);
    throw error;
  }
  return reader.finish();
}

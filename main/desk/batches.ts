// batches:*: CSV or pain.001 validation (kept in memory under a validation id until it is submitted once),
// submission through the engine, control of running batches and their results (a CSV, or a pain.002 report).
import { executionFor, profileZone } from './schedules';
import { describeExecution, type Execution } from '../schedules/execution';
import { fileDatesOf, isDateColumn } from '../schedules/file-dates';
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { BatchFileSource, BatchResultRow, BatchValidation, BatchView } from '../../contract/api';
import { decodeBase64InSlices } from '../csv/base64';
import { exportApprovalsCsv, exportBatchResultsCsvAsync } from '../csv/export';
import { totalsOf } from '../csv/import';
import { payoutCsvTemplate } from '../csv/template';
import { mapInSlices, yieldToEventLoop } from '../csv/time-slice';
import { payoutFieldsOf } from '../domain/payout';
import { progressOf, type PayoutEngine } from '../engine';
import type { DeskJournal, PaymentRecord } from '../journal';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';
import type { FileGrants } from './file-grants';
import { isoOrNull, money, optionalMoney, reasonOf, type DecimalsOf } from './convert';
import type { CurrencyCache } from './currency-cache';
import { checkedFunding, fundingFrom, shortfallText } from './funding';
import { approvalExportRows, personActor, preparedByFor, rowsNotAsPrepared, senderFor } from './dual-control';
import { payeeAwareCsvLookup } from './payees';
import { plural } from '../../contract/plural';
import { batchRemittance, emailBatchRemittance } from './remittance';
import { importPayoutFile, importPayoutFileAt, isPain001Result, type PayoutFileOptions, type PayoutFileResult } from '../iso20022/payout-file';
import { pain001OriginOf } from '../iso20022/origin';
import { pain002StatusReport } from '../iso20022/pain002';

/** Validations waiting for submission; a few at most (each holds a whole file's rows). */
const MAX_PENDING_VALIDATIONS = 8;
/**
 * ...and at most this many bytes of files between them (two files at the 50 MB cap). A file's rows take
 * a few times its size in memory, so this bounds what waiting validations hold; the oldest give way.
 */
export const MAX_PENDING_BYTES = 100 * 1024 * 1024;
/** Ids of validations that gave way, remembered so that submitting one says why it is gone. */
const MAX_REMEMBERED_EVICTIONS = 64;

const formatMegabytes = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

interface PendingValidation {
  profileId: string;
  result: PayoutFileResult;
  bytes: number;
  /** The release time the file's rows ask for, still ahead when validated (schedules/file-dates.ts). */
  fileExecution: Execution | null;
}

/**
 * `engine`: the profile's started engine, if any. Without one nothing sends the batch, so a batch the journal
 * calls RUNNING reads as STOPPED; with one, as WAITING while the gateway is unreachable.
 */
async function batchView(journal: DeskJournal, batchId: string, profileId: string, decimalsOf: DecimalsOf, engine: PayoutEngine<DeskJournal> | null): Promise<BatchView> {
  const batch = await journal.getBatch(batchId);
  if (!batch) throw new DeskError('NOT_FOUND', `No batch ${batchId} in this profile's journal`);
  const live = engine ? engine.batchLive(batchId) : { running: false };
  // The run's sending rate: the screen reads the batch again on every change, and must not then say "0.0/s".
  const { counts: _counts, ...progress } = progressOf(batch, await journal.batchCounts(batchId), engine ? engine.liveRate(batchId) : 0, live);
  const ended = batch.state === 'COMPLETED' || batch.state === 'CANCELLED';
  return {
    id: batch.id,
    profileId,
    fileName: batch.fileName,
    sha256: batch.sha256,
    createdAt: new Date(batch.createdAt).toISOString(),
    finishedAt: ended ? new Date(batch.updatedAt).toISOString() : null,
    totals: batch.totals.map((t) => ({ money: money(t.amountMinor, t.currencyCode, decimalsOf), count: t.count })),
    progress,
  };
}

/** A file source with base64 already decoded and a granted file's path looked up (see decodedSource). */
type DecodedSource = { kind: 'bytes'; fileName: string; bytes: Uint8Array } | { kind: 'path'; path: string };

/**
 * Base64 is checked and decoded a slice at a time (the schema checks only its length), so a 50 MB file does not
 * hold the main process. Text that is not base64 is refused as the schema would have refused it, before any
 * other work.
 */
async function decodedSource(source: BatchFileSource, files: FileGrants): Promise<DecodedSource> {
  // Only a file main's dialog chose or the user dropped (checked to be a .csv, .tsv or .txt file then):
  // the page cannot name a path, so validation can never be turned into a reader of other files.
  if (source.kind === 'granted') return { kind: 'path', path: files.resolve(source.token, 'csv').path };
  if (source.kind === 'bytes') return source;
  const bytes = await decodeBase64InSlices(source.base64, yieldToEventLoop);
  if (!bytes) {
    throw new DeskError('INVALID_ARGUMENT', 'batches:validateFile: invalid arguments', false, [
      { field: 'source.base64', code: 'INVALID_FORMAT', message: 'is not base64' },
    ]);
  }
  return { kind: 'bytes', fileName: source.fileName, bytes };
}

/**
 * The validation and the size of the file it came from (what the pending budget counts). The file's content
 * decides its reader: a pain.001 (XML) or a CSV (main/iso20022/payout-file.ts); both give the same result.
 */
async function readSource(source: DecodedSource, options: PayoutFileOptions): Promise<{ result: PayoutFileResult; bytes: number }> {
  switch (source.kind) {
    case 'path': {
      const result = await importPayoutFileAt(source.path, options);
      return { result, bytes: (await stat(source.path).catch(() => null))?.size ?? 0 };
    }
    case 'bytes':
      return { result: await importPayoutFile(source.bytes, { ...options, fileName: source.fileName }), bytes: source.bytes.byteLength };
  }
}

/** The file's other columns, journaled with the payout at submission. */
function extraColumnsOf(p: PaymentRecord): { extra?: Record<string, string> } {
  const extra = p.details?.['extra'];
  if (!extra || typeof extra !== 'object' || Array.isArray(extra)) return {};
  return { extra: Object.fromEntries(Object.entries(extra).filter((e): e is [string, string] => typeof e[1] === 'string')) };
}

export function batchesService(
  rt: DeskRuntime,
  currencies: CurrencyCache,
  files: FileGrants,
  limits: { maxPendingBytes?: number } = {},
): ProfileAreaService<'batches'> {
  const maxPendingBytes = limits.maxPendingBytes ?? MAX_PENDING_BYTES;
  const pending = new Map<string, PendingValidation>();
  const evicted = new Set<string>();
  let pendingBytes = 0;

  /** Keeps a new validation, letting the oldest ones go until the count and the byte budget hold. */
  const keep = (validationId: string, entry: PendingValidation): void => {
    pending.set(validationId, entry);
    pendingBytes += entry.bytes;
    while (pending.size > MAX_PENDING_VALIDATIONS || (pendingBytes > maxPendingBytes && pending.size > 1)) {
      const [oldestId, oldest] = pending.entries().next().value as [string, PendingValidation];
      take(oldestId, oldest);
      evicted.add(oldestId);
      if (evicted.size > MAX_REMEMBERED_EVICTIONS) evicted.delete(evicted.values().next().value as string);
    }
  };
  const take = (validationId: string, entry: PendingValidation): void => {
    pending.delete(validationId);
    pendingBytes -= entry.bytes;
  };

  return {
    async template() {
      return { fileName: 'payout-batch-template.csv', mimeType: 'text/csv', content: payoutCsvTemplate() };
    },
    async validateFile(profile, { source, decimalComma }) {
      const input = await decodedSource(source, files);
      const journal = await rt.journalFor(profile.id);
      const client = rt.ctx.gatewayFor(profile.id);
      // The payee book's details in force stand in for what its payees were paid to (the "bank details changed" warning).
      const options: PayoutFileOptions = { journal: await payeeAwareCsvLookup(rt, profile.id, journal), ...(decimalComma !== undefined ? { decimalComma } : {}), iso20022: profile.iso20022 };
      if (profile.maxAmountMinor) options.maxAmountMinor = profile.maxAmountMinor;
      options.repeatWindowDays = profile.repeatWindowDays;
      // A pain.001 run or transaction imported before (its MsgId, an EndToEndId) is an error; createBatch refuses it again.
      options.paymentRuns = journal;
      const skippedChecks: string[] = [];
      try {
        const list = await currencies.currencies(profile.id);
        options.currencies = new Map(list.map((c) => [c.code, c.decimals]));
        options.operators = await client.paymentOperators();
      } catch (error) {
        // Offline: rows are checked with ISO decimals and without the operator list, and the report says so.
        const reason = error instanceof Error ? error.message : String(error);
        skippedChecks.push(`the currencies and operators ${profile.baseUrl} offers (not reachable: ${reason})`);
      }
      const { result, bytes } = await readSource(input, options);
      const decimalsOf = currencies.decimalsOf(profile.id);
      const { funding, notRead } = await checkedFunding(rt, profile.id, result.totals, decimalsOf);
      if (notRead !== null) skippedChecks.push(`the available balances (not read now: ${notRead}); the figures shown are the last known`);
      // The file's own release date (execute_on, ReqdExctnDt): one for the whole batch, or the file is refused.
      const dates = fileDatesOf(result.rows, profileZone(profile), { noun: isPain001Result(result) ? 'transaction' : 'row' });
      result.errors.unshift(...dates.errors);
      const validationId = randomUUID();
      keep(validationId, { profileId: profile.id, result, bytes, fileExecution: dates.execution });
      const view: BatchValidation = {
        validationId,
        fileName: result.fileName,
        sha256: result.sha256,
        // A pain.001 is XML in UTF-8, with no delimiter; the review names its message instead.
        encoding: isPain001Result(result) ? 'utf-8' : result.encoding,
        delimiter: isPain001Result(result) ? '' : result.delimiter,
        iso20022: isPain001Result(result) ? result.iso20022 : null,
        counts: result.counts,
        // Up to 100,000 rows: built in time slices, so the main process keeps answering meanwhile.
        rows: await mapInSlices(result.rows, ({ rowNumber, payout: p }) => ({
          rowNumber, idPayout: p.idPayout, money: money(p.amountMinor, p.currencyCode, decimalsOf), accountName: p.accountName,
          accountNumber: p.accountNumber, paymentOperatorCode: p.paymentOperatorCode, paymentMethodCode: p.paymentMethodCode,
          emailAddress: p.emailAddress, callbackUrl: p.callbackUrl ?? null, reference: p.reference ?? null,
        }), yieldToEventLoop),
        errors: result.errors,
        warnings: result.warnings,
        funding,
        // A release date column is read (executeOn), not only kept.
        unknownColumns: result.unknownColumns.filter((c) => !isDateColumn(c)),
        alreadySubmitted: result.warnings.some((w) => w.code === 'FILE_ALREADY_SUBMITTED'),
        skippedChecks,
        balancesRead: notRead === null,
        executeOn: dates.execution ? describeExecution(dates.execution) : null,
        executeOnNote: dates.note,
      };
      return view;
    },
    async submit(profile, { validationId, confirmedWarningRows, currencyCodes, batchId, executeOn }) {
      const entry = pending.get(validationId);
      if (!entry && evicted.has(validationId)) {
        throw new DeskError(
          'VALIDATION_EXPIRED',
          `This validation was set aside to make room for newer ones (the desk keeps at most ${MAX_PENDING_VALIDATIONS} files or ${formatMegabytes(maxPendingBytes)} waiting); nothing was sent. Validate the file again`,
        );
      }
      if (!entry || entry.profileId !== profile.id) {
        throw new DeskError('VALIDATION_EXPIRED', 'This validation is unknown or was already submitted; validate the file again');
      }
      const { result } = entry;
      if (result.errors.length > 0) throw new DeskError('BATCH_HAS_ERRORS', `${plural(result.errors.length, 'problem')} in the file must be fixed first; nothing was sent`);
      const confirmed = new Set(confirmedWarningRows);
      const unconfirmed = result.warnings.filter((w) => !confirmed.has(w.rowNumber));
      if (unconfirmed.length > 0) {
        throw new DeskError('WARNINGS_NOT_CONFIRMED', `${plural(unconfirmed.length, 'warning')} ${unconfirmed.length === 1 ? 'needs' : 'need'} a confirmation (${unconfirmed.length === 1 ? 'row' : 'rows'} ${[...new Set(unconfirmed.map((w) => w.rowNumber))].slice(0, 10).join(', ')})`);
      }
      const rows = result.rows.filter((r) => !currencyCodes || currencyCodes.includes(r.payout.currencyCode));
      if (rows.length === 0) throw new DeskError('EMPTY_BATCH', 'No rows are left to send for the chosen currencies');
      // The file's own date when the caller names none; one that has come since the validation is sent at once.
      const fileAsks = entry.fileExecution && entry.fileExecution.at > Date.now() ? { local: entry.fileExecution.local, zone: entry.fileExecution.zone } : undefined;
      const asked = executeOn ?? fileAsks;
      // Scheduled: released at its time by a sender desk (the calendar); its funding is the forecast's to show.
      const execution = asked ? executionFor(profile, asked) : undefined;
      // The same rule the review shows: a currency the balance cannot cover blocks the batch, here too.
      const short = execution ? null : shortfallText(await fundingFrom(rt, profile.id, totalsOf(rows), currencies.decimalsOf(profile.id)));
      if (short) {
        throw new DeskError('INSUFFICIENT_BALANCE', `${short}; nothing was sent. Send only the funded currencies, or top up and validate again`);
      }
      const preparedBy = await preparedByFor(rt, profile.id);
      const duplicateRows = new Set(result.warnings.filter((w) => w.code === 'POSSIBLE_DUPLICATE').map((w) => w.rowNumber));
      // Taken out before sending: the same validation can never be submitted twice.
      take(validationId, entry);
      const engine = await rt.engineFor(profile.id);
      const batch = await engine.submitBatch({
        ...(batchId ? { id: batchId } : {}),
        fileName: result.fileName, sha256: result.sha256, ...(preparedBy ? { preparedBy } : {}),
        // A possible duplicate the preparer confirmed is signed as one (a policy may count it, approvers see it).
        rows: rows.map((r) => ({ ...r.payout, rowNumber: r.rowNumber, extra: r.extra, ...(duplicateRows.has(r.rowNumber) ? { possibleDuplicate: true } : {}) })),
        ...(execution ? { executeOn: execution } : {}),
      });
      if (execution) rt.events.emit('schedulesChanged', { profileId: profile.id, subject: { kind: 'batch', id: batch.id }, change: 'scheduled' });
      return batchView(engine.journal, batch.id, profile.id, currencies.decimalsOf(profile.id), engine);
    },
    async pause(profile, { batchId }) {
      const engine = await rt.engineFor(profile.id);
      await engine.pauseBatch(batchId);
      return batchView(engine.journal, batchId, profile.id, currencies.decimalsOf(profile.id), engine);
    },
    async resume(profile, { batchId }) {
      // Dual control: resuming (or starting again) sends, so it is the sender's act (recorded as the actor).
      const sender = await senderFor(rt, profile.id);
      const engine = await rt.engineFor(profile.id);
      await engine.resumeBatch(batchId, sender ? personActor({ id: sender }) : undefined);
      return batchView(engine.journal, batchId, profile.id, currencies.decimalsOf(profile.id), engine);
    },
    async cancel(profile, { batchId }) {
      const engine = await rt.engineFor(profile.id);
      await engine.cancelBatch(batchId);
      return batchView(engine.journal, batchId, profile.id, currencies.decimalsOf(profile.id), engine);
    },
    async list(profile, { offset = 0, limit = 100 }) {
      const journal = await rt.journalFor(profile.id);
      const all = await journal.listBatches(offset + limit);
      const decimalsOf = currencies.decimalsOf(profile.id);
      const engine = await rt.startedEngine(profile.id);
      const items: BatchView[] = [];
      for (const b of all.slice(offset, offset + limit)) items.push(await batchView(journal, b.id, profile.id, decimalsOf, engine));
      return { items, total: offset + all.length - Math.min(all.length, offset) + (all.length === offset + limit ? 1 : 0), offset, limit };
    },
    async get(profile, { batchId }) {
      return batchView(await rt.journalFor(profile.id), batchId, profile.id, currencies.decimalsOf(profile.id), await rt.startedEngine(profile.id));
    },
    async results(profile, { batchId }) {
      const journal = await rt.journalFor(profile.id);
      if (!(await journal.getBatch(batchId))) throw new DeskError('NOT_FOUND', `No batch ${batchId} in this profile's journal`);
      const decimalsOf = currencies.decimalsOf(profile.id);
      const retryable = await (await rt.engineFor(profile.id)).retryableIds(batchId);
      const [payments, retriedAs] = await Promise.all([journal.batchPayments(batchId), journal.batchRetries(batchId)]);
      return payments.map(
        (p): BatchResultRow => ({
          rowNumber: p.rowNumber ?? 0, idPayout: p.id, money: money(p.amountMinor, p.currencyCode, decimalsOf), accountName: p.accountName,
          status: p.status, localState: p.state, fee: optionalMoney(p.feeMinor, p.feeCurrencyCode, decimalsOf),
          failureReason: p.failureReason ?? (p.state === 'REJECTED' ? p.lastError : null) ?? reasonOf(p), processedAt: p.processedAt ?? isoOrNull(p.finalAt),
          intentId: p.intentId, retryable: retryable.has(p.id), retryOf: p.retryOf, retriedAs: retriedAs.get(p.id) ?? null,
          endToEndId: pain001OriginOf(p)?.endToEndId ?? null,
        }),
      );
    },
    async exportResults(profile, { batchId, format }) {
      const journal = await rt.journalFor(profile.id);
      const batch = await journal.getBatch(batchId);
      if (!batch) throw new DeskError('NOT_FOUND', `No batch ${batchId} in this profile's journal`);
      if (format === 'pain.002') {
        const payments = await journal.batchPayments(batchId);
        if (!payments.some((p) => pain001OriginOf(p) !== null)) {
          throw new DeskError('NOT_FROM_PAIN001', `Batch ${batchId} (${batch.fileName}) did not come from a pain.001 file, so there is no payment run to report on; export its results as CSV`);
        }
        // The report's MsgId (Max35Text): new for every report, so an ERP tells two reports of one run apart.
        const messageId = `STS-${Date.now().toString(36).toUpperCase()}-${randomUUID().slice(0, 8)}`;
        const content = await pain002StatusReport({ messageId, createdAt: new Date().toISOString(), initiatingParty: profile.name, payments, decimalsOf: currencies.decimalsOf(profile.id) }, yieldToEventLoop);
        return { fileName: `${batch.fileName.replace(/\.[^.]+$/, '')}-pain002.xml`, mimeType: 'application/xml', content };
      }
      const content = await exportBatchResultsCsvAsync(
        (await journal.batchPayments(batchId)).map((p) => ({
          payout: { idPayout: p.id, ...payoutFieldsOf(p), ...(p.reference ? { reference: p.reference } : {}) },
          ...extraColumnsOf(p),
          status: p.status, feeMinor: p.feeMinor, feeCurrencyCode: p.feeCurrencyCode, processedAt: p.processedAt,
          failureReason: p.failureReason ?? (p.state === 'REJECTED' ? p.lastError : null),
          intentId: p.intentId, retryOf: p.retryOf,
        })),
      );
      return { fileName: `${batch.fileName.replace(/\.[^.]+$/, '')}-results.csv`, mimeType: 'text/csv', content };
    },
    async remittance(profile, { batchId }) {
      return batchRemittance(rt, currencies, profile, batchId);
    },
    async emailRemittance(profile, { batchId, force }) {
      return emailBatchRemittance(rt, currencies, profile, batchId, force === true);
    },
    async exportApprovals(profile, { batchId }) {
      const batch = await (await rt.journalFor(profile.id)).getBatch(batchId);
      if (!batch) throw new DeskError('NOT_FOUND', `No batch ${batchId} in this profile's journal`);
      const content = exportApprovalsCsv(await approvalExportRows(rt, profile.id, { kind: 'batch', id: batchId }));
      return { fileName: `${batch.fileName.replace(/\.[^.]+$/, '')}-approvals.csv`, mimeType: 'text/csv', content };
    },
    async retryFailed(profile, { batchId, idPayouts }) {
      const engine = await rt.engineFor(profile.id);
      if (!(await engine.journal.getBatch(batchId))) throw new DeskError('NOT_FOUND', `No batch ${batchId} in this profile's journal`);
      // The engine decides per intent, in one journal transaction, and sends exactly the reviewed rows or none.
      const preparedBy = await preparedByFor(rt, profile.id);
      // A retry copies the rows from the journal: with dual control on, only rows still as their preparer signed them.
      const untrue = await rowsNotAsPrepared(rt, profile.id, { kind: 'batch', id: batchId });
      if (untrue) throw new DeskError('NOT_PREPARED', `Nothing was retried: ${untrue.replace(/^Nothing was sent: /, '')}`);
      const retry = await engine.retryFailed(batchId, idPayouts, undefined, preparedBy);
      return batchView(engine.journal, retry.id, profile.id, currencies.decimalsOf(profile.id), engine);
    },
  };
}

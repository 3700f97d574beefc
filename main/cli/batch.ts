// CLI: `batch submit|resume|pause|cancel|status|list|export|retry-failed`, over the UI's batches service
// (main/desk/batches.ts): the file (a CSV or a pain.001) goes through the same importer and checks, is refused while
// any row is invalid, and warnings (duplicates, file already submitted, bank details changed) need
// --confirm-warnings. Progress is printed until every row is final unless --no-wait.
// `retry-failed` sends again exactly the rows main marks retryable (per intent: every attempt ended
// unpaid, not retried yet) as a new batch with new ids, after a person confirmed the list (--yes).
// `submit --execute-on <date[Ttime]>` (or a file whose rows ask for a date ahead: an execute_on column, a pain.001
// ReqdExctnDt) stores the batch to be released at that time: exit 0 once stored; see `schedule`.
// Exit codes: 0 every row SUCCESS (or the batch scheduled); 1 an error, a refusal, or rows that failed; 2 a usage error (e.g.
// retry-failed with no terminal and no --yes); 3 stopped waiting (--no-wait, timeout, Ctrl-C, paused):
// the batch is journalled and `batch resume <id>` carries on.
import { type Command, InvalidArgumentError } from 'commander';
import type { BatchExportFormat, BatchResultRow, BatchView } from '../../contract/api';
import { nextStepsOf } from './approval-hints';
import { workAs } from './dual-control';
import { actingOptions, type ActingOptions } from './acting';
import { typedCommand } from './invocation';
import { fileSubmitOptions, submitValidated, validateFile, type FileSubmitOptions } from './submit-file';
import { executeOnOf, executeOnOptions, scheduleOf, type ExecuteOnOptions } from './execute-on';
import { CliUsageError, type CliDeps, type CliDesk } from './deps';
import { DeskError } from '../desk/services';
import { batchEmailedLines, remittanceMode } from './remittance-email';
import { batchStateLine } from '../../contract/state-words';
import { PENDING_EXIT, askYesNo, interrupted, intOption, plural, sleep, statusWord, table, totalsByCurrency, writeOut } from './shared';

const STOPPED_STATES = new Set(['CANCELLED', 'PAUSED', 'FAILED']);

function exportFormat(value: string): BatchExportFormat {
  const v = value.trim().toLowerCase();
  if (v === 'csv' || v === 'pain.002') return v;
  throw new InvalidArgumentError('must be csv or pain.002');
}

function progressLine(v: BatchView): string {
  const p = v.progress;
  const eta = p.etaSeconds ? `, about ${p.etaSeconds} s to send the rest` : '';
  return `  ${new Date().toISOString().slice(11, 19)}  ${p.stateWord.padEnd(10)} sent ${p.sent}/${p.total}, final ${p.done}, failed ${p.failed}, pending ${p.pending}${p.ratePerSec ? `, ${p.ratePerSec}/s` : ''}${eta}`;
}

/**
 * When the batch stopped sending, in words that do not read as "final": a batch ends its sending (or is
 * cancelled) while rows still wait for their final status; only with none pending has it ended.
 */
function finishedWords(v: BatchView): string {
  if (!v.finishedAt) return '';
  if (v.progress.pending === 0) return `, ended ${v.finishedAt}`;
  return `, ${v.progress.state === 'CANCELLED' ? 'sending cancelled' : 'sending finished'} ${v.finishedAt}`;
}

export function summaryLines(v: BatchView): string[] {
  return [
    `Batch ${v.id}  ${v.fileName}  ${batchStateLine({ word: v.progress.stateWord, reason: v.progress.stateReason })}`,
    `  created ${v.createdAt}${finishedWords(v)}; file SHA-256 ${v.sha256}`,
    ...v.totals.map((t) => `  ${t.money.currencyCode} ${t.money.amount.padStart(18)}  (${plural(t.count, 'payout')})`),
    `  ${plural(v.progress.total, 'row')}: ${v.progress.sent} sent, ${v.progress.done} final, ${v.progress.failed} failed, ${v.progress.pending} pending`,
  ];
}

/**
 * Counts per status word (the gateway status once it has the row, else the desk state: HELD,
 * UNKNOWN…), per local state, and of the retry links, from the results rows.
 */
function countsOf(rows: BatchResultRow[]) {
  const byStatus: Record<string, number> = {};
  const byLocalState: Record<string, number> = {};
  for (const r of rows) {
    byStatus[statusWord(r)] = (byStatus[statusWord(r)] ?? 0) + 1;
    byLocalState[r.localState] = (byLocalState[r.localState] ?? 0) + 1;
  }
  return {
    byStatus,
    byLocalState,
    retryable: rows.filter((r) => r.retryable).length,
    retried: rows.filter((r) => r.retriedAs).length,
    retries: rows.filter((r) => r.retryOf).length,
  };
}

/** The batch a payout is in (for "retried in batch …" / "retry of batch …"), or null. */
async function batchOf(desk: CliDesk, idPayout: string | undefined | null): Promise<string | null> {
  if (!idPayout) return null;
  return (await desk.call('payouts', 'get', { idPayout }).catch(() => null))?.batchId ?? null;
}

/** Lines about the retry links of a batch's rows (what was retried where, what may be retried now). */
async function retryLines(desk: CliDesk, batchId: string, rows: BatchResultRow[]): Promise<string[]> {
  const counts = countsOf(rows);
  const lines: string[] = [];
  if (counts.retries > 0) {
    const from = await batchOf(desk, rows.find((r) => r.retryOf)?.retryOf);
    lines.push(`  retry of: ${plural(counts.retries, 'row')} sent again from ${from ? `batch ${from}` : 'an earlier batch'} (same intents, new ids)`);
  }
  if (counts.retried > 0) {
    const into = [...new Set(await Promise.all(rows.filter((r) => r.retriedAs).map((r) => batchOf(desk, r.retriedAs))))].filter((b): b is string => b !== null);
    lines.push(`  retried: ${plural(counts.retried, 'row')} sent again${into.length > 0 ? ` in batch ${into.join(', ')}` : ''}`);
  }
  if (counts.retryable > 0) lines.push(`  retryable now: ${plural(counts.retryable, 'row')}; review and send them again with "batch retry-failed ${batchId}"`);
  return lines;
}

const rowTable = (rows: BatchResultRow[]) =>
  table([
    ['ROW', 'ID', 'STATUS', 'AMOUNT', 'CUR', 'FEE', 'RETRY', 'REASON'],
    ...rows.map((r) => [
      String(r.rowNumber), r.idPayout, statusWord(r), r.money.amount, r.money.currencyCode, r.fee?.amount ?? '-',
      r.retriedAs ? `retried as ${r.retriedAs}` : r.retryOf ? `retry of ${r.retryOf}` : r.retryable ? 'retryable' : '-',
      r.failureReason ?? '',
    ]),
  ]);

/** Prints progress until every row is final, the batch stops, the time is up or Ctrl-C; sets the exit code. */
async function follow(deps: CliDeps, desk: CliDesk, view: BatchView, timeoutSecs: number): Promise<BatchView> {
  const deadline = Date.now() + timeoutSecs * 1000;
  const signal = interrupted();
  let last = '';
  try {
    while (view.progress.pending > 0 && !STOPPED_STATES.has(view.progress.state) && Date.now() < deadline && !signal.stop) {
      const key = `${view.progress.stateWord}|${view.progress.stateReason}|${view.progress.sent}|${view.progress.done}|${view.progress.failed}`;
      if (key !== last && !deps.json()) deps.io.stdout(`${progressLine(view)}\n`);
      last = key;
      await sleep(Math.min(500, deadline - Date.now()));
      view = await desk.call('batches', 'get', { batchId: view.id });
    }
  } finally {
    signal.done();
  }
  return view;
}

/** What became of the batch, with the exit code it gives; `desk` is read only for a paused batch's reason. */
export async function outcome(deps: CliDeps, desk: CliDesk, view: BatchView, waited: boolean): Promise<string[]> {
  const p = view.progress;
  if (p.pending === 0 && p.failed === 0) return [`Done: ${p.total === 1 ? '1 payout, final' : `all ${p.total} payouts final`} and successful.`];
  if (p.pending === 0) {
    deps.setExitCode(1);
    return [`Done: ${p.failed} of ${plural(p.total, 'payout')} failed or ${p.failed === 1 ? 'was' : 'were'} refused; see "batch export ${view.id}".`];
  }
  deps.setExitCode(PENDING_EXIT);
  if (p.state === 'PAUSED') {
    const reason = (await (await desk.runtime.journalFor(desk.profile.id)).getBatch(view.id))?.pauseReason;
    const paused = `Paused${reason ? `: ${reason.replace(/\.$/, '')}` : ''}.`;
    // Under dual control, what it waits for and who acts next; "batch resume" only once it may go.
    const next = await nextStepsOf(deps, { kind: 'batch', id: view.id });
    return next.length > 0 ? [paused, ...next] : [`${paused} Continue with "${typedCommand(`batch resume ${view.id}`, deps.env)}".`];
  }
  if (p.state === 'CANCELLED') return [`Cancelled: ${plural(p.pending, 'payout')} already at the gateway ${p.pending === 1 ? 'is' : 'are'} still tracked.`];
  // Why it is not final yet: the gateway unreachable since…, nothing sending it, or the time given ran out.
  const why = p.stateReason ?? (waited ? 'the --timeout ran out or the wait was interrupted' : null);
  return [
    waited ? `Stopped waiting with ${plural(p.pending, 'payout')} not final${why ? `: ${why}` : ''}.` : `Stored; ${plural(p.pending, 'payout')} not final yet${p.stateReason ? ` (${p.stateReason})` : ''}.`,
    `Sending and tracking go on while the desk app has this profile open, or with "batch resume ${view.id}".`,
  ];
}

export function registerBatchCommands(batch: Command, deps: CliDeps): void {
  actingOptions(executeOnOptions(fileSubmitOptions(batch
    .command('submit <file>')
    .description('validate a payout CSV or an ISO 20022 pain.001 payment run (XML), refuse it if any row is invalid, store it as a batch and send it (or release it at its date: --execute-on, or the date its rows ask for)'))
    .option('--batch <id>', 'the batch id to use (letters, digits, "-" and "_"), so later commands can name it; default: a new random id')
    .option('--no-wait', 'return once the batch is stored, without printing progress')
    .option('--timeout <secs>', 'stop waiting after this many seconds', intOption('timeout'), 3600), 'the batch'))
    .action(async (file: string, o: ActingOptions & FileSubmitOptions & ExecuteOnOptions & { batch?: string; wait: boolean; timeout: number }) => {
      const executeOn = executeOnOf(o);
      const desk = deps.desk();
      await workAs(deps, o);
      const submitted = await submitValidated(deps, desk, await validateFile(deps, desk, file, o), o, o.batch, executeOn);
      const lines = submitted.lines;
      let view = submitted.view;
      // Released at its time (--execute-on, or the file's own date) by a sender desk: nothing to follow now.
      const schedule = view.progress.state === 'SCHEDULED' ? await scheduleOf(desk, 'batch', view.id) : null;
      if (schedule) {
        const next = await nextStepsOf(deps, { kind: 'batch', id: view.id }, { unlessApproved: true });
        deps.print([...lines, `Scheduled: released on ${schedule.when}; nothing was sent now.`, ...summaryLines(view), ...next, `See it with: ${typedCommand(`schedule show batch ${view.id}`, deps.env)}`], { ...view, schedule });
        return;
      }
      if (o.wait) {
        if (!deps.json()) deps.io.stdout(`${lines.splice(0).join('\n')}\n`);
        view = await follow(deps, desk, view, o.timeout);
      }
      deps.print([...lines, ...summaryLines(view), ...(await outcome(deps, desk, view, o.wait))], view);
    });

  // Dual control: --as names the sender (needed once the profile has people).
  actingOptions(batch
    .command('resume <batchId>')
    .description('carry on sending a paused or interrupted batch (same ids, nothing paid twice) and follow it')
    .option('--no-wait', 'return at once, without printing progress')
    .option('--timeout <secs>', 'stop waiting after this many seconds', intOption('timeout'), 3600))
    .action(async (batchId: string, o: ActingOptions & { wait: boolean; timeout: number }) => {
      const desk = deps.desk();
      await workAs(deps, o);
      let view = await desk.call('batches', 'resume', { batchId });
      if (o.wait) view = await follow(deps, desk, view, o.timeout);
      deps.print([...summaryLines(view), ...(await outcome(deps, desk, view, o.wait))], view);
    });

  batch
    .command('pause <batchId>')
    .description('stop sending a running batch; payouts already sent keep being tracked')
    .action(async (batchId: string) => {
      const view = await deps.desk().call('batches', 'pause', { batchId });
      deps.print(summaryLines(view), view);
    });

  batch
    .command('cancel <batchId>')
    .description('cancel the unsent rows of a batch; payouts the gateway already has stay and are tracked')
    .action(async (batchId: string) => {
      const view = await deps.desk().call('batches', 'cancel', { batchId });
      deps.print(summaryLines(view), view);
    });

  batch
    .command('status <batchId>')
    .description('progress, totals and counts per status of a batch (from the journal)')
    .option('--rows', 'list every row with its status')
    .action(async (batchId: string, o: { rows?: boolean }) => {
      const desk = deps.desk();
      const view = await desk.call('batches', 'get', { batchId });
      const rows = await desk.call('batches', 'results', { batchId });
      const counts = countsOf(rows);
      const human = [
        ...summaryLines(view),
        `  by status: ${Object.entries(counts.byStatus).map(([k, n]) => `${k} ${n}`).join(', ') || '-'}`,
        ...(await retryLines(desk, batchId, rows)),
        ...(o.rows ? rowTable(rows) : []),
      ];
      deps.print(human, { ...view, counts, ...(o.rows ? { rows } : {}) });
    });

  batch
    .command('list')
    .description('batches of this profile, newest first')
    .option('--limit <n>', 'at most this many (1-1000)', intOption('limit'), 20)
    .action(async (o: { limit: number }) => {
      const page = await deps.desk().call('batches', 'list', { limit: o.limit });
      const rows = page.items.map((b) => [b.createdAt, b.id, b.progress.stateWord, `${b.progress.done}/${b.progress.total}`, String(b.progress.failed), b.fileName]);
      deps.print(page.items.length === 0 ? ['No batches yet.'] : table([['CREATED', 'ID', 'STATE', 'FINAL', 'FAILED', 'FILE'], ...rows]), page);
    });

  batch
    .command('export <batchId>')
    .description('the results CSV of a batch: every row with its status, fee, failure reason and processing time; or, for a batch from a pain.001, its ISO 20022 pain.002 status report (--format pain.002)')
    .option('--format <format>', 'csv (the default) or pain.002: the status report per EndToEndId the ERP imports', exportFormat, 'csv')
    .option('--out <file>', 'write to this file instead of standard output')
    .option('--approvals-out <file>', 'also write the approvals sheet: each signed decision with signer, roles, time, manifest SHA-256, signature and public key')
    .option('--force', 'overwrite the --out file if it exists')
    .action(async (batchId: string, o: { format: BatchExportFormat; out?: string; approvalsOut?: string; force?: boolean }) => {
      if (o.approvalsOut && !o.out) throw new CliUsageError('--approvals-out goes with --out (standard output carries one file)');
      const file = await deps.desk().call('batches', 'exportResults', { batchId, ...(o.format === 'csv' ? {} : { format: o.format }) });
      await writeOut(deps, o.out, o.force, file, { batchId, fileName: file.fileName });
      if (o.approvalsOut) {
        const approvals = await deps.desk().call('batches', 'exportApprovals', { batchId });
        await writeOut(deps, o.approvalsOut, o.force, approvals, { batchId, fileName: approvals.fileName });
      }
    });

  batch
    .command('remittance <batchId>')
    .description("remittance advice for the batch's paid payouts: a PDF with a page per payee (--out), or a mail to each payee with theirs (--email, each payout once)")
    .option('--out <file>', 'write the PDF here')
    .option('--email', "e-mail each payee their advice through the profile's SMTP server; payouts already e-mailed are skipped")
    .option('--force', 'with --out: overwrite the file if it exists; with --email: send again the advice of payouts already e-mailed (audited)')
    .action(async (batchId: string, o: { out?: string; email?: boolean; force?: boolean }) => {
      if (remittanceMode(o) === 'email') {
        const outcome = await deps.desk().call('batches', 'emailRemittance', { batchId, ...(o.force ? { force: true } : {}) });
        deps.print(batchEmailedLines(outcome), outcome);
        if (outcome.refused.length + outcome.failed.length > 0) deps.setExitCode(1);
        return;
      }
      const file = await deps.desk().call('batches', 'remittance', { batchId });
      await writeOut(deps, o.out, o.force, file, { batchId, fileName: file.fileName, payees: file.payees, payouts: file.payouts, notPaid: file.notPaid });
      const left = file.notPaid ? `; ${plural(file.notPaid, 'payout')} not paid left out (in flight, failed or returned)` : '';
      if (!deps.json()) deps.io.stdout(`Advice for ${plural(file.payees, 'payee')}, ${plural(file.payouts, 'paid payout')}${left}\n`);
    });

  actingOptions(batch
    .command('retry-failed <batchId>')
    .description('send again, as a new batch with new ids, the rows that failed without being paid (after confirmation)')
    .option('--yes', 'send them without asking (the rows are still listed)')
    .option('--no-wait', 'return once the retry batch is stored, without printing progress')
    .option('--timeout <secs>', 'stop waiting after this many seconds', intOption('timeout'), 3600))
    .action(async (batchId: string, o: ActingOptions & { yes?: boolean; wait: boolean; timeout: number }) => {
      const desk = deps.desk();
      await workAs(deps, o);
      const rows = await desk.call('batches', 'results', { batchId });
      // Main decides per intent which rows may be sent again; the CLI never picks rows itself.
      const retry = rows.filter((r) => r.retryable);
      if (retry.length === 0) {
        const retried = rows.filter((r) => r.retriedAs).length;
        throw new DeskError('NOTHING_TO_RETRY', `Batch ${batchId} has no rows to retry${retried > 0 ? ` (${retried} already sent again)` : ''}: none failed unpaid and not retried yet; nothing was sent`);
      }
      const totals = totalsByCurrency(retry);
      const review = [
        `Batch ${batchId}: ${retry.length} of ${plural(rows.length, 'row')} failed without being paid and can be sent again (new ids, same intents):`,
        ...table([['ROW', 'ID', 'STATUS', 'AMOUNT', 'CUR', 'ACCOUNT', 'REASON'], ...retry.map((r) => [String(r.rowNumber), r.idPayout, statusWord(r), r.money.amount, r.money.currencyCode, r.accountName, r.failureReason ?? ''])]).map((l) => `  ${l}`),
        'Total to send again:',
        ...totals.map((t) => `  ${t.currencyCode} ${t.amount.padStart(18)}  (${plural(t.count, 'payout')})`),
      ];
      // The list goes to stderr with --json so that standard output holds only the JSON result.
      const show = (text: string) => (deps.json() ? deps.io.stderr(text) : deps.io.stdout(text));
      show(`${review.join('\n')}\n`);
      if (!o.yes) {
        const yes = await askYesNo(deps, retry.length === 1 ? 'Send this payout again?' : `Send these ${retry.length} payouts again?`);
        if (yes === null) throw new CliUsageError(`Not confirmed: no terminal to ask on. Review the rows above and run again with --yes to send them; nothing was sent`);
        if (!yes) throw new DeskError('NOT_CONFIRMED', 'Not confirmed; nothing was sent');
      }
      let view = await desk.call('batches', 'retryFailed', { batchId, idPayouts: retry.map((r) => r.idPayout) });
      const links = (await desk.call('batches', 'results', { batchId: view.id })).map((r) => ({ rowNumber: r.rowNumber, idPayout: r.idPayout, retryOf: r.retryOf }));
      const lines = [
        `Retry batch ${view.id} submitted: ${plural(view.progress.total, 'payout')} sent again from batch ${batchId}`,
        ...links.map((l) => `  row ${l.rowNumber}: ${l.retryOf ?? '?'} -> ${l.idPayout}`),
      ];
      if (o.wait) {
        if (!deps.json()) deps.io.stdout(`${lines.splice(0).join('\n')}\n`);
        view = await follow(deps, desk, view, o.timeout);
      }
      deps.print([...lines, ...summaryLines(view), ...(await outcome(deps, desk, view, o.wait))], { ...view, retryOfBatch: batchId, rows: links });
    });
}

// CLI: `payouts create|get|list|release|discard`, over the same payouts and history services as the UI
// (main/desk/payouts.ts): validate (domain rules, id fixed) → create (journalled, sent once) →
// optionally wait for a final status. Amounts stay decimal strings; no float ever touches them.
// A payout that cannot be sent for a reason a person must fix (key not registered, credentials
// refused…) is kept HELD under its id: `payouts release <id>` sends it after the fix, `payouts discard
// <id>` drops it (final, never sent).
// `create --execute-on <date[Ttime]>` stores it and releases it at that time (the calendar): exit 0 once stored.
// Exit codes: 0 accepted (or, with --wait, SUCCESS; release/discard done); 1 an error, a refusal or a
// failed payout; 3 not done yet (gateway unreachable, outcome unknown, or --wait timed out): the payout
// is journalled, run again with --id; 4 HELD: nothing was sent, a person must release or discard it.
// On a LIVE profile `create` asks for a confirmation first (--yes skips it; with no terminal and no
// --yes it refuses, exit 2): real money leaves the account.
import { randomUUID } from 'node:crypto';
import { paymentStateText } from '../../contract/state-words';
import { type Command } from 'commander';
import type { PaymentDetail, PayoutInput, PayoutPreview } from '../../contract/api';
import { CliHeldError, CliUsageError, type CliDeps, type CliDesk } from './deps';
import { nextStepsOf } from './approval-hints';
import { workAs } from './dual-control';
import { actingOptions, type ActingOptions } from './acting';
import { typedCommand, type Env } from './invocation';
import { parseMinor } from '../domain/money';
import { DeskError } from '../desk/services';
import { payeeService } from '../desk/payees';
import { emailedLines, remittanceMode } from './remittance-email';
import { executeOnOf, executeOnOptions, scheduleOf, type ExecuteOnOptions } from './execute-on';
import { PENDING_EXIT, addFilterOptions, askYesNo, currencyCode, filtersFrom, interrupted, intOption, sleep, statusWord, table, type FilterOptions, writeOut } from './shared';

const LOCAL_END_STATES = new Set(['REJECTED', 'CANCELLED', 'MISMATCH', 'DISCARDED']);

// ---- a payout as text ----------------------------------------------------------------------------

const money = (m: { amount: string; currencyCode: string } | null) => (m ? `${m.amount} ${m.currencyCode}` : '-');

export function detailLines(d: PaymentDetail): string[] {
  const label = d.kind === 'payout' ? 'Payout' : 'Payin';
  return [
    `${label} ${d.id}  ${statusWord(d)}${d.final ? ' (final)' : ''}${d.isTest ? '  TEST' : ''}`,
    `  State:      ${paymentStateText(d.localState, d.status)}`,
    `  Amount:     ${money(d.money)}   fee ${money(d.fee)}`,
    `  Account:    ${d.accountName}, ${d.accountNumber}   e-mail ${d.emailAddress}`,
    `  Created:    ${d.createdAt}   updated ${d.updatedAt}${d.processedAt ? `   processed ${d.processedAt}` : ''}`,
    ...(d.batchId ? [`  Batch:      ${d.batchId}`] : []),
    ...(d.failureReason ? [`  Failure:    ${d.failureReason}`] : []),
    ...(d.reason ? [`  Reason:     ${d.reason}`] : []),
    ...(d.intentId ? [`  Intent:     ${d.intentId}`] : []),
    ...(d.retryOf ? [`  Retry of:   ${d.retryOf}`] : []),
    ...(d.retriedAs ? [`  Retried as: ${d.retriedAs}`] : []),
    ...(d.attempts.length > 0
      ? [`Attempts of this intent (${d.attempts.length}, oldest first; * this one):`, ...table(d.attempts.map((a) => [a.idPayout === d.id ? '*' : ' ', a.idPayout, statusWord(a), a.createdAt])).map((l) => `  ${l}`)]
      : []),
    'Status history:',
    ...d.events.map((e) => `  ${e.observedAt}  ${e.status.padEnd(12)} ${e.source}`),
  ];
}

const heldLine = (idPayout: string) => `Payout ${idPayout} is kept as HELD under its id: nothing was sent, and it will not be sent until a person acts.`;

/** What to do with a held payout, as command lines. */
export function heldHints(idPayout: string, env?: Env): string[] {
  return [
    heldLine(idPayout),
    'Fix the cause, then either send it (same id, paid at most once):',
    `  ${typedCommand(`payouts release ${idPayout}`, env)}`,
    'or drop it (final, never sent):',
    `  ${typedCommand(`payouts discard ${idPayout} --reason "<why>"`, env)}`,
  ];
}

/** Held for approvals: who can still give them and the approver's command, not "release" (it would be held again). */
async function heldHintsFor(deps: CliDeps, idPayout: string): Promise<string[]> {
  const waiting = await nextStepsOf(deps, { kind: 'payout', id: idPayout }, { unlessApproved: true });
  return waiting.length > 0 ? [heldLine(idPayout), ...waiting] : heldHints(idPayout, deps.env);
}

/** A PAYOUT_HELD answer of the services, as the CLI's held error (message kept exactly). */
async function heldError(deps: CliDeps, error: unknown, idPayout: string): Promise<unknown> {
  return error instanceof DeskError && error.code === 'PAYOUT_HELD' ? new CliHeldError(error.message, idPayout, await heldHintsFor(deps, idPayout)) : error;
}

/**
 * The services give no reason for a DISCARDED payout; the journal keeps who dropped it and why, so
 * the human output shows it too.
 */
async function withDiscardNote(desk: CliDesk, d: PaymentDetail): Promise<PaymentDetail> {
  if (d.reason || d.localState !== 'DISCARDED') return d;
  const note = (await (await desk.runtime.journalFor(desk.profile.id)).getPayment('payout', d.id))?.lastError;
  return note ? { ...d, reason: `Discarded, never sent: ${note}` } : d;
}

/** The first line about a payout after create or release, in the one status vocabulary. */
function stateLine(d: PaymentDetail): string {
  const word = statusWord(d);
  if (d.localState === 'ACCEPTED') return `Payout ${d.id}: ${word} (the gateway has it)`;
  if (d.localState === 'UNKNOWN') return `Payout ${d.id}: UNKNOWN (no definitive answer from the gateway; it is checked with GET and never sent under a new id)`;
  if (d.localState === 'QUEUED' || d.localState === 'SENDING') return `Payout ${d.id}: ${word} (not at the gateway yet)`;
  return `Payout ${d.id}: ${word}`;
}

/** Exit code and closing lines for a payout that is not final and not at the gateway yet. */
function notYetLines(deps: CliDeps, d: PaymentDetail): string[] {
  if (d.localState === 'QUEUED' || d.localState === 'SENDING') {
    deps.setExitCode(PENDING_EXIT);
    return [`Not sent yet: the gateway did not answer${d.reason ? ` (${d.reason})` : ''}. It stays queued with its id; run again with --id ${d.id} to send it.`];
  }
  if (d.localState === 'UNKNOWN' || d.localState === 'MISSING') {
    deps.setExitCode(PENDING_EXIT);
    return [...(d.reason ? [`  ${d.reason}`] : []), `Check later with: payouts get ${d.id}`];
  }
  return [];
}

const ended = (d: PaymentDetail) => d.final || LOCAL_END_STATES.has(d.localState);

/**
 * Waits until the payout is at the gateway ('accepted') or final ('final'), reading it from the
 * gateway every `everyMs` through the engine's poller (the same path as the background poll).
 */
async function waitFor(desk: CliDesk, id: string, until: 'accepted' | 'final', timeoutMs: number, onEvent: (line: string) => void): Promise<PaymentDetail> {
  const engine = await desk.runtime.engineFor(desk.profile.id);
  const deadline = Date.now() + timeoutMs;
  const signal = interrupted();
  let detail = await desk.call('payouts', 'get', { idPayout: id });
  let shown = detail.events.length;
  try {
    const reached = (d: PaymentDetail) => ended(d) || (until === 'accepted' && d.localState === 'ACCEPTED');
    while (!reached(detail) && Date.now() < deadline && !signal.stop) {
      await sleep(Math.min(until === 'final' ? 2_000 : 250, deadline - Date.now()));
      // Offline or refused for a moment: keep waiting; the journal keeps the last known status.
      if (until === 'final' && detail.localState === 'ACCEPTED') await engine.refreshPayment('payout', id).catch(() => undefined);
      detail = await desk.call('payouts', 'get', { idPayout: id });
      for (const e of detail.events.slice(shown)) onEvent(`  ${e.observedAt}  ${e.status.padEnd(12)} ${e.source}`);
      shown = detail.events.length;
    }
  } finally {
    signal.done();
  }
  return detail;
}

/** A rerun with a known --id must describe the same payment; otherwise the id is a mistake. */
function sameDetails(d: PaymentDetail, input: PayoutInput): boolean {
  const decimals = d.money.amount.split('.')[1]?.length ?? 0;
  try {
    return d.money.currencyCode === input.currencyCode && parseMinor(d.money.amount, decimals) === parseMinor(input.amount, decimals)
      && d.accountNumber === input.accountNumber.trim() && d.accountName === input.accountName.trim();
  } catch {
    return false;
  }
}

/** Real money on a LIVE profile: a person says yes first, or the command was given --yes. */
async function confirmLive(deps: CliDeps, desk: CliDesk, p: Pick<PayoutPreview, 'money' | 'accountName' | 'accountNumber' | 'paymentOperatorCode'>, on?: string): Promise<void> {
  const question = `LIVE profile ${desk.profile.id} "${desk.profile.name}": send ${money(p.money)} to ${p.accountName}, ${p.accountNumber} (${p.paymentOperatorCode})${on ? ` on ${on.replace('T', ' ')}` : ''}?`;
  const yes = await askYesNo(deps, question);
  if (yes === null) throw new CliUsageError(`Not confirmed: ${desk.profile.id} is a LIVE profile and there is no terminal to ask on. Check the payout and run again with --yes to send it; nothing was sent`);
  if (!yes) throw new DeskError('NOT_CONFIRMED', 'Not confirmed; nothing was sent');
}

/**
 * `payouts create --payee`: the payee's details in force in the payee book fill the beneficiary options
 * (--reference, if given, wins over the reference default). Without --payee all four are needed.
 */
async function fromPayeeBook(deps: CliDeps, o: { payee?: string; accountName?: string; accountNumber?: string; operator?: string; email?: string; reference?: string }): Promise<void> {
  const own = [o.accountName, o.accountNumber, o.operator, o.email];
  if (!o.payee) {
    if (own.some((v) => v === undefined)) throw new CliUsageError('Give --account-name, --account-number, --operator and --email, or --payee <payee> from the payee book');
    return;
  }
  if (own.some((v) => v !== undefined)) throw new CliUsageError('--payee takes the beneficiary from the payee book: give no --account-name, --account-number, --operator or --email with it');
  const payee = await payeeService(deps.runtime()).find(deps.profile().id, o.payee);
  if (payee.state !== 'in force') throw new CliUsageError(`${payee.name} is not in force in the payee book (${payee.state}); nothing was sent`);
  Object.assign(o, { accountName: payee.name, accountNumber: payee.accountNumber, operator: payee.operatorCode, email: payee.emailAddress });
  if (o.reference === undefined && payee.referenceDefault) o.reference = payee.referenceDefault;
}

export function registerPayoutCommands(program: Command, deps: CliDeps): void {
  const payouts = program.command('payouts').description('single payouts: create, get, list');

  const create = payouts
    .command('create')
    .description('validate, journal (id fixed first) and send one payout; the same --id is never paid twice')
    .requiredOption('--amount <decimal>', 'amount in major units, a plain decimal such as 1250.50')
    .requiredOption('--currency <code>', 'currency code, e.g. EUR', currencyCode)
    .option('--payee <payee>', 'a payee of the payee book (id or name): its name, account, operator, e-mail and reference default, instead of the four options below')
    .option('--account-name <name>', 'beneficiary name')
    .option('--account-number <number>', 'beneficiary account number (e.g. IBAN)')
    .option('--operator <code>', 'payment operator code (see "operators")')
    .option('--email <address>', 'beneficiary e-mail address')
    .option('--method <code>', 'payment method code', 'BANK_TRANSFER')
    .option('--callback-url <url>', 'status callback URL (default: the profile setting)')
    .option('--id <idPayout>', 'payout id (default: a new UUID); run again with the same id to resume, never to pay twice')
    .option('--reference <text>', 'your reference, kept in the journal (never sent)')
    .option('--wait', 'wait until the gateway reports a final status (exit 1 unless SUCCESS)')
    .option('--timeout <secs>', 'with --wait: stop waiting after this many seconds', intOption('timeout'), 300)
    .option('--yes', 'on a LIVE profile: send without asking for a confirmation')
    .option('--confirm-duplicate', 'send although a payout to the same account, of the same amount and currency, was made in the last days (Settings: repeat window); only for a separate payment');
  executeOnOptions(create, 'the payout');
  // Dual control: --as names the person preparing it (needed once the profile has people).
  actingOptions(create)
    .action(async (o: ActingOptions & ExecuteOnOptions & { payee?: string; amount: string; currency: string; accountName: string; accountNumber: string; operator: string; email: string; method: string; callbackUrl?: string; id?: string; reference?: string; wait?: boolean; timeout: number; yes?: boolean; confirmDuplicate?: boolean }) => {
      const executeOn = executeOnOf(o);
      if (executeOn && o.wait) throw new CliUsageError('--wait follows a payout sent now; one with --execute-on leaves at its time (see "schedule show payout <id>")');
      await fromPayeeBook(deps, o);
      const desk = deps.desk();
      await workAs(deps, o);
      const input: PayoutInput = {
        amount: o.amount.trim(), currencyCode: o.currency, accountName: o.accountName, accountNumber: o.accountNumber,
        paymentOperatorCode: o.operator, paymentMethodCode: o.method, emailAddress: o.email,
        ...(o.callbackUrl ? { callbackUrl: o.callbackUrl } : {}), ...(o.id !== undefined ? { idPayout: o.id } : {}), ...(o.reference ? { reference: o.reference } : {}),
      };
      const checked = await desk.call('payouts', 'validate', input);
      const known = !checked.valid && o.id !== undefined && checked.issues.every((i) => i.code === 'ID_EXISTS');
      // Scheduled: today's balance does not decide it (the forecast of "schedule list" shows its day's).
      const fundedLater = !checked.valid && executeOn !== undefined && checked.issues.every((i) => i.code === 'INSUFFICIENT_BALANCE');
      if (!checked.valid && !known && !fundedLater) {
        const issues = checked.issues.map((i) => `${i.field}: ${i.message}`).join('; ');
        throw new DeskError('VALIDATION', `The payout is not valid; nothing was sent. ${issues}`, false, checked.issues);
      }
      let detail: PaymentDetail;
      const lines: string[] = [];
      if (known) {
        detail = await desk.call('payouts', 'get', { idPayout: o.id! });
        if (!sameDetails(detail, input)) throw new DeskError('ID_EXISTS', `payout ${o.id} is already in the journal with other details (${money(detail.money)} to ${detail.accountNumber}); nothing was sent`);
        // Waiting for its release time: held by its schedule, not for a person to fix.
        const waiting = await scheduleOf(desk, 'payout', detail.id);
        if (waiting && (waiting.state === 'SCHEDULED' || waiting.state === 'LATE')) {
          deps.print([`Payout ${detail.id} is already in the journal, scheduled: released on ${waiting.when} (${waiting.state}); it is not stored a second time.`], { ...detail, schedule: waiting });
          return;
        }
        if (detail.localState === 'HELD') throw new CliHeldError(`Payout ${detail.id} is already in the journal and is held: ${detail.reason ?? 'a person must act'}`, detail.id, await heldHintsFor(deps, detail.id));
        lines.push(`Payout ${detail.id} is already in the journal; it is not sent a second time.`);
        // Interrupted before the gateway had it: the engine's recovery sends it now, with the same id.
        if (detail.localState === 'QUEUED' || detail.localState === 'SENDING') detail = await waitFor(desk, detail.id, 'accepted', 15_000, () => undefined);
      } else {
        const idPayout = checked.preview?.idPayout ?? o.id ?? randomUUID();
        const duplicate = checked.possibleDuplicate;
        if (duplicate && !o.confirmDuplicate) {
          throw new DeskError('POSSIBLE_DUPLICATE', `The payout was not sent: ${duplicate.message}. If it is a separate payment, run the command again with --confirm-duplicate.`, false, [{ field: 'amount', code: 'POSSIBLE_DUPLICATE', message: duplicate.message }]);
        }
        if (desk.profile.environment === 'LIVE' && !o.yes) await confirmLive(deps, desk, checked.preview ?? { money: { amount: input.amount, currencyCode: input.currencyCode }, ...input }, executeOn?.local);
        detail = await desk.call('payouts', 'create', { ...input, idPayout, ...(duplicate ? { confirmPossibleDuplicate: true } : {}), ...(executeOn ? { executeOn } : {}) }).catch(async (error: unknown) => {
          throw await heldError(deps, error, idPayout);
        });
        if (executeOn) {
          const schedule = await scheduleOf(desk, 'payout', idPayout);
          deps.print(
            [
              `Payout ${idPayout} scheduled: released on ${schedule?.when ?? executeOn.local}; nothing was sent now.`,
              `  ${money(detail.money)} to ${detail.accountName}, ${detail.accountNumber}`,
              // Under dual control it is approved before its time, or it waits at its time.
              ...(await nextStepsOf(deps, { kind: 'payout', id: idPayout }, { unlessApproved: true })),
              `See it with: ${typedCommand(`schedule show payout ${idPayout}`, deps.env)}`,
            ],
            { ...detail, schedule },
          );
          return;
        }
      }
      lines.push(stateLine(detail));
      lines.push(`  ${money(detail.money)} to ${detail.accountName}, ${detail.accountNumber}`);
      if (o.wait && !ended(detail) && detail.localState !== 'QUEUED') {
        if (!deps.json()) deps.io.stdout(`${lines.splice(0).join('\n')}\nWaiting for a final status…\n`);
        detail = await waitFor(desk, detail.id, 'final', o.timeout * 1000, (line) => !deps.json() && deps.io.stdout(`${line}\n`));
      }
      const notYet = notYetLines(deps, detail);
      if (notYet.length > 0) {
        lines.push(...notYet);
      } else if (ended(detail)) {
        lines.push(`Final: ${statusWord(detail)}${detail.fee ? `, fee ${money(detail.fee)}` : ''}${detail.failureReason ? ` (${detail.failureReason})` : ''}`);
        if (detail.status !== 'SUCCESS') deps.setExitCode(1);
      } else if (o.wait) {
        lines.push(`Still ${statusWord(detail)} after ${o.timeout} s; check later with: payouts get ${detail.id} --refresh`);
        deps.setExitCode(PENDING_EXIT);
      }
      deps.print(lines, detail);
    });

  payouts
    .command('get <idPayout>')
    .description('one payout from the journal with its status history')
    .option('--refresh', 'read its status from the gateway first (when the gateway has it, or it went missing)')
    .action(async (idPayout: string, o: { refresh?: boolean }) => {
      const desk = deps.desk();
      let detail = await desk.call('payouts', 'get', { idPayout });
      if (o.refresh && (detail.localState === 'ACCEPTED' || detail.localState === 'MISSING')) {
        await (await desk.runtime.engineFor(desk.profile.id)).refreshPayment('payout', idPayout);
        detail = await desk.call('payouts', 'get', { idPayout });
      }
      deps.print(detailLines(await withDiscardNote(desk, detail)), detail);
    });

  payouts
    .command('remittance <idPayout>')
    .description("remittance advice (PDF) for the payee of a paid payout: saved (--out), or e-mailed to the payout's address (--email, once)")
    .option('--out <file>', 'write the PDF here')
    .option('--email', "e-mail it to the payee through the profile's SMTP server (profiles smtp set); refused if already e-mailed")
    .option('--force', 'with --out: overwrite the file if it exists; with --email: send again an advice already e-mailed (audited)')
    .action(async (idPayout: string, o: { out?: string; email?: boolean; force?: boolean }) => {
      if (remittanceMode(o) === 'email') {
        const sent = await deps.desk().call('payouts', 'emailRemittance', { idPayout, ...(o.force ? { force: true } : {}) });
        deps.print(emailedLines(sent), sent);
        return;
      }
      const file = await deps.desk().call('payouts', 'remittance', { idPayout });
      await writeOut(deps, o.out, o.force, file, { idPayout, fileName: file.fileName });
    });

  addFilterOptions(payouts.command('list').description('payouts from the journal, newest first'))
    .option('--limit <n>', 'at most this many (1-1000)', intOption('limit'), 50)
    .action(async (o: FilterOptions & { limit: number }) => {
      const page = await deps.desk().call('history', 'query', { filters: filtersFrom(o, ['payout']), sort: { field: 'createdAt', direction: 'desc' }, limit: o.limit });
      const rows = page.items.map((r) => [r.createdAt, r.id, statusWord(r), r.money.amount, r.money.currencyCode, r.accountName, r.batchId ?? '-']);
      deps.print(
        page.items.length === 0 ? ['No payouts match.'] : [...table([['CREATED', 'ID', 'STATUS', 'AMOUNT', 'CUR', 'ACCOUNT', 'BATCH'], ...rows]), `${page.items.length} of ${page.total}${page.totalCapped ? '+' : ''} shown`],
        page,
      );
    });

  // Dual control: --as names the sender (needed once the profile has people).
  actingOptions(payouts
    .command('release <idPayout>')
    .description('send a HELD payout after its cause was fixed (same id; held again if it still cannot be sent)'))
    .action(async (idPayout: string, o: ActingOptions) => {
      const desk = deps.desk();
      await workAs(deps, o);
      const detail = await desk.call('payouts', 'release', { idPayout }).catch(async (error: unknown) => {
        throw await heldError(deps, error, idPayout);
      });
      const lines = [`Released payout ${detail.id}.`, stateLine(detail), `  ${money(detail.money)} to ${detail.accountName}, ${detail.accountNumber}`, ...notYetLines(deps, detail)];
      if (ended(detail) && detail.localState !== 'ACCEPTED') deps.setExitCode(1);
      deps.print(lines, detail);
    });

  payouts
    .command('discard <idPayout>')
    .description('drop a HELD payout: it is never sent (DISCARDED, final)')
    .option('--reason <text>', 'why it is dropped (kept in the journal and the audit log)')
    .action(async (idPayout: string, o: { reason?: string }) => {
      const desk = deps.desk();
      const reason = o.reason?.trim();
      const detail = await desk.call('payouts', 'discard', { idPayout, ...(reason ? { reason } : {}) });
      const shown = await withDiscardNote(desk, detail);
      deps.print([`Payout ${detail.id}: ${statusWord(detail)}${detail.final ? ' (final)' : ''}; it was never sent.`, `  ${money(detail.money)} to ${detail.accountName}, ${detail.accountNumber}`, ...(shown.reason ? [`  ${shown.reason}`] : [])], detail);
    });
}

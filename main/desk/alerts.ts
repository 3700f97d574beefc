// Alerts for whoever must act, at the desk where their key is: something waits for my approval (who prepared it,
// its total), my batch paused or finished with failures, a payout of mine held, returned or missing. They follow
// the desk's events, which a team desk also raises for what another desk did (remote-changes.ts), so each person
// hears of it at their own desk. One event alerts a person once (AlertMemory, across restarts), and a person can
// mute kinds. The desk-wide notifications (main/shell/notifications.ts) stay as they were for a desk without people.
import type { AlertKind, ApprovalItem, BatchProgress, DeskNotification, PaymentStatusChanged } from '../../contract/api';
import { AlertMemory } from './alert-memory';
import type { ScheduleRef } from '../../contract/api';
import { decimalOf } from '../approvals/manifest';
import { manifestDecimals } from '../approvals/gate';
import { describeExecution, localDate } from '../schedules/execution';
import { fundingForecast, type ForecastLine } from '../schedules/forecast';
import { profileZone, scheduledTotals } from './schedules';
import { startAlertDigests } from './alert-digest';
import { approvalsService } from './approvals';
import { dualControlService, type DualControlService, type PersonView } from './dual-control';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';

export type { AlertKind } from '../../contract/api';

export const ALERT_LABELS: Record<AlertKind, string> = {
  'approval-waiting': 'Something waits for my approval',
  'batch-paused': 'A batch I prepared paused',
  'batch-failures': 'A batch I prepared finished with failures',
  'payout-held': 'A payout I prepared was held',
  'payout-returned': 'A payout I prepared was returned',
  'payout-missing': 'A payout I prepared is missing at the gateway',
  'schedule-short': 'A scheduled run I prepared will be short of funds',
  'schedule-late': 'A scheduled run waits for a late release to be confirmed',
};

export interface Alert extends DeskNotification {
  kind: AlertKind;
  personId: string;
  profileId: string;
}

export interface AlertsDeps {
  rt: DeskRuntime;
  dc: DualControlService;
  approvals: Pick<ProfileAreaService<'approvals'>, 'queue'>;
  memory: AlertMemory;
  /** Shows the alert (a desktop notification, and the window's event). */
  deliver: (alert: Alert) => void;
  /** How long events are gathered before the approvals queue is read again. */
  settleMs?: number;
  now?: () => number;
}

export interface Alerts {
  /** Runs the checks the events asked for now, and resolves when they are done (tests, shutdown). */
  flush(): Promise<void>;
  stop(): void;
}

const moneyText = (item: ApprovalItem) => item.totals.map((t) => `${t.money.amount} ${t.money.currencyCode}`).join(' + ') || 'no amount';

export function startAlerts(deps: AlertsDeps): Alerts {
  const { rt, dc, memory } = deps;
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  /** People of the profile whose key is on this desk: the ones this desk alerts. */
  const localPeople = async (profileId: string): Promise<PersonView[]> => {
    if (!(await dc.policy(profileId)).enforced) return [];
    return (await dc.listPeople(profileId)).filter((p) => p.keyOnThisMachine && p.revokedAt === null);
  };

  const give = (profileId: string, person: PersonView, kind: AlertKind, key: string, note: DeskNotification): void => {
    if (memory.muted(profileId, person.id).includes(kind)) return;
    if (!memory.firstTime(profileId, person.id, `${kind}:${key}`)) return;
    deps.deliver({ ...note, kind, personId: person.id, profileId });
    memory.queueForDigest(profileId, person.id, person.name, { at: (deps.now ?? Date.now)(), kind, title: note.title, body: note.body });
  };

  const checkQueue = async (profileId: string): Promise<void> => {
    const people = await localPeople(profileId);
    if (people.length === 0) return;
    const items = await deps.approvals.queue(rt.ctx.profiles.get(profileId));
    for (const item of items) {
      if (item.state !== 'waiting' || !item.stillNeeded) continue;
      const from = new Set(item.stillNeeded.from.map((p) => p.id));
      for (const person of people.filter((p) => from.has(p.id))) {
        give(profileId, person, 'approval-waiting', `${item.subject.kind}:${item.subject.id}:${item.preparedAt ?? ''}`, {
          level: 'info',
          title: `Waits for your approval, ${person.name}`,
          body: `${item.subject.kind === 'batch' ? 'Batch' : 'Payout'} ${item.title}: ${moneyText(item)}${item.preparedBy ? `, prepared by ${item.preparedBy.name}` : ''}`,
        });
      }
    }
  };

  /** The person who prepared the batch or payout, when their key is on this desk. */
  const preparerHere = async (profileId: string, kind: 'batch' | 'payout', id: string): Promise<PersonView | null> => {
    const people = await localPeople(profileId);
    if (people.length === 0) return null;
    const prep = await (await rt.journalFor(profileId)).preparation(kind, id);
    return people.find((p) => p.id === prep?.preparedBy) ?? null;
  };

  const onBatch = async (profileId: string, progress: BatchProgress): Promise<void> => {
    if (progress.state === 'PAUSED') {
      const person = await preparerHere(profileId, 'batch', progress.batchId);
      const reason = progress.stateReason ?? 'paused';
      if (person) give(profileId, person, 'batch-paused', `${progress.batchId}:${reason}`, { level: 'warning', title: 'Your batch paused', body: `Batch ${progress.batchId}: ${reason}` });
      return;
    }
    if (progress.state === 'COMPLETED' && progress.pending === 0 && progress.failed > 0) {
      const person = await preparerHere(profileId, 'batch', progress.batchId);
      if (person) give(profileId, person, 'batch-failures', `${progress.batchId}:${progress.failed}`, { level: 'warning', title: 'Your batch finished with failures', body: `Batch ${progress.batchId}: ${progress.failed} of ${progress.total} failed` });
    }
  };

  const PAYMENT_ALERTS: Record<string, { kind: AlertKind; title: string; body: (id: string) => string }> = {
    HELD: { kind: 'payout-held', title: 'Your payout was held', body: (id) => `Payment ${id} was not sent: open it to see why` },
    RETURNED: { kind: 'payout-returned', title: 'Your payout was returned', body: (id) => `Payment ${id} was paid and then returned by the bank` },
    MISSING: { kind: 'payout-missing', title: 'Your payout is missing at the gateway', body: (id) => `The gateway accepted payment ${id} and now says it does not know it` },
  };

  const onPayment = async (profileId: string, change: PaymentStatusChanged): Promise<void> => {
    const alert = change.kind === 'payout' ? PAYMENT_ALERTS[change.status.toUpperCase()] : undefined;
    if (!alert) return;
    // A payout waiting for its date is held by its schedule, not by a refusal: nothing to fix (a team's other desks
    // hear of it as HELD).
    if (alert.kind === 'payout-held') {
      const schedule = await (await rt.journalFor(profileId)).schedule('payout', change.id);
      if (schedule && (schedule.state === 'SCHEDULED' || schedule.state === 'LATE')) return;
    }
    const person = (await preparerHere(profileId, 'payout', change.id)) ?? (change.batchId ? await preparerHere(profileId, 'batch', change.batchId) : null);
    if (person) give(profileId, person, alert.kind, change.id, { level: 'warning', title: alert.title, body: alert.body(change.id) });
  };

  /**
   * The calendar: the preparer of each run still to be released on a day its currency is short ("EUR short by
   * 12000.00 on 2026-12-28"; once per run and shortfall), and, for a run found past its late window, its preparer and
   * the senders at this desk (a sender confirms it).
   */
  const checkCalendar = async (profileId: string, late: ScheduleRef | null): Promise<void> => {
    const people = await localPeople(profileId);
    if (people.length === 0) return;
    const journal = await rt.journalFor(profileId);
    if (late) {
      const s = await journal.schedule(late.kind, late.id);
      const prep = await journal.preparation(late.kind, late.id);
      const what = `${late.kind === 'batch' ? 'Batch' : 'Payout'} ${late.id}`;
      for (const person of people.filter((p) => p.id === prep?.preparedBy || p.roles.includes('sender'))) {
        give(profileId, person, 'schedule-late', `${late.kind}:${late.id}:${s?.at ?? ''}`, {
          level: 'warning', title: 'A scheduled run waits for you', body: `${what} was due ${s ? describeExecution(s) : ''} and is past its late window: a sender confirms its release, or it is moved or cancelled`,
        });
      }
    }
    const zone = profileZone(rt.ctx.profiles.get(profileId));
    const short = new Map<string, ForecastLine>();
    const totals = await scheduledTotals(journal);
    const available = new Map((await journal.latestBalances()).map((b) => [b.currencyCode, b.availableMinor]));
    for (const line of fundingForecast(totals, available, (at) => localDate(at, zone))) if (line.shortByMinor > 0) short.set(`${line.date}:${line.currencyCode}`, line);
    if (short.size === 0) return;
    for (const t of totals) {
      const line = short.get(`${localDate(t.at, zone)}:${t.currencyCode}`);
      if (!line) continue;
      const prep = await journal.preparation(t.subject.kind, t.subject.id);
      const person = people.find((p) => p.id === prep?.preparedBy);
      if (!person) continue;
      const shortBy = decimalOf(line.shortByMinor, manifestDecimals(line.currencyCode));
      give(profileId, person, 'schedule-short', `${t.subject.kind}:${t.subject.id}:${line.currencyCode}:${line.shortByMinor}`, {
        level: 'warning', title: 'A scheduled run will be short of funds',
        body: `${t.subject.kind === 'batch' ? 'Batch' : 'Payout'} ${t.subject.id} on ${line.date}: ${line.currencyCode} short by ${shortBy} (the balance last read against what is due by then)`,
      });
    }
  };

  /** One check after another: alerts never race each other for the memory or the journal. */
  const serial = (work: () => Promise<void>): void => {
    running = running.then(work).catch((error: unknown) => rt.log.warn('an alert could not be worked out', { error }));
  };

  const queueCheck = (profileId: string): void => {
    pending.add(profileId);
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      runPending();
    }, deps.settleMs ?? 500);
    timer.unref();
  };
  const runPending = (): void => {
    const ids = [...pending];
    pending.clear();
    for (const id of ids) serial(() => checkQueue(id));
  };

  const current = (): string | null => rt.ctx.profiles.currentId();
  const offs = [
    rt.events.on('approvalsChanged', (e) => {
      if (!stopped) queueCheck(e.profileId);
    }),
    rt.events.on('batchProgress', (progress) => {
      const profileId = current();
      if (stopped || !profileId) return;
      serial(() => onBatch(profileId, progress));
      // A batch paused by the gate waits for approvals.
      if (progress.state === 'PAUSED') queueCheck(profileId);
    }),
    rt.events.on('schedulesChanged', (e) => {
      if (!stopped) serial(() => checkCalendar(e.profileId, e.change === 'late' ? e.subject : null));
    }),
    rt.events.on('paymentStatusChanged', (change) => {
      const profileId = current();
      if (stopped || !profileId) return;
      serial(() => onPayment(profileId, change));
      if (change.status.toUpperCase() === 'HELD') queueCheck(profileId);
    }),
  ];

  return {
    async flush() {
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      runPending();
      await running;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      for (const off of offs) off();
    },
  };
}

/** The alerts of the desk's runtime, remembered in its data folder (main/index.ts shows them), and their e-mail digests. */
export function startDeskAlerts(rt: DeskRuntime, deliver: (alert: Alert) => void): Alerts {
  const dc = dualControlService(rt);
  const memory = AlertMemory.inHome(rt.ctx.home);
  const alerts = startAlerts({ rt, dc, approvals: approvalsService(rt, dc), memory, deliver });
  const digests = startAlertDigests(rt, memory);
  return {
    flush: () => alerts.flush(),
    stop() {
      digests.stop();
      alerts.stop();
    },
  };
}

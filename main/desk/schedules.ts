// The calendar as the screens and the CLI see it (contract: SchedulesContract): scheduled payouts and batches with
// their totals and states, the funding forecast, and the acts before release: move (its preparer signs it again, so
// it is approved again), cancel, and confirm a release past the late window (a sender's act). The release itself is
// the engine's (engine/schedule-releases.ts) and the rule that nothing leaves early is the approval gate's.
import type { ExecuteOn, ForecastLineView, ScheduleList, ScheduleView } from '../../contract/api';
import type { DeskJournal } from '../journal';
import type { Profile } from '../profiles/profile-schema';
import { describeExecution, ExecutionError, executionOf, lateText, localDate, systemZone, type Execution } from '../schedules/execution';
import { fundingForecast, type ScheduledTotal } from '../schedules/forecast';
import type { ScheduleRecord, ScheduledKind } from '../schedules/schedule';
import { money, type DecimalsOf } from './convert';
import type { CurrencyCache } from './currency-cache';
import { personActor, preparedByFor, senderFor } from './dual-control';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

/** The zone a profile counts days and reads wall times in. */
export const profileZone = (profile: Pick<Profile, 'timeZone'>): string => profile.timeZone || systemZone();

/**
 * The release time asked for, checked: it exists in its zone (the profile's when none is named) and is still ahead.
 * BAD_EXECUTE_ON says what is wrong.
 */
export function executionFor(profile: Pick<Profile, 'timeZone'>, on: ExecuteOn, now = Date.now()): Execution {
  let execution: Execution;
  try {
    execution = executionOf(on.local, on.zone ?? profileZone(profile));
  } catch (error) {
    if (error instanceof ExecutionError) throw new DeskError('BAD_EXECUTE_ON', `Nothing was stored: ${error.message}`, false, [{ field: 'executeOn', code: error.code, message: error.message }]);
    throw error;
  }
  if (execution.at <= now) {
    const message = `${describeExecution(execution)} is not ahead of now: a run scheduled for the past would leave at once; send it now instead, or choose a later time`;
    throw new DeskError('BAD_EXECUTE_ON', `Nothing was stored: ${message}`, false, [{ field: 'executeOn', code: 'IN_THE_PAST', message }]);
  }
  return execution;
}

async function scheduleView(journal: DeskJournal, s: ScheduleRecord, decimalsOf: DecimalsOf): Promise<ScheduleView> {
  const preparation = await journal.preparation(s.kind, s.id);
  let title = s.id;
  let subjectState = 'UNKNOWN';
  let rows = 0;
  let totals: ScheduleView['totals'] = [];
  if (s.kind === 'batch') {
    const batch = await journal.getBatch(s.id);
    if (batch) {
      title = batch.fileName;
      subjectState = batch.state;
      rows = batch.rowCount;
      totals = batch.totals.map((t) => ({ money: money(t.amountMinor, t.currencyCode, decimalsOf), count: t.count }));
    }
  } else {
    const payout = await journal.getPayment('payout', s.id);
    if (payout) {
      title = payout.accountName;
      subjectState = payout.state;
      rows = 1;
      totals = [{ money: money(payout.amountMinor, payout.currencyCode, decimalsOf), count: 1 }];
    }
  }
  return {
    kind: s.kind, id: s.id, title, executeAt: new Date(s.at).toISOString(), zone: s.zone, local: s.local, when: describeExecution(s), state: s.state, subjectState, rows, totals,
    releasedAt: s.releasedAt === null ? null : new Date(s.releasedAt).toISOString(), releasedBy: s.releasedBy,
    lateBy: s.lateByMs !== null && s.lateByMs >= 60_000 ? `late by ${lateText(s.lateByMs)}` : null, preparedBy: preparation?.preparedBy ?? null,
  };
}

/** What each run still to be released takes, per currency, with the run it belongs to. */
export async function scheduledTotals(journal: DeskJournal): Promise<(ScheduledTotal & { subject: { kind: ScheduledKind; id: string } })[]> {
  const totals: (ScheduledTotal & { subject: { kind: ScheduledKind; id: string } })[] = [];
  for (const s of await journal.listSchedules({ states: ['SCHEDULED', 'LATE'] })) {
    const subject = { kind: s.kind, id: s.id };
    if (s.kind === 'batch') {
      for (const t of (await journal.getBatch(s.id))?.totals ?? []) totals.push({ at: s.at, ...t, subject });
    } else {
      const p = await journal.getPayment('payout', s.id);
      if (p) totals.push({ at: s.at, currencyCode: p.currencyCode, amountMinor: p.amountMinor, count: 1, subject });
    }
  }
  return totals;
}

/** The forecast of what is still to be released, from the journal's schedules and balances. */
async function forecastOf(journal: DeskJournal, zone: string, decimalsOf: DecimalsOf): Promise<ForecastLineView[]> {
  const totals = await scheduledTotals(journal);
  const available = new Map((await journal.latestBalances()).map((b) => [b.currencyCode, b.availableMinor]));
  return fundingForecast(totals, available, (at) => localDate(at, zone)).map((l) => ({
    date: l.date, currencyCode: l.currencyCode, due: money(l.dueMinor, l.currencyCode, decimalsOf), count: l.count, cumulative: money(l.cumulativeMinor, l.currencyCode, decimalsOf),
    available: l.availableMinor === null ? null : money(l.availableMinor, l.currencyCode, decimalsOf), shortBy: l.shortByMinor > 0 ? money(l.shortByMinor, l.currencyCode, decimalsOf) : null,
  }));
}

/** "EUR short by 12000.00 on 2026-12-28": the forecast's shortfalls, the first per currency. */
export function shortfallsOf(forecast: readonly ForecastLineView[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const l of forecast) {
    if (!l.shortBy || seen.has(l.currencyCode)) continue;
    seen.add(l.currencyCode);
    out.push(`${l.currencyCode} short by ${l.shortBy.amount} on ${l.date}`);
  }
  return out;
}

export function schedulesService(rt: DeskRuntime, currencies: CurrencyCache): ProfileAreaService<'schedules'> {
  const mustGet = async (journal: DeskJournal, kind: ScheduledKind, id: string): Promise<ScheduleRecord> => {
    const s = await journal.schedule(kind, id);
    if (!s) throw new DeskError('NOT_FOUND', `No scheduled ${kind} ${id} in this profile's journal`);
    return s;
  };
  const viewOf = async (profile: Profile, kind: ScheduledKind, id: string): Promise<ScheduleView> => {
    const journal = await rt.journalFor(profile.id);
    return scheduleView(journal, await mustGet(journal, kind, id), currencies.decimalsOf(profile.id));
  };
  return {
    async list(profile, { from, to, states }) {
      const journal = await rt.journalFor(profile.id);
      const decimalsOf = currencies.decimalsOf(profile.id);
      const found = await journal.listSchedules({ ...(states ? { states } : {}), ...(from ? { from: Date.parse(from) } : {}), ...(to ? { to: Date.parse(to) } : {}) });
      const items: ScheduleView[] = [];
      for (const s of found) items.push(await scheduleView(journal, s, decimalsOf));
      const zone = profileZone(profile);
      return { items, forecast: await forecastOf(journal, zone, decimalsOf), zone } satisfies ScheduleList;
    },
    async get(profile, { kind, id }) {
      return viewOf(profile, kind, id);
    },
    async move(profile, { kind, id, executeOn }) {
      const journal = await rt.journalFor(profile.id);
      await mustGet(journal, kind, id);
      const to = executionFor(profile, executeOn);
      // The time is signed by its preparer: under dual control only they move it (and sign it again).
      const preparedBy = await preparedByFor(rt, profile.id);
      const preparation = await journal.preparation(kind, id);
      if (preparedBy && preparation?.preparedBy && preparation.preparedBy !== preparedBy) {
        throw new DeskError('NOT_ALLOWED', `Only the person who prepared ${kind} ${id} moves it (they sign its new time); cancel it and prepare it again instead. Nothing was changed`);
      }
      const engine = await rt.engineFor(profile.id);
      await engine.moveScheduled(kind, id, to, { ...(preparedBy ? { preparedBy, actor: personActor({ id: preparedBy }) } : {}) });
      rt.events.emit('schedulesChanged', { profileId: profile.id, subject: { kind, id }, change: 'moved' });
      // The approvals given for the old time no longer count: the queues show it waiting again.
      rt.events.emit('approvalsChanged', { profileId: profile.id, subject: { kind, id } });
      return viewOf(profile, kind, id);
    },
    async cancel(profile, { kind, id, reason }) {
      const journal = await rt.journalFor(profile.id);
      await mustGet(journal, kind, id);
      const engine = await rt.engineFor(profile.id);
      const why = reason ? `cancelled before its release: ${reason}` : undefined;
      if (kind === 'batch') await engine.cancelScheduled('batch', id, undefined, why);
      else await engine.cancelScheduled('payout', id, undefined, why);
      rt.events.emit('schedulesChanged', { profileId: profile.id, subject: { kind, id }, change: 'cancelled' });
      return viewOf(profile, kind, id);
    },
    async confirmLate(profile, { kind, id }) {
      // Releasing sends: the sender's act once dual control is on (recorded as the actor).
      const sender = await senderFor(rt, profile.id);
      const engine = await rt.engineFor(profile.id);
      await engine.confirmLateRelease(kind, id, sender ? personActor({ id: sender }) : undefined);
      return viewOf(profile, kind, id);
    },
  };
}

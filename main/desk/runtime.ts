// The desk's per-profile runtime, the one the app, the CLI, the tests and the benches run on: one
// journal and one started engine per profile, built from factories (options may swap the journal
// or add engine options), engine events turned into contract events, and the visible connection state. Offline
// is a normal state: journals answer history, batches and keys without the gateway; the engine
// keeps queued work until the gateway answers again.
import type { Execution } from '../schedules/execution';
import type { CallbackListenerStatus, ConnectionState } from '../../contract/api';
import { isConnectionError } from '../store/postgres/connection-error';
import type { AppContext } from '../context';
import { PayoutEngine, type PayoutEngineOptions } from '../engine';
import { type DeskJournal } from '../journal';
import { type NewAuditEntry } from '../audit/chain';
import { openJournal, type Journal } from '../store/sqlite';
import type { SecurityAction } from '../audit/security-action';
import { randomUUID } from 'node:crypto';
import { journalApprovalGate, manifestDecimals } from '../approvals/gate';
import { buildManifest, subjectText, type ManifestSourceRow, type Subject } from '../approvals/manifest';
import { signPreparation } from '../approvals/preparation';
import type { ApprovalCheck } from '../approvals/verify';
import { adminRegisteredDesks, ControlReader, type ControlState } from '../trust/control-state';
import { keptRejections } from '../approvals/kept-rejections';
import type { DualControlRepository } from '../trust/repository';
import type { UnlockedSession } from '../people/key-vault';
import { newOrChangedPayeeCount } from '../payees/match';
import type { PayeeRepository } from '../payees/repository';
import type { Logger } from '../log';
import { profileRuleProblem, type Profile } from '../profiles/profile-schema';
import { ProfileError } from '../profiles/profile-store';
import type { DeskEvents } from './events';
import { engineOptionsFromProfile, gatewayPortFor, journalPath } from './profile-engine';
import type { DeskAuditSeal } from '../audit/seal';
import type { ProfileStores } from '../store/profile-stores';
import { sqliteStores } from '../store/sqlite/profile-stores';
import { followRemoteChanges } from './remote-changes';
import { DeskConnection } from './connection-state';
import { realTimers, UnlockedSessions, type IdleTimers } from './sessions';

export type { IdleTimers };

export interface DeskRuntimeOptions {
  ctx: AppContext;
  events: DeskEvents;
  log: Logger;
  /** Opens a single desk profile's journal; default openJournal(journalPath(ctx.home, profileId)). */
  openJournal?: (profileId: string) => Journal;
  /**
   * Opens the stores of a profile that points at a team database (profile.teamDatabase); without it, such
   * a profile cannot be opened here (main/compose/desk.ts passes store/postgres's openTeamStores).
   */
  openTeamStores?: (profile: Profile) => Promise<ProfileStores>;
  /** Extra engine options for a profile (tests, benches, the simulation), applied over the profile's own. */
  engineOptions?: (profile: Profile) => Partial<PayoutEngineOptions>;
  /** The idle lock's clock and timers (tests use a fake clock); default the real ones. */
  idleTimers?: IdleTimers;
  /**
   * How long an unlocked person may stay unused before they are locked, in ms, or null for never; default
   * the profile's idleLockMinutes. The simulation passes null (its person never walks away).
   */
  idleLockMs?: (profileId: string) => number | null;
}

export interface DeskRuntime {
  readonly ctx: AppContext;
  readonly events: DeskEvents;
  readonly log: Logger;
  /**
   * Where the profile's records are: its own SQLite journal, or the team database it points at (opened on
   * first use; a failed open is tried again by the next call). Rejects when the team database cannot be
   * reached or refuses this desk (TeamDatabaseError, in plain words).
   */
  storesFor(profileId: string): Promise<ProfileStores>;
  /** The profile's journal (storesFor(profileId).journal). */
  journalFor(profileId: string): Promise<DeskJournal>;
  /**
   * What seals the profile's audit log, once loaded from the keychain (its entries are sealed from then
   * on); rejects when the keychain cannot be read. Every write path awaits it first.
   */
  auditSeal(profileId: string): Promise<DeskAuditSeal>;
  /** Appends an audit entry to the profile's journal once sealing is ready; the actor defaults to deskActor(). */
  audit(profileId: string, entry: NewAuditEntry): Promise<void>;
  /**
   * A profile on a team database: this desk's own sealed journal, where its own security actions are audited
   * (its keys, secrets, settings). Null for a single desk, whose own journal is the profile's journal.
   */
  ownLogFor(profileId: string): Promise<{ journal: DeskJournal; seal: DeskAuditSeal } | null>;
  /** The profile's dual-control records (control chain, approvals, preparations), in its journal or team database. */
  dualControlFor(profileId: string): Promise<DualControlRepository>;
  /**
   * Who may approve, the policy, and whether dual control is on, as this desk may believe it: the control chain
   * checked against this desk's keychain pin (main/trust/control-state.ts). Never a bare row.
   */
  controlFor(profileId: string): Promise<ControlState>;
  /** The reader behind controlFor (drafting the next control record, confirming a root). */
  controlReaderFor(profileId: string): Promise<ControlReader>;
  /** The profile's payee book (versions of saved payees and approvals of their changes). */
  payeesFor(profileId: string): Promise<PayeeRepository>;
  /** The person working on this profile at this desk (dual control), unlocked; null when nobody is. */
  sessionFor(profileId: string): UnlockedSession | null;
  /**
   * Sets the person working on the profile; null locks and forgets the one there was. An unlocked person
   * is locked again after the profile's idle time without use (each sessionFor that finds them, and
   * touchSession, counts as use); the lock is audited as person.locked.
   */
  setSession(profileId: string, session: UnlockedSession | null): void;
  /** The person at the desk did something (the UI reports input): the idle time starts again. */
  touchSession(profileId: string): void;
  /** "Lock" pressed: forgets the unlocked person now (audited); false when nobody was unlocked. */
  lock(profileId: string): Promise<boolean>;
  /** The unlocked person, without counting as use (for showing who it is); null when nobody is. */
  peekSession(profileId: string): UnlockedSession | null;
  /** The OS locked the screen or the machine suspends: every profile's unlocked person is forgotten; how many were. */
  lockAll(reason: 'os-lock' | 'suspend'): Promise<number>;
  /** When the unlocked person of the profile will be locked for idling (epoch ms); null when nobody is unlocked or never. */
  sessionLocksAt(profileId: string): number | null;
  /** The started engine of a profile (started on first use, restarted after settings change). */
  engineFor(profileId: string): Promise<PayoutEngine<DeskJournal>>;
  /** The engine of a profile if it is started (or starting), without starting one; null otherwise. */
  startedEngine(profileId: string): Promise<PayoutEngine<DeskJournal> | null>;
  /** Stops a profile's engine so the next use picks up changed settings. */
  reset(profileId: string): Promise<void>;
  /**
   * The profile's stores changed place (pointed at a team database, or back at its own journal): its
   * engine stops and its stores close; the next use opens them where the profile now says.
   */
  reopen(profileId: string): Promise<void>;
  /** The callback listener of the profile's running engine (never starts one). */
  callbackStatus(profileId: string): CallbackListenerStatus;
  /** True while the profile's engine has started and not been reset. */
  isStarted(profileId: string): boolean;
  /** A profile that is being removed: engine stopped, journal closed, and not the connection's profile any more. */
  forget(profileId: string): Promise<void>;
  connection(): Promise<ConnectionState>;
  setConnection(profileId: string, patch: Partial<Omit<ConnectionState, 'profileId' | 'since'>>): void;
  close(): Promise<void>;
}

/** The pending or settled work of `key`, started once; a failure is forgotten, so the next call starts it again. */
function attemptOnce<T>(cache: Map<string, Promise<T>>, key: string, start: () => Promise<T>): Promise<T> {
  const cached = cache.get(key);
  if (cached) return cached;
  const work = start();
  cache.set(key, work);
  work.catch(() => {
    if (cache.get(key) === work) cache.delete(key);
  });
  return work;
}

/** This desk holds what signs the profile's requests: its active key, or the deprecated secret when the profile uses it. */
async function signsHere(ctx: AppContext, profile: Profile): Promise<boolean> {
  return profile.useDeprecatedSecret ? ctx.keys.hasDeprecatedSecret(profile.id).catch(() => false) : profile.activeKeyId !== null;
}

export function createDeskRuntime(options: DeskRuntimeOptions): DeskRuntime {
  const { ctx, events, log } = options;
  const open = options.openJournal ?? ((profileId: string) => openJournal(journalPath(ctx.home, profileId)));
  const openTeam =
    options.openTeamStores ??
    ((profile: Profile): Promise<ProfileStores> => Promise.reject(new Error(`Profile "${profile.name}" points at a team database, and this desk was put together without one (use main/compose/desk.ts)`)));
  const stores = new Map<string, Promise<ProfileStores>>();
  /** Per profile on a team database: stops following the other desks' changes and the database's reachability. */
  const teamWatches = new Map<string, () => void>();
  const seals = new Map<string, Promise<DeskAuditSeal>>();
  const engines = new Map<string, Promise<PayoutEngine<DeskJournal>>>();
  /** Started engines, and why the last start failed, for looking at without starting one. */
  const running = new Map<string, PayoutEngine<DeskJournal>>();
  const startFailures = new Map<string, string>();
  const connection = new DeskConnection(ctx.profiles, events, log, async (profileId) => (await (await journalFor(profileId)).unsentPayments('payout')).length);
  const teamSeen = (profileId: string, reachable: boolean, message: string | null): void => connection.teamSeen(profileId, reachable, message);

  const openStores = async (profileId: string): Promise<ProfileStores> => {
    // A profile not in the store is a bare journal (tests): its own SQLite file.
    const profile = ctx.profiles.find(profileId);
    if (!profile?.teamDatabase) return sqliteStores(open(profileId));
    // A profile stored before a rule it now breaks (a LIVE team database without verify-full) does not connect.
    const rule = profileRuleProblem(profile);
    if (rule) throw new ProfileError('PROFILE_INVALID', `Profile "${profile.name}" cannot open its team database: ${rule}`);
    try {
      const team = await openTeam(profile);
      if (team.team?.limiter) ctx.shareLimiter(profileId, team.team.limiter);
      teamSeen(profileId, true, null);
      return team;
    } catch (error) {
      teamSeen(profileId, false, error instanceof Error ? error.message : String(error));
      throw error;
    }
  };

  /** Opened once per profile, the stores are shared; a failed open is not kept: the next use tries again (the team database may be back). */
  const storesFor = (profileId: string): Promise<ProfileStores> =>
    attemptOnce(stores, profileId, async () => {
      const st = await openStores(profileId);
      void auditSeal(profileId).catch(() => undefined);
      if (st.onRemoteChange || st.onReachability) {
        const follower = followRemoteChanges({
          profileId, stores: st, events, log,
          live: (batchId) => running.get(profileId)?.batchLive(batchId) ?? null,
          takeUp: async (kind, id) => running.get(profileId)?.takeUp(kind, id),
        });
        const unwatch = st.onReachability?.((reachable, message) => teamSeen(profileId, reachable, message));
        teamWatches.set(profileId, () => {
          follower.stop();
          unwatch?.();
        });
      }
      return st;
    });

  /** Loaded once per profile; a failure is not kept: the next write tries the keychain again (it may have been locked). */
  const auditSeal = (profileId: string): Promise<DeskAuditSeal> =>
    attemptOnce(seals, profileId, async () => {
      const st = await storesFor(profileId);
      try {
        // The team's log: with dual control on, only desks an admin registered in the verified chain sign for the team.
        return await st.openSeal(ctx.keyStore, log, { profileId, registeredDesks: async () => adminRegisteredDesks(await controlFor(profileId)) });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        st.sealFailed(`the audit key could not be read from the ${ctx.keyStore.description}: ${reason}`);
        log.error('audit key not loaded', { profileId, error });
        throw error;
      }
    });

  /** Closes what the profile has open (seal anchored first, as close() does for all), and forgets it. */
  const closeStores = async (profileId: string): Promise<void> => {
    const seal = seals.get(profileId);
    seals.delete(profileId);
    const ready = await seal?.catch(() => null);
    await ready?.flush();
    ready?.close();
    const entry = stores.get(profileId);
    stores.delete(profileId);
    teamWatches.get(profileId)?.();
    teamWatches.delete(profileId);
    connection.forgetTeam(profileId);
    readers.delete(profileId);
    const st = await entry?.catch(() => null);
    if (st?.team?.limiter) ctx.shareLimiter(profileId, null);
    await st?.close();
    await closeOwnJournal(profileId);
  };

  const timers = options.idleTimers ?? realTimers;
  const idleMsOf = options.idleLockMs ?? ((profileId: string) => ctx.profiles.get(profileId).idleLockMinutes * 60_000);
  const sessions = new UnlockedSessions(timers, idleMsOf, async (profileId, session, reason) => {
    // The screens learn it at once (their "unlocked as" chip and the actions that need someone).
    events.emit('sessionChanged', { profileId, unlocked: false, reason });
    await audit(profileId, { actor: `person:${session.personId}`, action: 'person.locked', subject: session.personId, details: { reason } }).catch((error: unknown) =>
      log.error('person.locked not audited', { profileId, error }),
    );
  });

  /** Per profile: what reads its control chain against this desk's pin (kept with the stores: it remembers what it verified). */
  const readers = new Map<string, Promise<ControlReader>>();
  const controlReaderFor = (profileId: string): Promise<ControlReader> =>
    attemptOnce(readers, profileId, async () => {
      const st = await storesFor(profileId);
      const profile = ctx.profiles.find(profileId);
      return new ControlReader({
        repository: st.dualControl, keyStore: ctx.keyStore, profileId, environment: profile?.environment ?? 'TEST',
        where: st.team ? `the team database at ${st.team.where}` : "this profile's journal",
        // A team profile's chain is mirrored in this desk's own journal, and carried from there to an empty team database.
        mirror: st.team ? (await ownJournalOf(profileId)).stores.dualControl : null,
        onCarried: (records) => audit(profileId, { action: 'control.carried', details: { records, to: st.team?.where ?? null } }),
      });
    });
  const controlFor = async (profileId: string): Promise<ControlState> => (await controlReaderFor(profileId)).read();

  /** Approvals nobody could have given, raised once each (a notification, the log) and audited. */
  const alarmed = new Set<string>();
  const approvalsIgnored = async (profileId: string, subject: Subject, ignored: readonly ApprovalCheck[]): Promise<void> => {
    for (const check of ignored) {
      if (alarmed.has(check.approvalId)) continue;
      alarmed.add(check.approvalId);
      log.warn('approval ignored', { profileId, subject, approvalId: check.approvalId, status: check.status });
      events.emit('notification', { level: 'error', title: 'An approval was ignored', body: `${subjectText(subject)}: ${check.message}. Someone with access to the records may have put it there.` });
      await audit(profileId, { actor: 'approvals', action: 'approval.ignored', subject: subject.id, details: { kind: subject.kind, approvalId: check.approvalId, signerId: check.signerId, status: check.status, message: check.message } });
    }
  };

  /**
   * The preparer signs what they submitted, before it is sent (main/approvals/preparation.ts): the unlocked
   * person at this desk, who must be the one named as preparer. Nothing to sign while dual control is off.
   */
  const signPrepared = async (profileId: string, subject: Subject, preparedBy: string, content: { rows: ManifestSourceRow[]; fileSha256: string | null; execution: Execution | null; possibleDuplicates: string[] }): Promise<void> => {
    const state = await controlFor(profileId);
    if (!state.enforced) return;
    if (state.problem) throw new Error(state.problem.message);
    const session = sessions.get(profileId);
    if (!session || session.personId !== preparedBy) throw new Error('the preparer is not unlocked at this desk to sign it');
    const manifest = buildManifest({ profileId: state.scope, subject, preparedBy, preparedAt: 0, fileSha256: content.fileSha256, rows: content.rows, decimalsOf: manifestDecimals, policyVersion: 0, execution: content.execution, possibleDuplicates: content.possibleDuplicates });
    await (await dualControlFor(profileId)).addPreparation(signPreparation(session, { id: randomUUID(), manifest, signedAt: timers.now() }));
  };

  const journalFor = async (profileId: string): Promise<DeskJournal> => (await storesFor(profileId)).journal;
  const dualControlFor = async (profileId: string): Promise<DualControlRepository> => (await storesFor(profileId)).dualControl;
  const payeesFor = async (profileId: string): Promise<PayeeRepository> => (await storesFor(profileId)).payees;

  const audit = async (profileId: string, entry: NewAuditEntry): Promise<void> => {
    await auditSeal(profileId);
    await (await journalFor(profileId)).audit(entry);
  };
  /**
   * Per profile on a team database: this desk's own SQLite journal, where the desk's own security actions are
   * audited (see auditOwn).
   */
  const ownJournals = new Map<string, Promise<{ stores: ProfileStores; seal: DeskAuditSeal }>>();
  const ownJournalOf = (profileId: string): Promise<{ stores: ProfileStores; seal: DeskAuditSeal }> =>
    attemptOnce(ownJournals, profileId, async () => {
      const st = sqliteStores(open(profileId));
      return { stores: st, seal: await st.openSeal(ctx.keyStore, log, { profileId }) };
    });
  const closeOwnJournal = async (profileId: string): Promise<void> => {
    const own = await ownJournals.get(profileId)?.catch(() => null);
    ownJournals.delete(profileId);
    if (!own) return;
    await own.seal.flush();
    own.seal.close();
    await own.stores.close();
  };
  /**
   * This desk's own security actions (its keys and secrets, its profile and settings, its team database
   * password) are audited in its own journal, sealed with its keychain's key, whether or not the profile is on
   * a team database: they are facts about this desk, and changing where the team database is must work while
   * it cannot be reached. A single desk's own journal is its journal.
   */
  /** The stores open now are the desk's own journal (a single desk), or will be (a profile not on a team database). */
  const ownIsStores = async (profileId: string): Promise<boolean> => {
    const st = await stores.get(profileId)?.catch(() => null);
    return st ? st.team === null : !ctx.profiles.find(profileId)?.teamDatabase;
  };
  const auditOwn = async (profileId: string, entry: NewAuditEntry): Promise<void> => {
    if (await ownIsStores(profileId)) return audit(profileId, entry);
    await (await ownJournalOf(profileId)).stores.journal.audit(entry);
  };
  const detachTrail = ctx.trail.attach((action: SecurityAction) =>
    auditOwn(action.profileId, { action: action.action, subject: action.subject ?? null, details: action.details ?? {} }),
  );

  const setConnection: DeskRuntime['setConnection'] = (profileId, patch) => connection.set(profileId, patch);

  const wire = (profileId: string, engine: PayoutEngine<DeskJournal>): void => {
    engine.on('status-changed', (e) => events.emit('paymentStatusChanged', { ...e, observedAt: new Date(e.observedAt).toISOString() }));
    engine.on('batch-progress', (e) => {
      const { counts: _counts, ...progress } = e;
      events.emit('batchProgress', progress);
    });
    engine.on('schedule-released', (s) => events.emit('schedulesChanged', { profileId, subject: { kind: s.kind, id: s.id }, change: 'released' }));
    engine.on('schedule-late', (s) => events.emit('schedulesChanged', { profileId, subject: { kind: s.kind, id: s.id }, change: 'late' }));
    engine.on('connection', (e) =>
      setConnection(profileId, { status: e.state, lastError: e.message ? { code: e.state === 'offline' ? 'OFFLINE' : 'ONLINE', message: e.message } : null }),
    );
    engine.on('background-error', (error) => {
      // A team desk without its database: said once (the connection state), not at every poll tick.
      if (isConnectionError(error)) return void storesFor(profileId).then((st) => st.reportUnreachable?.(error.message), () => undefined);
      log.error('engine background error', { profileId, error });
    });
  };

  const buildEngine = async (profileId: string): Promise<PayoutEngine<DeskJournal>> => {
    const profile = ctx.profiles.get(profileId);
    const rule = profileRuleProblem(profile);
    if (rule) throw new ProfileError('PROFILE_INVALID', `Profile "${profile.name}" cannot start: ${rule}; change that setting first`);
    const st = await storesFor(profileId);
    // The engine writes audit entries (held, missing, batch states): not before they can be sealed.
    await auditSeal(profileId);
    const sends = st.team === null || (await signsHere(ctx, profile));
    const engine = new PayoutEngine<DeskJournal>({
      ...engineOptionsFromProfile(profile),
      // Before the first create of every payout and batch (DESIGN.md §4, last rule).
      // Rows to a new payee or to changed bank details count toward the policy's newOrChangedPayee.
      approvalGate: journalApprovalGate({
        journal: st.journal, repository: st.dualControl,
        control: () => controlFor(profileId),
        newOrChangedPayees: newOrChangedPayeeCount(st.payees, { profileId, control: () => controlFor(profileId), audit: (entry) => audit(profileId, entry) }),
        payeesMarker: () => st.payees.changeMarker(),
        // A LIVE sender desk of a team sends only under a root a person compared with the team's admin.
        requireConfirmedRoot: () => st.team !== null && profile.environment === 'LIVE' && sends,
        onIgnored: (subject, ignored) => approvalsIgnored(profileId, subject, ignored),
        keptRejections: (subject) => keptRejections(ctx.keyStore, profileId, subject),
      }),
      prepare: (subject, preparedBy, content) => signPrepared(profileId, subject, preparedBy, content),
      // A desk of a team without the merchant's key leaves every request to the team's sender desks.
      sends,
      ...options.engineOptions?.(profile),
      journal: st.journal,
      gateway: gatewayPortFor(ctx, profileId),
    });
    wire(profileId, engine);
    await engine.start();
    running.set(profileId, engine);
    return engine;
  };

  return {
    ctx,
    events,
    log,
    storesFor,
    journalFor,
    auditSeal,
    async ownLogFor(profileId) {
      if (await ownIsStores(profileId)) return null;
      const own = await ownJournalOf(profileId);
      return { journal: own.stores.journal, seal: own.seal };
    },
    audit,
    dualControlFor,
    controlFor,
    controlReaderFor,
    payeesFor,
    sessionFor: (profileId) => sessions.get(profileId, true),
    setSession: (profileId, session) => sessions.set(profileId, session),
    touchSession: (profileId) => sessions.touch(profileId),
    lock: (profileId) => sessions.lock(profileId, 'lock'),
    peekSession: (profileId) => sessions.get(profileId),
    async lockAll(reason) {
      const locked = await Promise.all(sessions.profiles().map((id) => sessions.lock(id, reason)));
      return locked.filter(Boolean).length;
    },
    sessionLocksAt: (profileId) => sessions.locksAt(profileId),
    engineFor(profileId) {
      let engine = engines.get(profileId);
      if (!engine) {
        engine = buildEngine(profileId);
        engines.set(profileId, engine);
        // A failed start is not cached: the next call tries again.
        engine.then(
          () => startFailures.delete(profileId),
          (e: unknown) => {
            engines.delete(profileId);
            startFailures.set(profileId, e instanceof Error ? e.message : String(e));
          },
        );
      }
      return engine;
    },
    callbackStatus(profileId) {
      const engine = running.get(profileId);
      if (engine) return engine.callbackListener;
      const profile = ctx.profiles.find(profileId);
      if (!profile?.callbackEnabled) return { state: 'off', boundTo: null, announcedUrl: null, message: null };
      const failure = startFailures.get(profileId);
      const message = failure ? `the profile's engine could not start: ${failure}` : 'not started yet: it starts with this profile\'s engine, when the profile is next used (a payout, a status read, balances)';
      return { state: 'stopped', boundTo: null, announcedUrl: null, message };
    },
    isStarted: (profileId) => running.has(profileId),
    async startedEngine(profileId) {
      return (await engines.get(profileId)?.catch(() => null)) ?? null;
    },
    async reset(profileId) {
      const engine = engines.get(profileId);
      engines.delete(profileId);
      running.delete(profileId);
      if (engine) await (await engine.catch(() => null))?.stop();
    },
    async reopen(profileId) {
      await this.reset(profileId);
      await closeStores(profileId);
    },
    async forget(profileId) {
      sessions.set(profileId, null);
      await this.reset(profileId);
      await closeStores(profileId);
      connection.forget(profileId);
    },
    connection: () => connection.current(),
    setConnection,
    async close() {
      for (const id of sessions.profiles()) sessions.set(id, null);
      for (const id of [...engines.keys()]) await this.reset(id);
      // Security actions on their way to the log, then each journal's anchor brought up to its newest entry.
      detachTrail();
      const trailFailure = await ctx.trail.flush().then(() => null, (error: unknown) => ({ error }));
      for (const id of [...new Set([...seals.keys(), ...stores.keys(), ...ownJournals.keys()])]) await closeStores(id);
      if (trailFailure) throw trailFailure.error;
    },
  };
}

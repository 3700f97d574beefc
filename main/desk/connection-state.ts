// What the app bar shows: the current profile's connection to the gateway (online, offline, since when, the
// last error), its payouts still waiting to be sent, and whether a team desk reaches its team database.
// connectionChanged events leave in the order the states were set, each with its queued count.
import type { ConnectionState, Environment, TeamDatabaseState } from '../../contract/api';
import { teamWhere } from '../store/postgres/team-names';
import type { Logger } from '../log';
import type { ProfileStore } from '../profiles/profile-store';
import type { DeskEvents } from './events';

const noProfile = (): ConnectionState => ({
  status: 'no-profile', profileId: null, environment: null, channelName: null, since: new Date().toISOString(), lastError: null, queued: 0, teamDatabase: null,
});

export class DeskConnection {
  private state: ConnectionState = noProfile();
  /** Per team profile: whether this desk reaches its team database, as last seen. */
  private readonly team = new Map<string, TeamDatabaseState>();
  private announcing: Promise<void> = Promise.resolve();

  constructor(
    private readonly profiles: Pick<ProfileStore, 'find' | 'currentId'>,
    private readonly events: DeskEvents,
    private readonly log: Logger,
    /** The profile's payouts waiting to be sent (throws when its journal cannot be read). */
    private readonly queuedOf: (profileId: string) => Promise<number>,
  ) {}

  /** The state with its profile's queued payouts and its team database's reachability. */
  current(): Promise<ConnectionState> {
    return this.withQueued(this.state);
  }

  set(profileId: string, patch: Partial<Omit<ConnectionState, 'profileId' | 'since'>>): void {
    const before = this.state;
    const environment: Environment | null = this.profiles.find(profileId)?.environment ?? null;
    const next: ConnectionState = { ...before, ...patch, profileId, environment };
    if (before.profileId !== profileId) next.channelName = patch.channelName ?? null;
    if (next.status !== before.status || before.profileId !== profileId) next.since = new Date().toISOString();
    this.state = next;
    if (this.profiles.currentId() === profileId) {
      const state = next;
      this.announcing = this.announcing.then(async () => this.events.emit('connectionChanged', await this.withQueued(state)));
    }
  }

  /** A team profile's database was reached, or not: said once per change, with the connection state. */
  teamSeen(profileId: string, reachable: boolean, message: string | null): void {
    const profile = this.profiles.find(profileId);
    if (!profile?.teamDatabase) return;
    const before = this.team.get(profileId);
    const state = reachable ? 'connected' : 'unreachable';
    if (before && before.state === state) return;
    this.team.set(profileId, { where: teamWhere(profile.teamDatabase), state, since: new Date().toISOString(), message });
    if (!reachable) this.log.warn('team database unreachable', { profileId, message });
    // The screens learn it with the connection state (the app bar says so), the current profile's at least.
    if (this.state.profileId === profileId) this.set(profileId, {});
    else if (this.profiles.currentId() === profileId) this.set(profileId, { status: 'unknown', lastError: null });
  }

  /** The profile's stores closed: what was seen of its team database no longer holds. */
  forgetTeam(profileId: string): void {
    this.team.delete(profileId);
  }

  /** A profile being removed is no longer the connection's profile. */
  forget(profileId: string): void {
    if (this.state.profileId !== profileId) return;
    this.state = noProfile();
    this.events.emit('connectionChanged', this.state);
  }

  private async withQueued(state: ConnectionState): Promise<ConnectionState> {
    if (!state.profileId || !this.profiles.find(state.profileId)) return state;
    const withTeam = { ...state, teamDatabase: this.team.get(state.profileId) ?? null };
    if (withTeam.teamDatabase?.state === 'unreachable') return withTeam;
    try {
      return { ...withTeam, queued: await this.queuedOf(state.profileId) };
    } catch {
      return withTeam;
    }
  }
}

// settings:* of a profile; a change restarts its engine so the new values apply. Also the profile's
// team database (issue 15): URL, TLS mode and CA file in the profile; the password, sent once by the
// page, in this desk's keychain, never answered back (only whether one is stored). Once dual control is on,
// pointing the profile at another team database (or back at its own journal) needs an unlocked admin.
import type { TeamDatabaseView } from '../../contract/api';
import { teamWhere } from '../store/postgres/team-names';
import { assertKeychainReachable } from '../keys/key-store';
import { profileRuleProblem, type Profile, type ProfilePatch, type TeamDatabase } from '../profiles/profile-schema';
import { TeamPasswords } from '../keys/team-password';
import type { FileGrants } from './file-grants';
import { actedBy, changeAdmin } from './keys';
import { updateProfile } from './profiles';
import { settingsView } from './profile-views';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

export function settingsService(rt: DeskRuntime, files?: FileGrants): ProfileAreaService<'settings'> {
  const passwords = () => new TeamPasswords({ keyStore: rt.ctx.keyStore, profiles: rt.ctx.profiles, audit: rt.ctx.trail });
  const teamView = async (p: Profile): Promise<TeamDatabaseView> => ({
    config: p.teamDatabase ? { url: p.teamDatabase.url, tls: p.teamDatabase.tls, caFile: p.teamDatabase.caFile } : null,
    // A keychain that cannot be read must not hide the rest of the card.
    passwordStored: await passwords().has(p.id).catch(() => false),
  });
  return {
    async get(profile) {
      return settingsView(profile, rt.callbackStatus(profile.id));
    },
    async update(profile, { callback, profileId: _chosen, ...rest }) {
      // profileId chose the profile (bindProfile); it is not a field to change.
      const patch: ProfilePatch = { ...rest };
      if (callback?.enabled !== undefined) patch.callbackEnabled = callback.enabled;
      if (callback?.host !== undefined) patch.callbackHost = callback.host;
      if (callback?.port !== undefined) patch.callbackPort = callback.port;
      if (callback?.url !== undefined) patch.callbackUrl = callback.url;
      const updated = await updateProfile(rt, profile.id, patch);
      const wasStarted = rt.isStarted(profile.id);
      await rt.reset(profile.id);
      // The change is in the audit log (profile.updated, field by field) before the answer.
      await rt.ctx.trail.flush();
      // A running engine is started again at once, so a busy port or a bad address shows on the screen
      // that set it. One that was not running (the CLI, another profile) is left to start when used.
      if (wasStarted) await rt.engineFor(profile.id).catch(() => undefined);
      return settingsView(updated, rt.callbackStatus(profile.id));
    },
    async teamDatabase(profile) {
      return teamView(profile);
    },
    async setTeamDatabase(profile, { url, tls, caFile, password }) {
      const admin = await changeAdmin(rt, profile.id, 'changing the team database');
      let ca = profile.teamDatabase?.caFile ?? null;
      if (caFile === null) ca = null;
      else if (caFile !== undefined) {
        if (!files) throw new DeskError('NOT_AVAILABLE', 'Choosing a CA file is not available here');
        ca = files.resolve(caFile.token, 'ca').path;
      }
      // Both changes are audited in a journal sealed with a key from the keychain: check it first.
      await assertKeychainReachable(rt.ctx.keyStore);
      const next: TeamDatabase = { url, tls, caFile: ca };
      const updated = rt.ctx.profiles.update(profile.id, { teamDatabase: next }, actedBy(admin));
      if (password !== undefined) await passwords().set(profile.id, password);
      // Recorded where the profile's records were until now; from here on they are in the team database.
      await rt.ctx.trail.flush();
      await rt.reopen(profile.id);
      return teamView(updated);
    },
    async clearTeamDatabase(profile) {
      const admin = await changeAdmin(rt, profile.id, 'leaving the team database');
      await assertKeychainReachable(rt.ctx.keyStore);
      const updated = profile.teamDatabase ? rt.ctx.profiles.update(profile.id, { teamDatabase: null }, actedBy(admin)) : profile;
      await passwords().clear(profile.id);
      await rt.ctx.trail.flush();
      await rt.reopen(profile.id);
      return teamView(updated);
    },
    async checkTeamDatabase(profile) {
      const team = profile.teamDatabase;
      if (!team) throw new DeskError('NO_TEAM_DATABASE', `Profile "${profile.name}" has no team database: save one first`);
      // A setting stored before today's rules (LIVE over require to a remote host) never gets the password sent.
      const rule = profileRuleProblem(profile);
      if (rule) throw new DeskError('PROFILE_INVALID', `Profile "${profile.name}": ${rule}; change its team database first`);
      // The PostgreSQL client is loaded when a team database is first tried, not with every desk.
      const { openTeamPool } = await import('../store/postgres/connect');
      const opened = await openTeamPool(team, await passwords().reveal(profile.id), { max: 1 });
      await opened.pool.end().catch(() => undefined);
      return {
        where: teamWhere(team),
        tls: team.tls,
        serverVersion: opened.serverVersion,
        schemaVersion: opened.schemaVersion,
        migratedFrom: opened.migratedFrom,
        checkedAt: new Date().toISOString(),
      };
    },
  };
}

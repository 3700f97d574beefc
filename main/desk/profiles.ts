// profiles:* over the profile store: list, create, switch, update, remove and test the connection.
import { rmSync } from 'node:fs';
import type { ProfileAreaService } from './profile-binding';
import { journalPath } from './profile-engine';
import type { DeskRuntime } from './runtime';
import type { Profile, ProfilePatch } from '../profiles/profile-schema';
import { toJson } from './convert';
import type { DemoController } from './demo-controller';
import { profileView } from './profile-views';
import { DeskError } from './services';
import { actedBy, changeAdmin } from './keys';
import { assertKeychainReachable } from '../keys/key-store';
import { teamPasswordAccount } from '../keys/team-password';
import { smtpPasswordAccount } from '../keys/smtp-password';
import { clearSmtp, saveSmtp, smtpSettingsFrom, smtpView, testSmtp } from './smtp';
import { controlPinAccount } from '../trust/control-pin';
import { forgetJournalPin } from '../store/sqlite/audit-seal';

async function activate(rt: DeskRuntime, profile: Profile): Promise<void> {
  rt.ctx.profiles.setCurrent(profile.id);
  rt.setConnection(profile.id, { status: 'unknown', lastError: null });
}

export interface ProfileRemoval {
  journalDeleted: boolean;
  /** The journal file, kept unless its deletion was asked for. */
  journalPath: string;
  /** The current profile afterwards: another one when the removed profile was current, null when none is left. */
  activeProfileId: string | null;
}

/**
 * Takes a profile off this desk (its key records go with it; sealed key files stay on disk). Its journal (the
 * record of every payment it made) is kept unless deleteJournal says otherwise. When it was the current
 * profile, the first remaining one becomes current, so the app and the CLI never point at a missing profile.
 * Once dual control is on, only an unlocked admin may remove it, and is named in the audit entry (the app and
 * the CLI both come here).
 * Order matters: the engine stops first, the removal is written into the profile's own audit log, and only
 * then is that journal closed (and deleted, if asked), so nothing writes to a journal after its deletion.
 */
export async function removeProfile(rt: DeskRuntime, profileId: string, options: { deleteJournal?: boolean } = {}): Promise<ProfileRemoval> {
  const { ctx } = rt;
  const admin = await changeAdmin(rt, profileId, 'removing the profile');
  const wasCurrent = ctx.profiles.currentId() === profileId;
  await rt.forget(profileId);
  ctx.profiles.remove(profileId, actedBy(admin));
  // Its team database and SMTP passwords leave this desk's keychain with it (best effort: a locked keychain
  // must not stop the removal; a stale entry names a profile that no longer exists).
  await ctx.keyStore.delete(teamPasswordAccount(profileId)).catch(() => false);
  await ctx.keyStore.delete(smtpPasswordAccount(profileId)).catch(() => false);
  await ctx.trail.flush();
  await rt.forget(profileId);
  const path = journalPath(ctx.home, profileId);
  if (options.deleteJournal) {
    // The journal goes: what this desk pinned of it (its id, its control records) goes too, so a profile made
    // again under the same id starts afresh instead of reading as replaced.
    await forgetJournalPin(ctx.keyStore, profileId).catch(() => undefined);
    await ctx.keyStore.delete(controlPinAccount(profileId)).catch(() => false);
    // SQLite's write-ahead log and shared memory files belong to the journal too.
    for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(file, { force: true });
  }
  const next = wasCurrent ? ctx.profiles.list()[0] : undefined;
  if (next) ctx.profiles.setCurrent(next.id);
  return { journalDeleted: options.deleteJournal === true, journalPath: path, activeProfileId: ctx.profiles.currentId() };
}

/** Settings that are controls, not preferences: with dual control on, only an admin changes them. */
const ADMIN_SETTINGS = {
  // Where requests go and for which merchant: a desk pointed at another address hands it the signed token requests.
  baseUrl: "the profile's gateway address",
  merchantCode: "the profile's merchant",
  useDeprecatedSecret: 'how token requests are signed',
  maxAmountMinor: 'the largest payout allowed',
  repeatWindowDays: 'how far back a payout is compared for possible duplicates',
  lateReleaseWindowMinutes: 'how late a scheduled run may leave without a person confirming it',
} as const satisfies Partial<Record<keyof ProfilePatch, string>>;

/**
 * Changes a profile's settings for every door (profiles:update, settings:update, `profiles edit`): the environment
 * never (the store refuses it: fixed at creation), the controls above only by an unlocked admin once dual control
 * is on (named in the audit entry), the rest as asked.
 */
export async function updateProfile(rt: DeskRuntime, profileId: string, patch: ProfilePatch): Promise<Profile> {
  const before = rt.ctx.profiles.get(profileId);
  // Refused whoever asks: said before anything else is asked of them.
  rt.ctx.profiles.assertEnvironmentKept(profileId, patch);
  const controls = (Object.keys(ADMIN_SETTINGS) as (keyof typeof ADMIN_SETTINGS)[]).filter((k) => patch[k] !== undefined && patch[k] !== before[k]);
  const admin = controls.length > 0 ? await changeAdmin(rt, profileId, `changing ${controls.map((k) => ADMIN_SETTINGS[k]).join(' and ')}`) : undefined;
  return rt.ctx.profiles.update(profileId, patch, actedBy(admin));
}

export function profilesService(rt: DeskRuntime, demo: DemoController | null): ProfileAreaService<'profiles'> {
  const { profiles } = rt.ctx;
  return {
    async list() {
      return { profiles: await Promise.all(profiles.list().map((p) => profileView(rt, p))), activeProfileId: profiles.currentId() };
    },
    async create(args) {
      await assertKeychainReachable(rt.ctx.keyStore);
      const profile = profiles.add({ ...args, isDemo: false });
      if (!profiles.currentId()) await activate(rt, profile);
      // The profile store reported the change; answer once it is in the audit log.
      await rt.ctx.trail.flush();
      return profileView(rt, profile);
    },
    async createDemo() {
      if (!demo) throw new DeskError('NOT_AVAILABLE', 'Demo mode is not available in this build');
      const profile = await demo.createDemoProfile();
      await activate(rt, profile);
      await rt.ctx.trail.flush();
      return profileView(rt, profile);
    },
    async use({ profileId }) {
      const profile = profiles.get(profileId);
      await activate(rt, profile);
      return profileView(rt, profile);
    },
    async update({ profileId, ...patch }) {
      const profile = await updateProfile(rt, profileId, patch);
      await rt.reset(profileId);
      await rt.ctx.trail.flush();
      return profileView(rt, profile);
    },
    async remove({ profileId, deleteJournal }) {
      profiles.get(profileId);
      const wasCurrent = profiles.currentId() === profileId;
      const removal = await removeProfile(rt, profileId, { deleteJournal: deleteJournal === true });
      // The next profile became current: the app shows it as not yet checked, as after a switch.
      if (wasCurrent && removal.activeProfileId) rt.setConnection(removal.activeProfileId, { status: 'unknown', lastError: null });
      return { removed: true, journalDeleted: removal.journalDeleted, activeProfileId: removal.activeProfileId };
    },
    async testConnection(profile) {
      const client = rt.ctx.gatewayFor(profile.id);
      rt.setConnection(profile.id, { status: 'connecting' });
      try {
        const info = await client.merchantInfo();
        const claims = await client.decodedTokenClaims();
        rt.setConnection(profile.id, { status: 'online', channelName: info.channelName, lastError: null });
        const json = toJson(claims);
        const tokenClaims = json && typeof json === 'object' && !Array.isArray(json) ? json : {};
        return { channelName: info.channelName, environment: profile.environment, tokenClaims, checkedAt: new Date().toISOString() };
      } catch (error) {
        const e = error as { code?: unknown; message?: unknown };
        rt.setConnection(profile.id, { status: 'offline', lastError: { code: typeof e.code === 'string' ? e.code : 'ERROR', message: String(e.message ?? error) } });
        throw error;
      }
    },
    // The SMTP server remittance advice is e-mailed through (desk/smtp.ts).
    async smtp(profile) {
      return smtpView(rt, profile);
    },
    async setSmtp(profile, { profileId: _chosen, password, ...update }) {
      return smtpView(rt, await saveSmtp(rt, profile, smtpSettingsFrom(update, profile.smtp), password));
    },
    async clearSmtp(profile) {
      return smtpView(rt, (await clearSmtp(rt, profile)).profile);
    },
    async testSmtp(profile, { to }) {
      return testSmtp(rt, profile, to);
    },
  };
}

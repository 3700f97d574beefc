// Profile and settings as the renderer sees them, shared by the profiles, keys and settings services.
import type { CallbackListenerStatus, ProfileView, SettingsView } from '../../contract/api';
import type { Profile } from '../profiles/profile-schema';
import { systemZone } from '../schedules/execution';
import type { DeskRuntime } from './runtime';

export function settingsView(p: Profile, callbackListener: CallbackListenerStatus): SettingsView {
  return {
    rateLimitPerSec: p.rateLimitPerSec,
    pollIntervalSecs: p.pollIntervalSecs,
    finalStatuses: p.finalStatuses,
    tokenValiditySecs: p.tokenValiditySecs,
    timestampUnit: p.timestampUnit,
    accountDataPath: p.accountDataPath,
    maxAmountMinor: p.maxAmountMinor,
    repeatWindowDays: p.repeatWindowDays,
    timeZone: p.timeZone,
    zoneInUse: p.timeZone || systemZone(),
    lateReleaseWindowMinutes: p.lateReleaseWindowMinutes,
    callback: { enabled: p.callbackEnabled, host: p.callbackHost, port: p.callbackPort, url: p.callbackUrl },
    callbackListener,
  };
}

export async function hasSecret(rt: DeskRuntime, profileId: string): Promise<boolean> {
  try {
    return await rt.ctx.keys.hasDeprecatedSecret(profileId);
  } catch {
    // No keychain (e.g. locked): the profile list must still show.
    return false;
  }
}

export async function profileView(rt: DeskRuntime, p: Profile): Promise<ProfileView> {
  return {
    id: p.id,
    name: p.name,
    baseUrl: p.baseUrl,
    merchantCode: p.merchantCode,
    environment: p.environment,
    isDemo: p.isDemo,
    apiMajorVersion: p.apiMajorVersion,
    activeKeyId: p.activeKeyId,
    useDeprecatedSecret: p.useDeprecatedSecret,
    hasSecret: await hasSecret(rt, p.id),
    settings: settingsView(p, rt.callbackStatus(p.id)),
  };
}

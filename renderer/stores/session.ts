// The session: profiles, the active one, the connection to its gateway and the rate budget.
// Switching profile dehydrates every area store so no data of one merchant shows under another.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type {
  AppInfo,
  ConnectionState,
  ProfileCreateInput,
  ProfileUpdateInput,
  ProfileView,
  SettingsUpdate,
  RateBudgetUsage,
  Unsubscribe,
} from '../../contract/api';
import { desk } from '../desk';
import { describeError } from '../lib/errors';
import { useNotifyStore } from './notify';

type AreaStore = { hydrate: () => Promise<void> | void; dehydrate: () => void };
const areaStores: (() => AreaStore)[] = [];

/** Area stores register here so a profile switch can reset them all. */
export function registerAreaStore(use: () => AreaStore): void {
  areaStores.push(use);
}

export const useSessionStore = defineStore('session', () => {
  const ready = ref(false);
  const hydrateError = ref<string | null>(null);
  const profiles = ref<ProfileView[]>([]);
  const activeProfileId = ref<string | null>(null);
  const connection = ref<ConnectionState | null>(null);
  const rate = ref<RateBudgetUsage | null>(null);
  const info = ref<AppInfo | null>(null);
  const notify = useNotifyStore();
  const unsubscribers: Unsubscribe[] = [];
  let rateTimer: ReturnType<typeof setInterval> | undefined;

  const activeProfile = computed(() => profiles.value.find((p) => p.id === activeProfileId.value) ?? null);

  async function loadProfiles(): Promise<void> {
    const r = await desk().profiles.list();
    if (!r.ok) throw new Error(describeError(r.error));
    profiles.value = r.data.profiles;
    activeProfileId.value = r.data.activeProfileId;
  }

  async function pollRate(): Promise<void> {
    const r = await desk().app.rateBudget();
    if (r.ok) rate.value = r.data;
  }

  async function hydrate(): Promise<void> {
    try {
      await loadProfiles();
      const [conn, appInfo] = await Promise.all([desk().app.connectionState(), desk().app.info()]);
      if (conn.ok) connection.value = conn.data;
      if (appInfo.ok) info.value = appInfo.data;
      unsubscribers.push(
        desk().events.connectionChanged((state) => (connection.value = state)),
        desk().events.notification((n) => notify.push(n.level, `${n.title}: ${n.body}`)),
      );
      rateTimer = setInterval(() => void pollRate(), 1000);
      void pollRate();
      ready.value = true;
    } catch (e) {
      hydrateError.value = e instanceof Error ? e.message : String(e);
    }
  }

  function dehydrate(): void {
    unsubscribers.splice(0).forEach((u) => u());
    if (rateTimer) clearInterval(rateTimer);
  }

  /** After any profile change: reset every area so the next screen loads the new profile's data. */
  async function switched(profile: ProfileView): Promise<void> {
    for (const use of areaStores) use().dehydrate();
    const idx = profiles.value.findIndex((p) => p.id === profile.id);
    if (idx >= 0) profiles.value.splice(idx, 1, profile);
    else profiles.value.push(profile);
    activeProfileId.value = profile.id;
    const conn = await desk().app.connectionState();
    if (conn.ok) connection.value = conn.data;
  }

  async function createDemo() {
    const r = await desk().profiles.createDemo();
    if (r.ok) await switched(r.data);
    return r;
  }

  async function create(input: ProfileCreateInput) {
    const r = await desk().profiles.create(input);
    if (r.ok) await switched(r.data);
    return r;
  }

  async function use(profileId: string) {
    const r = await desk().profiles.use({ profileId });
    if (r.ok) await switched(r.data);
    return r;
  }

  async function testConnection() {
    const r = await desk().profiles.testConnection({});
    const conn = await desk().app.connectionState();
    if (conn.ok) connection.value = conn.data;
    return r;
  }

  /** Re-reads the profile list and hands back the result, for screens with their own error state. */
  async function reloadProfiles() {
    const r = await desk().profiles.list();
    if (r.ok) {
      profiles.value = r.data.profiles;
      activeProfileId.value = r.data.activeProfileId;
    }
    return r;
  }

  /** Connection fields through profiles:update, then limits and callbacks through settings:update (any profile). */
  async function edit(input: ProfileUpdateInput, settings: Omit<SettingsUpdate, 'profileId'>) {
    const r = await desk().profiles.update(input);
    if (!r.ok) return r;
    const s = await desk().settings.update({ ...settings, profileId: input.profileId });
    await loadProfiles().catch(() => undefined);
    if (input.profileId === activeProfileId.value) {
      const conn = await desk().app.connectionState();
      if (conn.ok) connection.value = conn.data;
    }
    return s.ok ? r : s;
  }

  /** Removes a profile; when it was the active one, every area is reset for the profile main made current (or none). */
  async function remove(profileId: string, deleteJournal: boolean) {
    const wasActive = profileId === activeProfileId.value;
    const r = await desk().profiles.remove({ profileId, deleteJournal });
    if (!r.ok) return r;
    if (wasActive) for (const use of areaStores) use().dehydrate();
    await loadProfiles().catch(() => undefined);
    const conn = await desk().app.connectionState();
    if (conn.ok) connection.value = conn.data;
    return r;
  }

  /** Re-reads the profile list (after settings or key changes). */
  async function refreshProfiles(): Promise<void> {
    await loadProfiles().catch((e: unknown) => notify.error(e instanceof Error ? e.message : String(e)));
  }

  return {
    ready,
    hydrateError,
    profiles,
    activeProfileId,
    activeProfile,
    connection,
    rate,
    info,
    hydrate,
    dehydrate,
    createDemo,
    create,
    use,
    testConnection,
    edit,
    remove,
    refreshProfiles,
    reloadProfiles,
  };
});

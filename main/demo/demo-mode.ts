// Demo mode: one click gives a working TEST profile against the sandbox, started in-process on a
// free loopback port. The demo key is generated into the keychain like any other key and its public
// half registered with the sandbox; the sandbox's default merchant comes funded. The only place main
// imports sandbox/ (DESIGN.md §1).
import { defaultSandboxConfig, startSandbox, type SandboxHandle } from '../../sandbox';
import type { AppContext } from '../context';
import type { DemoController } from '../desk';
import type { Logger } from '../log';
import type { Profile } from '../profiles/profile-schema';

export const DEMO_PROFILE_NAME = 'Demo Store (TEST)';

export interface DemoModeOptions {
  ctx: AppContext;
  log: Logger;
  /** Replaceable in tests. */
  start?: typeof startSandbox;
}

export class DemoMode implements DemoController {
  private readonly sandboxes = new Map<string, SandboxHandle>();
  private readonly start: typeof startSandbox;

  constructor(private readonly options: DemoModeOptions) {
    this.start = options.start ?? startSandbox;
  }

  get merchantCode(): string {
    return defaultSandboxConfig().merchants[0]?.code ?? 'DEMO-MERCHANT';
  }

  async createDemoProfile(): Promise<Profile> {
    const { profiles, keys } = this.options.ctx;
    const sandbox = await this.start(undefined, { port: 0, host: '127.0.0.1' });
    let profile: Profile | undefined;
    try {
      profile = profiles.add({
        id: this.freeId(),
        name: this.freeName(),
        baseUrl: sandbox.url,
        merchantCode: this.merchantCode,
        environment: 'TEST',
        isDemo: true,
        pollIntervalSecs: 2,
      });
      this.sandboxes.set(profile.id, sandbox);
      await keys.generateKey(profile.id, 2048, { activate: true });
      await this.registerKeys(profile.id);
      this.options.log.info('demo profile created', { profileId: profile.id, baseUrl: sandbox.url });
      return profiles.get(profile.id);
    } catch (error) {
      if (profile) {
        this.sandboxes.delete(profile.id);
        profiles.remove(profile.id);
      }
      await sandbox.close();
      throw error;
    }
  }

  /** After a restart: a fresh sandbox for an existing Demo profile (the old port is gone). */
  async resume(profileId: string): Promise<void> {
    const { profiles } = this.options.ctx;
    const profile = profiles.get(profileId);
    if (!profile.isDemo || this.sandboxes.has(profileId)) return;
    const sandbox = await this.start(undefined, { port: 0, host: '127.0.0.1' });
    this.sandboxes.set(profileId, sandbox);
    profiles.update(profileId, { baseUrl: sandbox.url });
    await this.registerKeys(profileId);
  }

  /** Registers every usable public key of a Demo profile (after generate, import or rotation). */
  async registerKeys(profileId: string): Promise<void> {
    const sandbox = this.sandboxes.get(profileId);
    if (!sandbox) return;
    const { keys } = this.options.ctx;
    for (const key of keys.listKeys(profileId).filter((k) => k.status !== 'retired')) {
      sandbox.registerPublicKey(this.merchantCode, await keys.publicKeyPem(profileId, key.keyId));
    }
  }

  markPayinPaid(profileId: string, idPayin: string): void {
    const sandbox = this.sandboxes.get(profileId);
    if (!sandbox) throw Object.assign(new Error('The demo sandbox of this profile is not running'), { code: 'SANDBOX_UNAVAILABLE' });
    sandbox.markPayinPaid(idPayin);
  }

  sandboxFor(profileId: string): SandboxHandle | undefined {
    return this.sandboxes.get(profileId);
  }

  async close(): Promise<void> {
    const all = [...this.sandboxes.values()];
    this.sandboxes.clear();
    await Promise.allSettled(all.map((s) => s.close()));
  }

  private freeId(): string {
    const { profiles } = this.options.ctx;
    for (let n = 1; ; n += 1) {
      const id = n === 1 ? 'demo' : `demo-${n}`;
      if (!profiles.find(id)) return id;
    }
  }

  private freeName(): string {
    const { profiles } = this.options.ctx;
    for (let n = 1; ; n += 1) {
      const name = n === 1 ? DEMO_PROFILE_NAME : `Demo Store ${n} (TEST)`;
      if (!profiles.findByName(name)) return name;
    }
  }
}

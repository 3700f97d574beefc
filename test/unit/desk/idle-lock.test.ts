// The idle lock: an unlocked person (dual control) is forgotten after the profile's idle time without use
// (default 10 minutes), and at once on "lock"; each lock is audited. A fake clock drives the timers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../../main/context';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime, type IdleTimers } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { UnlockedSession } from '../../../main/people/key-vault';
import { generatePersonKey } from '../../../main/people/person-key';

const PROFILE = 'p1';
const MINUTE = 60_000;

class FakeClock implements IdleTimers {
  private t = 1_000_000;
  private seq = 0;
  private pending: { id: number; at: number; fn: () => void }[] = [];
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.seq;
    this.pending.push({ id, at: this.t + ms, fn });
    return id;
  };
  clearTimeout = (handle: unknown) => {
    this.pending = this.pending.filter((p) => p.id !== handle);
  };
  get scheduled() {
    return this.pending.length;
  }
  advance(ms: number) {
    const until = this.t + ms;
    for (;;) {
      const next = [...this.pending].sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!next || next.at > until) break;
      this.pending = this.pending.filter((p) => p !== next);
      this.t = next.at;
      next.fn();
    }
    this.t = until;
  }
}

let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let clock: FakeClock;
const pair = generatePersonKey();
const session = () => new UnlockedSession('ada', pair.publicKey, pair.privateKey, clock.now());
const locks = async () => (await (await rt.journalFor(PROFILE)).listAudit(50)).filter((e) => e.action === 'person.locked');
/** The idle lock's audit entry is written once the audit seal is ready (a few promise turns): wait for it, not for a time. */
async function lockAudited(): Promise<void> {
  for (let i = 0; i < 500 && (await locks()).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
}

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'desk-idle-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Idle', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  clock = new FakeClock();
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger, idleTimers: clock });
});
afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

describe('the idle lock', () => {
  it('locks the unlocked person after 10 idle minutes by default, and audits it', async () => {
    expect(ctx.profiles.get(PROFILE).idleLockMinutes).toBe(10);
    const s = session();
    rt.setSession(PROFILE, s);
    clock.advance(10 * MINUTE - 1);
    expect(s.locked).toBe(false);
    clock.advance(1);
    expect(s.locked).toBe(true);
    expect(rt.sessionFor(PROFILE)).toBeNull();
    expect(() => s.sign(Buffer.from('x'))).toThrow(/locked/);
    await lockAudited();
    expect(await locks()).toEqual([expect.objectContaining({ actor: 'person:ada', subject: 'ada', details: { reason: 'idle' } })]);
    expect(clock.scheduled).toBe(0);
  });

  it('counts each use (a desk act that finds the person, or input reported by the UI) and restarts the idle time', () => {
    const s = session();
    rt.setSession(PROFILE, s);
    clock.advance(6 * MINUTE);
    expect(rt.sessionFor(PROFILE)).toBe(s);
    clock.advance(6 * MINUTE);
    expect(s.locked).toBe(false);
    rt.touchSession(PROFILE);
    clock.advance(10 * MINUTE - 1);
    expect(s.locked).toBe(false);
    clock.advance(1);
    expect(s.locked).toBe(true);
  });

  it("follows the profile's setting", () => {
    ctx.profiles.update(PROFILE, { idleLockMinutes: 2 });
    const s = session();
    rt.setSession(PROFILE, s);
    clock.advance(2 * MINUTE);
    expect(s.locked).toBe(true);
  });

  it('locks at once on "lock" (audited) and forgets the pending timer; a second lock finds nobody', async () => {
    const s = session();
    rt.setSession(PROFILE, s);
    expect(await rt.lock(PROFILE)).toBe(true);
    expect(s.locked).toBe(true);
    expect(clock.scheduled).toBe(0);
    expect(await rt.lock(PROFILE)).toBe(false);
    expect((await locks()).map((e) => e.details)).toEqual([{ reason: 'lock' }]);
  });

  it('a person replaced by another is locked, and only the newcomer is timed', () => {
    const first = session();
    const second = session();
    rt.setSession(PROFILE, first);
    clock.advance(5 * MINUTE);
    rt.setSession(PROFILE, second);
    expect(first.locked).toBe(true);
    expect(clock.scheduled).toBe(1);
    clock.advance(5 * MINUTE);
    expect(second.locked).toBe(false);
    clock.advance(5 * MINUTE);
    expect(second.locked).toBe(true);
  });
});

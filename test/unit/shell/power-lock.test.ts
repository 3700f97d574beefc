// OS lock and suspend lock every profile's unlocked person (dual control). Electron's powerMonitor is a
// plain emitter here; the runtime is the real one, with two profiles each holding an unlocked person.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventContract } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { UnlockedSession } from '../../../main/people/key-vault';
import { generatePersonKey } from '../../../main/people/person-key';
import { lockSessionsOnPowerEvents } from '../../../main/shell/power-lock';

let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let changes: EventContract['sessionChanged'][];
const pair = generatePersonKey();
const unlock = (profileId: string, personId: string) => {
  const s = new UnlockedSession(personId, pair.publicKey, pair.privateKey, Date.now());
  rt.setSession(profileId, s);
  return s;
};
const lockAudits = async (profileId: string) => (await (await rt.journalFor(profileId)).listAudit(50)).filter((e) => e.action === 'person.locked');
async function audited(profileId: string): Promise<void> {
  for (let i = 0; i < 500 && (await lockAudits(profileId)).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
}

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'desk-power-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  for (const id of ['p1', 'p2']) ctx.profiles.add({ id, name: id, baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  const events = createDeskEvents();
  changes = [];
  events.on('sessionChanged', (c) => changes.push(c));
  rt = createDeskRuntime({ ctx, events, log: silentLogger });
});
afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

describe('OS lock and suspend', () => {
  it('lock-screen locks the unlocked person of every profile, tells the screens, and audits it with the reason', async () => {
    const power = new EventEmitter();
    lockSessionsOnPowerEvents(power, rt);
    const a = unlock('p1', 'ada');
    const b = unlock('p2', 'bob');
    power.emit('lock-screen');
    expect(a.locked).toBe(true);
    expect(b.locked).toBe(true);
    expect(rt.peekSession('p1')).toBeNull();
    expect(rt.sessionFor('p2')).toBeNull();
    expect(changes.map((c) => [c.profileId, c.unlocked, c.reason]).sort()).toEqual([['p1', false, 'os-lock'], ['p2', false, 'os-lock']]);
    await audited('p1');
    await audited('p2');
    expect((await lockAudits('p1'))[0]?.details).toEqual({ reason: 'os-lock' });
    expect((await lockAudits('p2'))[0]?.actor).toBe('person:bob');
  });

  it('suspend locks too, with its own reason; a profile nobody unlocked gets no event', async () => {
    const power = new EventEmitter();
    lockSessionsOnPowerEvents(power, rt);
    const a = unlock('p1', 'ada');
    power.emit('suspend');
    expect(a.locked).toBe(true);
    expect(changes).toEqual([{ profileId: 'p1', unlocked: false, reason: 'suspend' }]);
    await audited('p1');
    expect((await lockAudits('p1'))[0]?.details).toEqual({ reason: 'suspend' });
  });

  it('stops listening when told to, and then an OS lock leaves the person unlocked', () => {
    const power = new EventEmitter();
    const stop = lockSessionsOnPowerEvents(power, rt);
    expect(power.listenerCount('lock-screen')).toBe(1);
    stop();
    expect(power.listenerCount('lock-screen') + power.listenerCount('suspend')).toBe(0);
    const a = unlock('p1', 'ada');
    power.emit('lock-screen');
    expect(a.locked).toBe(false);
    expect(rt.peekSession('p1')).toBe(a);
  });
});

// What the alerts of this desk remember between runs, in <home>/alerts.json: which alerts each person was given
// (so one event alerts a person once, also after a restart), which kinds each person muted, and each person's e-mail
// digest (their address, how often, the alerts waiting for the next one). A person's key lives at one desk, so
// remembering per desk is remembering per person. Nothing here decides who may send: a person who edits this file
// only changes what their own desk tells them.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { lazy } from '../lazy';

/** How many given alerts are remembered per profile; the oldest are forgotten first. */
const SEEN_CAP = 2_000;
/** How many alerts wait for one person's digest at most; the oldest give way (the digest says how many). */
export const DIGEST_CAP = 500;

export const DIGEST_EVERY = ['hourly', 'daily'] as const;
export type DigestEvery = (typeof DIGEST_EVERY)[number];

/** The file's schemas, built at its first read. */
const schemas = lazy(() => {
  const DigestItem = z.object({ at: z.number(), kind: z.string(), title: z.string(), body: z.string() });
  const Digest = z.object({
    email: z.string(),
    /** The person's name as the alerts last called them, for the mail's greeting. */
    name: z.string().nullable().default(null),
    every: z.enum(DIGEST_EVERY),
    waiting: z.array(DigestItem).default([]),
    /** Alerts that gave way to newer ones while the digest could not be sent. */
    dropped: z.number().default(0),
    lastSentAt: z.number().nullable().default(null),
    lastError: z.string().nullable().default(null),
  });
  const ProfileMemory = z.object({
    seen: z.array(z.string()).default([]),
    muted: z.record(z.string(), z.array(z.string())).default({}),
    digests: z.record(z.string(), Digest).default({}),
  });
  return { DigestItem, Digest, FileSchema: z.record(z.string(), ProfileMemory) };
});
type Schemas = ReturnType<typeof schemas>;
export type DigestItem = z.infer<Schemas['DigestItem']>;
export type DigestState = z.infer<Schemas['Digest']>;
type FileShape = z.infer<Schemas['FileSchema']>;

/** Each call reads the file and writes it back: the alerts and the screens' mute switches may hold separate instances. */
export class AlertMemory {
  constructor(private readonly file: string) {}

  static inHome(home: string): AlertMemory {
    return new AlertMemory(join(home, 'alerts.json'));
  }

  // A damaged file costs at most alerts given again: it is not a reason to stop alerting.
  private read(): FileShape {
    if (!existsSync(this.file)) return {};
    try {
      return schemas().FileSchema.parse(JSON.parse(readFileSync(this.file, 'utf8')));
    } catch {
      return {};
    }
  }

  private write(data: FileShape): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(data)}\n`, { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  /** True the first time this key is given to the person; false after (the alert is not given again). */
  firstTime(profileId: string, personId: string, key: string): boolean {
    const data = this.read();
    const p = (data[profileId] ??= { seen: [], muted: {}, digests: {} });
    const full = `${personId}|${key}`;
    if (p.seen.includes(full)) return false;
    p.seen.push(full);
    if (p.seen.length > SEEN_CAP) p.seen.splice(0, p.seen.length - SEEN_CAP);
    this.write(data);
    return true;
  }

  muted(profileId: string, personId: string): readonly string[] {
    return this.read()[profileId]?.muted[personId] ?? [];
  }

  setMuted(profileId: string, personId: string, kind: string, muted: boolean): void {
    const data = this.read();
    const p = (data[profileId] ??= { seen: [], muted: {}, digests: {} });
    const now = new Set(p.muted[personId] ?? []);
    if (muted) now.add(kind);
    else now.delete(kind);
    p.muted[personId] = [...now].sort();
    this.write(data);
  }

  digest(profileId: string, personId: string): DigestState | null {
    return this.read()[profileId]?.digests[personId] ?? null;
  }

  /** Turns the person's digest on (to `email`, `every` hour or day) or off (null: what waited is dropped). */
  setDigest(profileId: string, personId: string, digest: { email: string; every: DigestEvery } | null): DigestState | null {
    const data = this.read();
    const p = (data[profileId] ??= { seen: [], muted: {}, digests: {} });
    const before = p.digests[personId];
    if (digest === null) delete p.digests[personId];
    else p.digests[personId] = { name: null, waiting: [], dropped: 0, lastSentAt: null, lastError: null, ...before, ...digest };
    this.write(data);
    return p.digests[personId] ?? null;
  }

  /** An alert given to the person also waits for their digest, when they have one. */
  queueForDigest(profileId: string, personId: string, name: string, item: DigestItem): void {
    const data = this.read();
    const d = data[profileId]?.digests[personId];
    if (!d) return;
    d.name = name;
    d.waiting.push(item);
    if (d.waiting.length > DIGEST_CAP) d.dropped += d.waiting.splice(0, d.waiting.length - DIGEST_CAP).length;
    this.write(data);
  }

  /** Every digest with alerts waiting, per profile and person. */
  waitingDigests(): { profileId: string; personId: string; digest: DigestState }[] {
    return Object.entries(this.read()).flatMap(([profileId, p]) =>
      Object.entries(p.digests).filter(([, d]) => d.waiting.length > 0).map(([personId, digest]) => ({ profileId, personId, digest })),
    );
  }

  /** The digest went with its first `count` alerts: they leave the queue (newer ones stay for the next). */
  digestSent(profileId: string, personId: string, count: number, at: number): void {
    const data = this.read();
    const d = data[profileId]?.digests[personId];
    if (!d) return;
    d.waiting.splice(0, count);
    d.dropped = 0;
    d.lastSentAt = at;
    d.lastError = null;
    this.write(data);
  }

  digestFailed(profileId: string, personId: string, error: string): void {
    const data = this.read();
    const d = data[profileId]?.digests[personId];
    if (!d) return;
    d.lastError = error;
    this.write(data);
  }
}

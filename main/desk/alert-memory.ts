// What the alerts of this desk remember between runs, in <home>/alerts.json: which alerts each person was given
// (so one event alerts a person once, also after a restart) and which kinds each person muted. A person's key
// lives at one desk, so remembering per desk is remembering per person. Nothing here decides who may send: a
// person who edits this file only changes what their own desk tells them.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** How many given alerts are remembered per profile; the oldest are forgotten first. */
const SEEN_CAP = 2_000;

const ProfileMemory = z.object({
  seen: z.array(z.string()).default([]),
  muted: z.record(z.string(), z.array(z.string())).default({}),
});
const FileSchema = z.record(z.string(), ProfileMemory);
type FileShape = z.infer<typeof FileSchema>;

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
      return FileSchema.parse(JSON.parse(readFileSync(this.file, 'utf8')));
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
    const p = (data[profileId] ??= { seen: [], muted: {} });
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
    const p = (data[profileId] ??= { seen: [], muted: {} });
    const now = new Set(p.muted[personId] ?? []);
    if (muted) now.add(kind);
    else now.delete(kind);
    p.muted[personId] = [...now].sort();
    this.write(data);
  }
}

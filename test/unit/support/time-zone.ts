// Runs a file's tests on the clock of one time zone (local midnights, clock changes), and puts the machine's back after.
import { afterEach, beforeEach } from 'vitest';

export function inTimeZone(zone: string): void {
  let before: string | undefined;
  beforeEach(() => {
    before = process.env.TZ;
    process.env.TZ = zone;
  });
  afterEach(() => {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  });
}

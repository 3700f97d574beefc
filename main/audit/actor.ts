// Who an audit entry says acted. A person is the OS user at a desk ("alice@desk-01"): the desk name is
// PAYOUT_DESK_NAME when set (several desks behind one host name, or a name finance staff recognise),
// else the host name. Automatic actors keep their own names ('engine' for the submission engine,
// 'gateway' for what a callback caused). Every person-actor in the journal comes from deskActor().
import { hostname, userInfo } from 'node:os';

/** Read once: a process does not change user, and each userInfo() reads the password database (35 µs a row of a 100,000-row batch). */
let user: string | undefined;

function osUser(): string {
  if (user !== undefined) return user;
  try {
    user = userInfo().username;
  } catch {
    // userInfo() throws when the uid has no passwd entry (some containers); the environment is the next best word.
    user = process.env['USER'] ?? process.env['USERNAME'] ?? 'unknown-user';
  }
  return user;
}

/** Read once too: hostname() is a system call (2.5 µs, a quarter of a second for a 100,000-row batch). */
let host: string | undefined;

/** The person acting at this desk, as audit entries name them: `<os user>@<desk name>`. */
export function deskActor(): string {
  return `${osUser()}@${process.env['PAYOUT_DESK_NAME']?.trim() || (host ??= hostname())}`;
}

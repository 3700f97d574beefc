// Names of the team database a person reads, without the PostgreSQL client: where a desk connects and the
// group role desks belong to. The CLI and the desk's status line use them without loading pg.
import { teamDatabaseTarget, type TeamDatabase } from '../../profiles/profile-schema';

/** The group role holding the desks' rights; each desk's login role is made a member of it. */
export const MEMBER_GROUP = 'payout_desk_member';

/** Where the desk tried to connect, for messages: user@host:port/database (never a password). */
export function teamWhere(team: TeamDatabase): string {
  const t = teamDatabaseTarget(team.url);
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `${t.user}@${host}:${t.port}/${t.database}`;
}

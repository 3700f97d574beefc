// What goes wrong with a team database, in codes a desk can act on (connect.ts words each for people).
import { CodedError } from '../../domain/coded-error';
export type TeamDatabaseErrorCode =
  | 'TEAM_DB_UNREACHABLE'
  | 'TEAM_DB_TIMEOUT'
  | 'TEAM_DB_AUTH'
  | 'TEAM_DB_NO_PASSWORD'
  | 'TEAM_DB_TLS'
  | 'TEAM_DB_CA_FILE'
  | 'TEAM_DB_MISSING'
  | 'TEAM_DB_PERMISSION'
  | 'TEAM_DB_SCHEMA_NEWER'
  | 'TEAM_DB_SCHEMA_OLD'
  /** A LIVE desk connected as a role that may change the schema (team-stores.ts). */
  | 'TEAM_DB_PRIVILEGED'
  | 'TEAM_DB_BUSY'
  | 'TEAM_DB_FAILED';

export class TeamDatabaseError extends CodedError<TeamDatabaseErrorCode> {
  constructor(
    code: TeamDatabaseErrorCode,
    message: string,
    /** Worth trying again later without changing anything (server down, starting up, full). */
    readonly retryable = false,
  ) {
    super(code, message);
  }
}

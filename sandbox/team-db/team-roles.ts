// The team database of `npm run team-db`: a database owned by a login role that is no superuser. The owner
// gets CREATEROLE because `profiles team init` makes the desks' group role and their login role
// (main/store/postgres/member-role.ts); the desks' login role is left to that command.
import pg, { escapeIdentifier, escapeLiteral } from 'pg';

export interface TeamDatabaseAccounts {
  database: string;
  owner: string;
  ownerPassword: string;
}

/** Makes the owner and its database, or sets the owner's password when they exist; the server's version. */
export async function ensureOwnerAndDatabase(superuser: pg.ClientConfig, accounts: TeamDatabaseAccounts): Promise<string> {
  const client = new pg.Client(superuser);
  await client.connect();
  try {
    const role = escapeIdentifier(accounts.owner);
    const roleExists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [accounts.owner])).rowCount === 1;
    // DDL takes no parameters: the password goes in as a quoted literal.
    await client.query(`${roleExists ? 'ALTER' : 'CREATE'} ROLE ${role} WITH LOGIN CREATEROLE PASSWORD ${escapeLiteral(accounts.ownerPassword)}`);
    const databaseExists = (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [accounts.database])).rowCount === 1;
    if (!databaseExists) await client.query(`CREATE DATABASE ${escapeIdentifier(accounts.database)} OWNER ${role}`);
    const version = await client.query<{ server_version: string }>('SHOW server_version');
    return version.rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end();
  }
}

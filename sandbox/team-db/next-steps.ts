// What `npm run team-db` prints once the database is ready: where it is, and the CLI lines to paste next, with
// the passwords in them (a throwaway database on this machine). The lines are those of main/cli/team-init.ts
// and main/cli/team.ts. The server offers no TLS, so they say --tls disable: the profile rule
// (main/profiles/profile-schema.ts, profileRuleProblem) takes clear text to 127.0.0.1, a LIVE profile's too.

export interface ReadyDatabase {
  port: number;
  serverVersion: string;
  database: string;
  owner: string;
  ownerPassword: string;
  member: string;
  memberPassword: string;
  dir: string;
  /** --state: the folder stays at stop and the next start runs the same cluster. */
  kept: boolean;
  /** Started again from the folder (not made now). */
  reused: boolean;
  /** The profile the lines name (sandbox-setup makes "sandbox"). */
  profile: string;
  /** Given through these environment variables: the lines name the variables, not the passwords. */
  ownerPasswordEnv?: string;
  memberPasswordEnv?: string;
}

/** One shell word, whatever the text holds (single quotes; a quote inside as '\''). */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

const CLI = 'npm run -s cli --';

export function readyLines(db: ReadyDatabase): string[] {
  const where = `127.0.0.1:${db.port}`;
  const profile = shellWord(db.profile);
  // A password given through a variable stays in it: the lines say "$VAR", as a README would.
  const memberPassword = db.memberPasswordEnv ? `"$${db.memberPasswordEnv}"` : shellWord(db.memberPassword);
  const ownerPassword = db.ownerPasswordEnv ? `--owner-password-env ${db.ownerPasswordEnv}` : `--owner-password-env OWNER_PW`;
  const ownerVariable = db.ownerPasswordEnv ? '' : `OWNER_PW=${shellWord(db.ownerPassword)} `;
  const told = (password: string, env: string | undefined) => (env ? `password from $${env}` : `password ${password}`);
  return [
    `team database ready on ${where} (PostgreSQL ${db.serverVersion}${db.reused ? ', the cluster kept in its folder' : ''}), listening on 127.0.0.1 only`,
    `  database  ${db.database}, owned by ${db.owner} (${told(db.ownerPassword, db.ownerPasswordEnv)})`,
    `  desks     log in as ${db.member} (${told(db.memberPassword, db.memberPasswordEnv)}); the init line below makes it`,
    db.kept
      ? `  folder    ${db.dir}: kept when this stops; \`npm run team-db -- --state --dir ${shellWord(db.dir)}\` starts it again`
      : `  folder    ${db.dir}: removed when this stops (--state --dir <folder> keeps it for the next start)`,
    '  TLS       none: the server offers no TLS and listens on this machine only, so the lines say --tls disable',
    '            (allowed for a database on this machine, even for a LIVE profile; any other host needs verify-full)',
    '',
    `Next, in another terminal in this folder (profile ${db.profile}; --profile <id> names another):`,
    `  # as the owner, once and after each upgrade: the team schema, and the desks' login role ${db.member}`,
    `  printf '%s' ${memberPassword} | ${ownerVariable}${CLI} profiles team init ${profile} --owner-url postgres://${db.owner}@${where}/${db.database} --tls disable ${ownerPassword} --member ${db.member} --member-password-stdin`,
    "  # at each desk: the profile uses the team database, the password goes to that desk's keychain",
    `  printf '%s' ${memberPassword} | ${CLI} profiles team set ${profile} --url postgres://${db.member}@${where}/${db.database} --tls disable --password-stdin`,
    `  ${CLI} profiles team check ${profile}`,
    '',
    `Stop: Ctrl-C (PostgreSQL stops; the folder is ${db.kept ? 'kept' : 'removed'}).`,
  ];
}

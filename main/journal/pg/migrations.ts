// The team journal's schema on PostgreSQL: the same records as the SQLite journal (migrations.ts), in
// PostgreSQL's types, applied in order under an advisory lock so two desks starting at once do not race.
// Only the dual-control records and the shared rate budget live here so far; payments, batches, intents, payees and audit follow
// as their adapters land (issue "Team desk").
import type { Pool, PoolClient } from 'pg';

/** Key of the advisory lock held while migrating (any constant shared by every desk). */
const MIGRATION_LOCK = 0x70_64_65_73_6b; // "pdesk"

const MIGRATIONS: readonly string[] = [
  // 1: dual control, as SQLite migration 6. Append-only approvals and policy versions (triggers refuse
  //    UPDATE and DELETE); every write bumps one counter and notifies 'dual_control' with it, so a desk's
  //    change marker follows other desks' writes without polling (pg-repository.ts).
  `
  CREATE TABLE people (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    public_key TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    created_by TEXT,
    revoked_at BIGINT,
    revoked_by TEXT,
    revoke_reason TEXT
  );
  CREATE TABLE role_grants (
    seq BIGSERIAL PRIMARY KEY,
    person_id TEXT NOT NULL REFERENCES people (id),
    role TEXT NOT NULL CHECK (role IN ('preparer', 'approver', 'sender', 'viewer', 'admin')),
    granted_at BIGINT NOT NULL,
    granted_by TEXT,
    removed_at BIGINT,
    removed_by TEXT
  );
  CREATE INDEX role_grants_person ON role_grants (person_id, seq);

  CREATE TABLE approvals (
    seq BIGSERIAL UNIQUE,
    id TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL,
    subject_kind TEXT NOT NULL CHECK (subject_kind IN ('payout', 'batch')),
    subject_id TEXT NOT NULL,
    manifest_digest TEXT NOT NULL,
    policy_version INTEGER NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('approve', 'reject')),
    reason TEXT,
    signer_id TEXT NOT NULL,
    signed_at BIGINT NOT NULL,
    signature TEXT NOT NULL,
    recorded_at BIGINT NOT NULL
  );
  CREATE INDEX approvals_subject ON approvals (subject_kind, subject_id, recorded_at);
  CREATE INDEX approvals_recorded ON approvals (recorded_at);

  CREATE TABLE policies (
    version INTEGER PRIMARY KEY CHECK (version >= 1),
    profile_id TEXT NOT NULL,
    rules_json TEXT NOT NULL,
    set_by TEXT,
    set_at BIGINT NOT NULL,
    signature TEXT,
    recorded_at BIGINT NOT NULL
  );

  CREATE FUNCTION append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
  END $$;
  CREATE TRIGGER approvals_append_only BEFORE UPDATE OR DELETE ON approvals FOR EACH ROW EXECUTE FUNCTION append_only();
  CREATE TRIGGER policies_append_only BEFORE UPDATE OR DELETE ON policies FOR EACH ROW EXECUTE FUNCTION append_only();

  CREATE TABLE dual_control_changes (only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row), n BIGINT NOT NULL);
  INSERT INTO dual_control_changes (n) VALUES (0);
  CREATE FUNCTION dual_control_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE next BIGINT;
  BEGIN
    UPDATE dual_control_changes SET n = n + 1 RETURNING n INTO next;
    PERFORM pg_notify('dual_control', next::text);
    RETURN NULL;
  END $$;
  CREATE TRIGGER people_changed AFTER INSERT OR UPDATE OR DELETE ON people FOR EACH STATEMENT EXECUTE FUNCTION dual_control_changed();
  CREATE TRIGGER role_grants_changed AFTER INSERT OR UPDATE OR DELETE ON role_grants FOR EACH STATEMENT EXECUTE FUNCTION dual_control_changed();
  CREATE TRIGGER approvals_changed AFTER INSERT ON approvals FOR EACH STATEMENT EXECUTE FUNCTION dual_control_changed();
  CREATE TRIGGER policies_changed AFTER INSERT ON policies FOR EACH STATEMENT EXECUTE FUNCTION dual_control_changed();
  `,
  // 2: the gateway's rate budget shared by the desks (rate-budget.ts). One row per request slot, times on the
  //    database's clock only; live_until is when the slot stops counting (written by the desk that holds it,
  //    from its own maxRequestMs). A pause row holds every desk after a 429.
  `
  CREATE TABLE rate_budget_slots (
    id BIGSERIAL PRIMARY KEY,
    budget_key TEXT NOT NULL,
    desk_id TEXT NOT NULL,
    lane TEXT NOT NULL CHECK (lane IN ('token', 'create', 'status', 'list')),
    reserved_at TIMESTAMPTZ NOT NULL,
    ended_at TIMESTAMPTZ,
    outcome TEXT CHECK (outcome IN ('answered', 'rate-limited', 'no-answer')),
    live_until TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX rate_budget_slots_live ON rate_budget_slots (budget_key, live_until);
  CREATE TABLE rate_budget_pauses (budget_key TEXT PRIMARY KEY, paused_until TIMESTAMPTZ NOT NULL);
  `,
];

export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the team database to the newest schema; returns the version it was at before. */
export async function migratePg(pool: Pool): Promise<number> {
  const client: PoolClient = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row), version INTEGER NOT NULL)');
    const found = await client.query<{ version: number }>('SELECT version FROM schema_version');
    const from = found.rows[0]?.version ?? 0;
    if (from > MIGRATIONS.length) throw new Error(`the team database has schema version ${from}, newer than this desk knows (${MIGRATIONS.length}): update Payout Desk`);
    for (let v = from; v < MIGRATIONS.length; v++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[v]!);
        await client.query('INSERT INTO schema_version (version) VALUES ($1) ON CONFLICT (only_row) DO UPDATE SET version = EXCLUDED.version', [v + 1]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
    return from;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}

// The team journal's schema on PostgreSQL: the same records as the SQLite journal (migrations.ts), in
// PostgreSQL's types, applied in order under an advisory lock so two desks starting at once do not race.
// So far: the dual-control records, the shared rate budget, and payments, batches and status events as
// the read side (history) needs them, then intents, balances, the audit log, and the desks' leases and send
// claims for the write side (PgJournal), the fair shares of the rate budget, the payee book
// (main/store/postgres/payees.ts), the notifications that let other desks see changes live, and the signers
// of the team's audit log.
// Needs pg_trgm (PostgreSQL's contrib; a trusted extension) and a server built with ICU ("und-x-icu").
import type { Pool, PoolClient } from 'pg';

/** Key of the advisory lock held while migrating (any constant shared by every desk). */
const MIGRATION_LOCK = 0x70_64_65_73_6b; // "pdesk"

const MIGRATIONS: readonly string[] = [
  // 1: dual control, as SQLite migration 6. Append-only approvals and policy versions (triggers refuse
  //    UPDATE and DELETE); every write bumps one counter and notifies 'dual_control' with it, so a desk's
  //    change marker follows other desks' writes without polling (store/postgres/dual-control.ts, payees.ts).
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
  // 3: the journal's read side (history, timeline), as SQLite migrations 1, 3, 5 and 6 leave payments,
  //    batches and status events. Epoch ms and minor units are BIGINT, flags BOOLEAN, JSON kept as the
  //    text the desk wrote (TEXT, not JSONB: the same bytes come back). Text columns compare and sort in
  //    "C" (byte order of UTF-8 = code point order), as SQLite's BINARY does, whatever the database locale.
  //    Each SQLite index on (x) also orders by rowid; here pk is spelled out so ORDER BY x, pk reads it.
  //    intent_id has no foreign key yet: intents land with the write side.
  //    Free text: desk_fold() lowercases over Unicode with ICU's root locale (the FTS5 trigram tokenizer
  //    folds case over Unicode too; the database's own lower() folds only ASCII in a "C" database), and a
  //    pg_trgm GIN index over the folded fields (search_text, stored: folding every row a search reads
  //    again costs more than the search) serves LIKE '%…%' from 3 characters.
  `
  CREATE EXTENSION IF NOT EXISTS pg_trgm;

  CREATE FUNCTION desk_fold(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN lower(t COLLATE "und-x-icu");
  -- The searched fields, each folded, joined by U+0001: a text found in one field is found here too.
  CREATE FUNCTION desk_search_text(id TEXT, account_name TEXT, account_number TEXT, email_address TEXT, reference TEXT)
    RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (desk_fold(id) || chr(1) || desk_fold(account_name) || chr(1) || desk_fold(account_number) || chr(1)
      || desk_fold(email_address) || chr(1) || coalesce(desk_fold(reference), '')) COLLATE "C";

  CREATE TABLE batches (
    id TEXT COLLATE "C" PRIMARY KEY,
    file_name TEXT NOT NULL,
    sha256 TEXT COLLATE "C" NOT NULL,
    row_count INTEGER NOT NULL,
    totals_json TEXT NOT NULL,
    state TEXT COLLATE "C" NOT NULL,
    pause_reason TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    prepared_by TEXT
  );
  CREATE INDEX batches_sha256 ON batches (sha256);
  CREATE INDEX batches_created ON batches (created_at);

  CREATE TABLE payments (
    pk BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('payout', 'payin')),
    id TEXT COLLATE "C" NOT NULL,
    batch_id TEXT COLLATE "C" REFERENCES batches (id),
    row_number INTEGER,
    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
    currency_code TEXT COLLATE "C" NOT NULL,
    account_name TEXT COLLATE "C" NOT NULL,
    account_number TEXT COLLATE "C" NOT NULL,
    payment_operator_code TEXT COLLATE "C" NOT NULL,
    payment_method_code TEXT COLLATE "C" NOT NULL,
    email_address TEXT COLLATE "C" NOT NULL,
    callback_url TEXT COLLATE "C",
    reference TEXT COLLATE "C",
    state TEXT COLLATE "C" NOT NULL,
    gateway_status TEXT COLLATE "C",
    status TEXT COLLATE "C" NOT NULL,
    is_final BOOLEAN NOT NULL DEFAULT FALSE,
    fee_minor BIGINT,
    fee_currency_code TEXT COLLATE "C",
    failure_reason TEXT,
    processed_at TEXT COLLATE "C",
    is_test BOOLEAN,
    last_error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    accepted_at BIGINT,
    final_at BIGINT,
    next_poll_at BIGINT,
    details_json TEXT,
    intent_id TEXT COLLATE "C",
    retry_of TEXT COLLATE "C",
    unknown_since BIGINT,
    resend_refused BOOLEAN NOT NULL DEFAULT FALSE,
    not_found_since BIGINT,
    not_found_reads INTEGER NOT NULL DEFAULT 0,
    payee_name_key TEXT COLLATE "C",
    payee_email_key TEXT COLLATE "C",
    prepared_by TEXT COLLATE "C",
    search_text TEXT COLLATE "C" GENERATED ALWAYS AS (desk_search_text(id, account_name, account_number, email_address, reference)) STORED,
    UNIQUE (kind, id)
  );
  CREATE INDEX payments_created ON payments (created_at, pk);
  CREATE INDEX payments_status_created ON payments (status, created_at, pk);
  CREATE INDEX payments_currency_created ON payments (currency_code, created_at, pk);
  CREATE INDEX payments_kind_created ON payments (kind, created_at, pk);
  CREATE INDEX payments_batch_row ON payments (batch_id, row_number, pk);
  CREATE INDEX payments_beneficiary ON payments (account_name, email_address, created_at);
  CREATE INDEX payments_payee_name_key ON payments (payee_name_key, account_number) WHERE kind = 'payout';
  CREATE INDEX payments_payee_email_key ON payments (payee_email_key, account_number) WHERE kind = 'payout';
  CREATE INDEX payments_intent ON payments (intent_id, pk) WHERE intent_id IS NOT NULL;
  CREATE INDEX payments_retry_of ON payments (retry_of) WHERE retry_of IS NOT NULL;
  CREATE INDEX payments_poll ON payments (next_poll_at) WHERE next_poll_at IS NOT NULL;
  CREATE INDEX payments_unsent ON payments (state) WHERE state IN ('QUEUED', 'SENDING', 'UNKNOWN', 'HELD');
  CREATE INDEX payments_text ON payments USING gin (search_text gin_trgm_ops);

  CREATE VIEW payouts AS SELECT * FROM payments WHERE kind = 'payout';
  CREATE VIEW payins AS SELECT * FROM payments WHERE kind = 'payin';

  CREATE TABLE status_events (
    seq BIGSERIAL PRIMARY KEY,
    kind TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    status TEXT COLLATE "C" NOT NULL,
    source TEXT COLLATE "C" NOT NULL CHECK (source IN ('create', 'poll', 'callback', 'local')),
    observed_at BIGINT NOT NULL,
    raw_json TEXT
  );
  CREATE INDEX status_events_payment ON status_events (kind, id, seq);
  `,
  // 4: the journal's write side (store/postgres/journal.ts, PgJournal): intents, balance snapshots and the audit log as
  //    SQLite has them (migrations 1, 3, 4 there), and what only a team needs: each desk process's lease
  //    (desk_leases, on the database's clock) and the desk holding the right to send a payment
  //    (payments.claimed_by, a desk_id; no foreign key: a claim outlives its lease row until taken over).
  //    payments.intent_id stays without a foreign key: copy.ts seeds payments from a SQLite journal without
  //    its intents. audit_log.key_id is kept for the keyed sealing of SQLite migration 4 (not yet written
  //    by team desks: their entries are chained unkeyed, key_id NULL).
  `
  CREATE TABLE intents (
    id TEXT COLLATE "C" PRIMARY KEY,
    source TEXT NOT NULL CHECK (source IN ('single', 'batch', 'retry', 'existing')),
    created_at BIGINT NOT NULL,
    actor TEXT NOT NULL
  );

  CREATE TABLE balance_snapshots (
    seq BIGSERIAL PRIMARY KEY,
    currency_code TEXT COLLATE "C" NOT NULL,
    available_minor BIGINT NOT NULL,
    reserved_minor BIGINT NOT NULL,
    observed_at BIGINT NOT NULL
  );
  CREATE INDEX balance_snapshots_currency ON balance_snapshots (currency_code, observed_at);

  CREATE TABLE audit_log (
    seq BIGINT PRIMARY KEY,
    at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    subject TEXT,
    details_json TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    key_id TEXT
  );
  CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION append_only();

  CREATE TABLE desk_leases (desk_id TEXT COLLATE "C" PRIMARY KEY, lease_until TIMESTAMPTZ NOT NULL);

  ALTER TABLE payments ADD COLUMN claimed_by TEXT COLLATE "C";
  CREATE INDEX payments_claimed ON payments (claimed_by) WHERE claimed_by IS NOT NULL;
  `,
  // 5: desks refused a slot of the rate budget lately (rate-budget.ts): while others wait, a desk keeps to its
  //    share, so one desk with work never takes every slot from another.
  `
  CREATE TABLE rate_budget_waiters (
    budget_key TEXT NOT NULL,
    desk_id TEXT NOT NULL,
    seen_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (budget_key, desk_id)
  );
  `,
  // 6: the payee book, as SQLite migration 7 (main/store/postgres/payees.ts). A row is one version of a payee,
  //    only added, then put in force (effective_at) or closed once, never rewritten or deleted (triggers, which
  //    also refuse TRUNCATE, as append_only() does not). One version in force and one waiting per payee, one
  //    payee in force per name key: partial unique indexes, named so the adapter words their refusals.
  //    payee_approvals is append-only. Every write bumps one counter and notifies 'payees' with it, as
  //    migration 1 does for dual control; the adapter also locks that row first in each payee-book write, so
  //    two desks' check-then-write never interleave (and their trigger updates of it cannot deadlock).
  `
  CREATE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0];
  END $$;

  CREATE TABLE payees (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payee_id TEXT COLLATE "C" NOT NULL,
    version INTEGER NOT NULL CHECK (version >= 1),
    base_version INTEGER,
    name TEXT COLLATE "C" NOT NULL,
    name_key TEXT COLLATE "C" NOT NULL,
    account_number TEXT COLLATE "C" NOT NULL,
    operator_code TEXT COLLATE "C" NOT NULL,
    email_address TEXT COLLATE "C" NOT NULL,
    email_key TEXT COLLATE "C" NOT NULL,
    reference_default TEXT COLLATE "C",
    source TEXT COLLATE "C" NOT NULL CHECK (source IN ('hand', 'payout', 'import')),
    source_ref TEXT COLLATE "C",
    bank_change BOOLEAN NOT NULL,
    change_digest TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL,
    created_by TEXT COLLATE "C",
    effective_at BIGINT,
    closed_at BIGINT,
    closed_by TEXT COLLATE "C",
    close_reason TEXT COLLATE "C" CHECK (close_reason IN ('superseded', 'rejected', 'withdrawn')),
    CONSTRAINT payees_payee_version UNIQUE (payee_id, version)
  );
  CREATE UNIQUE INDEX payees_in_force ON payees (payee_id) WHERE effective_at IS NOT NULL AND closed_at IS NULL;
  CREATE UNIQUE INDEX payees_waiting ON payees (payee_id) WHERE effective_at IS NULL AND closed_at IS NULL;
  CREATE UNIQUE INDEX payees_name_in_force ON payees (name_key) WHERE effective_at IS NOT NULL AND closed_at IS NULL;
  CREATE INDEX payees_open_name ON payees (name_key) WHERE closed_at IS NULL;
  CREATE INDEX payees_open_email ON payees (email_key) WHERE closed_at IS NULL;
  CREATE TRIGGER payees_fixed BEFORE UPDATE OF seq, payee_id, version, base_version, name, name_key, account_number, operator_code,
    email_address, email_key, reference_default, source, source_ref, bank_change, change_digest, created_at, created_by ON payees
    FOR EACH ROW EXECUTE FUNCTION refuse_write('payee versions are never rewritten: add a version');
  CREATE TRIGGER payees_once BEFORE UPDATE OF effective_at, closed_at, closed_by, close_reason ON payees FOR EACH ROW
    WHEN (OLD.closed_at IS NOT NULL OR (OLD.effective_at IS NOT NULL AND NEW.effective_at IS DISTINCT FROM OLD.effective_at))
    EXECUTE FUNCTION refuse_write('a payee version is put in force once and closed once');
  CREATE TRIGGER payees_no_delete BEFORE DELETE ON payees FOR EACH ROW EXECUTE FUNCTION refuse_write('payee versions are never deleted');
  CREATE TRIGGER payees_no_truncate BEFORE TRUNCATE ON payees FOR EACH STATEMENT EXECUTE FUNCTION refuse_write('payee versions are never deleted');

  CREATE TABLE payee_approvals (
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id TEXT COLLATE "C" PRIMARY KEY,
    profile_id TEXT COLLATE "C" NOT NULL,
    payee_id TEXT COLLATE "C" NOT NULL,
    payee_version INTEGER NOT NULL,
    change_digest TEXT COLLATE "C" NOT NULL,
    policy_version INTEGER NOT NULL,
    decision TEXT COLLATE "C" NOT NULL CHECK (decision IN ('approve', 'reject')),
    reason TEXT,
    signer_id TEXT COLLATE "C" NOT NULL,
    signed_at BIGINT NOT NULL,
    signature TEXT COLLATE "C" NOT NULL,
    recorded_at BIGINT NOT NULL
  );
  CREATE INDEX payee_approvals_change ON payee_approvals (payee_id, payee_version, recorded_at, seq);
  CREATE TRIGGER payee_approvals_append_only BEFORE UPDATE OR DELETE ON payee_approvals FOR EACH ROW EXECUTE FUNCTION append_only();
  CREATE TRIGGER payee_approvals_no_truncate BEFORE TRUNCATE ON payee_approvals FOR EACH STATEMENT EXECUTE FUNCTION append_only();

  CREATE TABLE payee_changes (only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row), n BIGINT NOT NULL);
  INSERT INTO payee_changes (n) VALUES (0);
  CREATE FUNCTION payees_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE next BIGINT;
  BEGIN
    UPDATE payee_changes SET n = n + 1 RETURNING n INTO next;
    PERFORM pg_notify('payees', next::text);
    RETURN NULL;
  END $$;
  CREATE TRIGGER payees_changed AFTER INSERT OR UPDATE OR DELETE ON payees FOR EACH STATEMENT EXECUTE FUNCTION payees_changed();
  CREATE TRIGGER payee_approvals_changed AFTER INSERT ON payee_approvals FOR EACH STATEMENT EXECUTE FUNCTION payees_changed();
  `,
  // 7: other desks see changes live (main/store/postgres/change-feed.ts). Statement triggers notify 'journal_changes'
  //    with JSON naming the desk that wrote (each desk's connections set payout_desk.desk_id, connect.ts) and
  //    what moved: up to 50 payments whose state, status or finality changed (or were stored), else only their
  //    batches (a 100,000-row batch stored is one message, not 100,000); and batches stored or changed state.
  //    Claims, poll times and the like move no state and announce nothing.
  `
  CREATE FUNCTION journal_announce(payments JSON, batches JSON) RETURNS VOID LANGUAGE sql AS $$
    SELECT pg_notify('journal_changes', json_build_object('desk', current_setting('payout_desk.desk_id', true), 'payments', payments, 'batches', batches)::text);
  $$;

  CREATE FUNCTION journal_payments_stored() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE n INTEGER;
  BEGIN
    SELECT count(*) INTO n FROM new_rows;
    IF n = 0 THEN RETURN NULL; END IF;
    IF n <= 50 THEN
      PERFORM journal_announce((SELECT json_agg(json_build_object('kind', kind, 'id', id, 'batch', batch_id) ORDER BY pk) FROM new_rows), NULL);
    ELSE
      PERFORM journal_announce(NULL, (SELECT json_agg(DISTINCT batch_id) FROM new_rows WHERE batch_id IS NOT NULL));
    END IF;
    RETURN NULL;
  END $$;

  CREATE FUNCTION journal_payments_moved() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE n INTEGER;
  BEGIN
    SELECT count(*) INTO n FROM new_rows a JOIN old_rows b ON a.pk = b.pk
      WHERE a.state IS DISTINCT FROM b.state OR a.status IS DISTINCT FROM b.status OR a.is_final IS DISTINCT FROM b.is_final;
    IF n = 0 THEN RETURN NULL; END IF;
    IF n <= 50 THEN
      PERFORM journal_announce((SELECT json_agg(json_build_object('kind', a.kind, 'id', a.id, 'batch', a.batch_id) ORDER BY a.pk) FROM new_rows a JOIN old_rows b ON a.pk = b.pk
        WHERE a.state IS DISTINCT FROM b.state OR a.status IS DISTINCT FROM b.status OR a.is_final IS DISTINCT FROM b.is_final), NULL);
    ELSE
      PERFORM journal_announce(NULL, (SELECT json_agg(DISTINCT a.batch_id) FROM new_rows a JOIN old_rows b ON a.pk = b.pk
        WHERE a.batch_id IS NOT NULL AND (a.state IS DISTINCT FROM b.state OR a.status IS DISTINCT FROM b.status OR a.is_final IS DISTINCT FROM b.is_final)));
    END IF;
    RETURN NULL;
  END $$;

  CREATE TRIGGER payments_stored AFTER INSERT ON payments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION journal_payments_stored();
  CREATE TRIGGER payments_moved AFTER UPDATE ON payments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION journal_payments_moved();

  CREATE FUNCTION journal_batches_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE ids JSON;
  BEGIN
    IF TG_OP = 'INSERT' THEN
      SELECT json_agg(id ORDER BY id) INTO ids FROM new_rows;
    ELSE
      SELECT json_agg(a.id ORDER BY a.id) INTO ids FROM new_rows a JOIN old_rows b ON a.id = b.id
        WHERE a.state IS DISTINCT FROM b.state OR a.pause_reason IS DISTINCT FROM b.pause_reason;
    END IF;
    IF ids IS NOT NULL THEN PERFORM journal_announce(NULL, ids); END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER batches_stored AFTER INSERT ON batches REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION journal_batches_changed();
  CREATE TRIGGER batches_moved AFTER UPDATE ON batches REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION journal_batches_changed();
  `,
  // 8: the team's audit log signed per desk (main/store/postgres/audit-seal.ts). The team's id (random, made here once)
  //    names its keys in each desk's keychain, so a desk in two teams holds two keys. audit_signers holds each
  //    desk's Ed25519 public key (SPKI DER, base64) under its key id; audit_log.signature is the signature of
  //    the entry's hash by the key its key_id names. All three refuse rewrites and deletes, TRUNCATE too
  //    (audit_log did not refuse TRUNCATE so far). Entries written before stay unsigned (key_id NULL).
  `
  CREATE TABLE team_identity (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    team_id TEXT COLLATE "C" NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
  );
  INSERT INTO team_identity (team_id) VALUES (gen_random_uuid()::text);
  CREATE TRIGGER team_identity_fixed BEFORE UPDATE OR DELETE ON team_identity FOR EACH ROW EXECUTE FUNCTION append_only();
  CREATE TRIGGER team_identity_no_truncate BEFORE TRUNCATE ON team_identity FOR EACH STATEMENT EXECUTE FUNCTION append_only();

  CREATE TABLE audit_signers (
    key_id TEXT COLLATE "C" PRIMARY KEY,
    public_key TEXT NOT NULL,
    desk_name TEXT NOT NULL,
    registered_at BIGINT NOT NULL
  );
  CREATE TRIGGER audit_signers_append_only BEFORE UPDATE OR DELETE ON audit_signers FOR EACH ROW EXECUTE FUNCTION append_only();
  CREATE TRIGGER audit_signers_no_truncate BEFORE TRUNCATE ON audit_signers FOR EACH STATEMENT EXECUTE FUNCTION append_only();

  ALTER TABLE audit_log ADD COLUMN signature TEXT;
  CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION append_only();
  `,
  // 9: the control chain (main/trust/), as SQLite migration 8: signed records of people, roles, revocations,
  //    policy versions and registered desks; records waiting for a second admin; the preparers' signatures.
  //    recorded_at is the database's clock (an approval's signer must hold their role then too, so the time a
  //    record was taken is not the writer's to choose). Every write moves the dual-control counter; what a
  //    notification carries is only a hint to look again (change-counter.ts). people, role_grants and policies
  //    are no longer written: an admin seals their rows into a chain once.
  `
  CREATE FUNCTION desk_now_ms() RETURNS BIGINT LANGUAGE sql VOLATILE RETURN (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT;

  CREATE TABLE control_chain (
    seq INTEGER PRIMARY KEY CHECK (seq >= 1),
    hash TEXT COLLATE "C" NOT NULL UNIQUE,
    record_json TEXT NOT NULL,
    recorded_at BIGINT NOT NULL DEFAULT desk_now_ms()
  );
  CREATE TABLE control_proposals (
    id BIGSERIAL PRIMARY KEY,
    hash TEXT COLLATE "C" NOT NULL,
    record_json TEXT NOT NULL,
    recorded_at BIGINT NOT NULL DEFAULT desk_now_ms()
  );
  CREATE INDEX control_proposals_hash ON control_proposals (hash, id);
  CREATE TABLE preparations (
    seq BIGSERIAL UNIQUE,
    id TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL,
    subject_kind TEXT NOT NULL CHECK (subject_kind IN ('payout', 'batch')),
    subject_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    signer_id TEXT NOT NULL,
    signed_at BIGINT NOT NULL,
    signature TEXT NOT NULL,
    recorded_at BIGINT NOT NULL DEFAULT desk_now_ms()
  );
  CREATE INDEX preparations_subject ON preparations (subject_kind, subject_id, recorded_at);
  ALTER TABLE approvals ALTER COLUMN recorded_at SET DEFAULT desk_now_ms();

  CREATE TRIGGER control_chain_append_only BEFORE UPDATE OR DELETE ON control_chain FOR EACH ROW EXECUTE FUNCTION append_only();
  CREATE TRIGGER control_proposals_append_only BEFORE UPDATE OR DELETE ON control_proposals FOR EACH ROW EXECUTE FUNCTION append_only();
  CREATE TRIGGER preparations_append_only BEFORE UPDATE OR DELETE ON preparations FOR EACH ROW EXECUTE FUNCTION append_only();
  CREATE TRIGGER control_chain_no_truncate BEFORE TRUNCATE ON control_chain FOR EACH STATEMENT EXECUTE FUNCTION append_only();
  CREATE TRIGGER control_proposals_no_truncate BEFORE TRUNCATE ON control_proposals FOR EACH STATEMENT EXECUTE FUNCTION append_only();
  CREATE TRIGGER preparations_no_truncate BEFORE TRUNCATE ON preparations FOR EACH STATEMENT EXECUTE FUNCTION append_only();
  CREATE TRIGGER approvals_no_truncate BEFORE TRUNCATE ON approvals FOR EACH STATEMENT EXECUTE FUNCTION append_only();
  CREATE TRIGGER policies_no_truncate BEFORE TRUNCATE ON policies FOR EACH STATEMENT EXECUTE FUNCTION append_only();

  CREATE TRIGGER control_chain_changed AFTER INSERT ON control_chain FOR EACH STATEMENT EXECUTE FUNCTION dual_control_changed();
  CREATE TRIGGER control_proposals_changed AFTER INSERT ON control_proposals FOR EACH STATEMENT EXECUTE FUNCTION dual_control_changed();
  CREATE TRIGGER preparations_changed AFTER INSERT ON preparations FOR EACH STATEMENT EXECUTE FUNCTION dual_control_changed();
  `,
  // 10: payouts by account, amount and currency, as SQLite migration 9 (possible duplicates across history).
  `
  CREATE INDEX payments_like ON payments (account_number, amount_minor, currency_code, created_at) WHERE kind = 'payout';
  `,
  // 11: the Overview's reads, as SQLite migration 10.
  `
  CREATE INDEX payments_accepted ON payments (accepted_at, currency_code, fee_currency_code, is_final, status, amount_minor, fee_minor)
    WHERE kind = 'payout' AND accepted_at IS NOT NULL;
  CREATE INDEX payments_pending ON payments (currency_code, state, amount_minor) WHERE kind = 'payout' AND NOT is_final;
  `,
  // 12: closing a period, as SQLite migration 11: statements as issued, movements already exported, the accounts.
  `
  CREATE TABLE issued_statements (
    seq BIGSERIAL PRIMARY KEY,
    period_from BIGINT NOT NULL,
    period_to BIGINT NOT NULL,
    currency_scope TEXT NOT NULL,
    figures_json TEXT NOT NULL,
    digest TEXT NOT NULL,
    issued_at BIGINT NOT NULL,
    issued_by TEXT
  );
  CREATE INDEX issued_statements_period ON issued_statements (period_from, period_to, currency_scope, seq);
  CREATE TRIGGER issued_statements_no_change BEFORE UPDATE OR DELETE ON issued_statements
    FOR EACH ROW EXECUTE FUNCTION refuse_write('an issued statement is never changed or deleted: issue it again');
  CREATE TRIGGER issued_statements_no_truncate BEFORE TRUNCATE ON issued_statements
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_write('an issued statement is never deleted');
  CREATE TABLE exported_movements (
    movement_id TEXT PRIMARY KEY,
    export_id TEXT NOT NULL,
    exported_at BIGINT NOT NULL
  );
  CREATE TRIGGER exported_movements_no_change BEFORE UPDATE OR DELETE ON exported_movements
    FOR EACH ROW EXECUTE FUNCTION refuse_write('an exported movement stays exported');
  CREATE TRIGGER exported_movements_no_truncate BEFORE TRUNCATE ON exported_movements
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_write('an exported movement stays exported');
  CREATE TABLE accounting_accounts (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    accounts_json TEXT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  `,
  // 13: remittance advice by e-mail, as SQLite migration 12. Two desks claim a payout's row with INSERT … ON CONFLICT
  //     DO NOTHING (or an UPDATE naming the claim they read): one of them mails.
  `
  CREATE TABLE remittance_mails (
    payout_id TEXT COLLATE "C" PRIMARY KEY,
    batch_id TEXT COLLATE "C",
    recipient TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'retrying', 'sent', 'refused', 'failed')),
    attempts INTEGER NOT NULL CHECK (attempts >= 0),
    last_reply TEXT,
    message_id TEXT,
    sends INTEGER NOT NULL CHECK (sends >= 0),
    sent_at BIGINT,
    requested_by TEXT NOT NULL,
    claim TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX remittance_mails_batch ON remittance_mails (batch_id) WHERE batch_id IS NOT NULL;
  `,
  // 14: duplicates across history for ERP payment runs, as SQLite migration 13: the first batch that carried each
  //     pain.001 MsgId and EndToEndId. Two desks storing the same run at once: the second's INSERT … ON CONFLICT DO
  //     NOTHING waits for the first's commit, then inserts nothing, and its batch is refused (PgJournal.createBatch).
  `
  CREATE TABLE payment_run_refs (
    kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('MsgId', 'EndToEndId')),
    ref TEXT COLLATE "C" NOT NULL,
    batch_id TEXT COLLATE "C" NOT NULL,
    payout_id TEXT COLLATE "C",
    pmt_inf_id TEXT COLLATE "C",
    recorded_at BIGINT NOT NULL,
    PRIMARY KEY (kind, ref)
  );
  CREATE TRIGGER payment_run_refs_no_change BEFORE UPDATE OR DELETE ON payment_run_refs
    FOR EACH ROW EXECUTE FUNCTION refuse_write('a payment run reference stays as first recorded');
  CREATE TRIGGER payment_run_refs_no_truncate BEFORE TRUNCATE ON payment_run_refs
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_write('a payment run reference stays as first recorded');
  INSERT INTO payment_run_refs (kind, ref, batch_id, payout_id, pmt_inf_id, recorded_at)
    SELECT DISTINCT ON (r.kind, r.ref) r.kind, r.ref, r.batch_id, r.payout_id, r.pmt_inf_id, r.created_at FROM (
      SELECT 'MsgId' AS kind, d -> 'extra' ->> 'MsgId' AS ref, batch_id, NULL::text AS payout_id, NULL::text AS pmt_inf_id, created_at, pk
        FROM (SELECT p.*, p.details_json::jsonb AS d FROM payments p
               WHERE p.kind = 'payout' AND p.batch_id IS NOT NULL AND p.retry_of IS NULL AND p.details_json LIKE '%pain.001.%') AS p
       WHERE d -> 'extra' ->> 'MsgNmId' LIKE 'pain.001.%'
      UNION ALL
      SELECT 'EndToEndId', d -> 'extra' ->> 'EndToEndId', batch_id, id, NULLIF(d -> 'extra' ->> 'PmtInfId', ''), created_at, pk
        FROM (SELECT p.*, p.details_json::jsonb AS d FROM payments p
               WHERE p.kind = 'payout' AND p.batch_id IS NOT NULL AND p.retry_of IS NULL AND p.details_json LIKE '%pain.001.%') AS p
       WHERE d -> 'extra' ->> 'MsgNmId' LIKE 'pain.001.%' AND d -> 'extra' ->> 'EndToEndId' <> 'NOTPROVIDED'
    ) AS r
    WHERE r.ref IS NOT NULL AND r.ref <> ''
    ORDER BY r.kind, r.ref, r.created_at, r.pk;
  `,
  // 15: the calendar (main/schedules/): a payout or batch released at its time, one schedule per subject, written in
  //     the subject's own transaction; the release is a conditional update, so of two sender desks exactly one releases.
  `
  CREATE TABLE schedules (
    subject_kind TEXT COLLATE "C" NOT NULL CHECK (subject_kind IN ('payout', 'batch')),
    subject_id TEXT COLLATE "C" NOT NULL,
    execute_at BIGINT NOT NULL,
    zone TEXT NOT NULL,
    local_time TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('SCHEDULED', 'LATE', 'RELEASED', 'CANCELLED')),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    released_at BIGINT,
    released_by TEXT,
    late_by_ms BIGINT,
    PRIMARY KEY (subject_kind, subject_id)
  );
  CREATE INDEX schedules_due ON schedules (state, execute_at);
  CREATE INDEX schedules_at ON schedules (execute_at);
  `,
  // 16: recurring payouts, as SQLite migration 15. Two desks claim an occurrence by inserting its (template, date)
  //     with ON CONFLICT DO NOTHING: exactly one makes its payout.
  `
  CREATE TABLE recurring_templates (
    id TEXT COLLATE "C" PRIMARY KEY,
    payee_id TEXT COLLATE "C" NOT NULL,
    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
    currency_code TEXT NOT NULL,
    reference_pattern TEXT,
    rule TEXT NOT NULL,
    start_date TEXT NOT NULL,
    end_count INTEGER,
    end_until TEXT,
    time_of_day TEXT NOT NULL,
    zone TEXT NOT NULL,
    lead_days INTEGER NOT NULL CHECK (lead_days >= 0),
    state TEXT NOT NULL CHECK (state IN ('ACTIVE', 'PAUSED', 'ENDED')),
    active_since BIGINT NOT NULL,
    created_by TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    changed_by TEXT
  );
  CREATE INDEX recurring_templates_payee ON recurring_templates (payee_id);
  CREATE TABLE recurring_occurrences (
    template_id TEXT COLLATE "C" NOT NULL REFERENCES recurring_templates (id),
    occurrence_date TEXT COLLATE "C" NOT NULL,
    payout_id TEXT,
    state TEXT NOT NULL CHECK (state IN ('CREATING', 'CREATED', 'SKIPPED', 'MISSED', 'FAILED')),
    reason TEXT,
    actor TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (template_id, occurrence_date)
  );
  CREATE TRIGGER recurring_occurrences_no_delete BEFORE DELETE ON recurring_occurrences
    FOR EACH ROW EXECUTE FUNCTION refuse_write('an occurrence of a recurring payout stays recorded');
  `,
  // 17: PostgreSQL refuses a NOTIFY payload over 8,000 bytes, and the change notices named every batch a statement
  //     touched: a statement writing more than about a hundred batches (a bulk load, a bulk state change) failed whole
  //     with "payload string too long". The batch ids now go 50 to a notice (at most 80 characters each).
  `
  CREATE OR REPLACE FUNCTION journal_announce(payments JSON, batches JSON) RETURNS VOID LANGUAGE plpgsql AS $$
  DECLARE
    desk TEXT := current_setting('payout_desk.desk_id', true);
    part JSON;
  BEGIN
    IF batches IS NULL OR json_typeof(batches) <> 'array' OR json_array_length(batches) <= 50 THEN
      PERFORM pg_notify('journal_changes', json_build_object('desk', desk, 'payments', payments, 'batches', batches)::text);
      RETURN;
    END IF;
    FOR part IN
      SELECT json_agg(value ORDER BY n) FROM json_array_elements(batches) WITH ORDINALITY AS e (value, n) GROUP BY (n - 1) / 50 ORDER BY (n - 1) / 50
    LOOP
      PERFORM pg_notify('journal_changes', json_build_object('desk', desk, 'payments', payments, 'batches', part)::text);
    END LOOP;
  END $$;
  `,
  // 18: the History screen's other sorts (its table sorts by created, amount or status) over a million payouts
  //     (bench/pg-history.ts). Without an index in the sort's order, a page sorted by amount or status over a broad
  //     filter read and sorted every match (100-150 ms); walking the key's index in order stops after a page.
  //     Each costs every insert one more b-tree entry (bench/pg-journal.ts measures createBatch with them). The
  //     sorts the contract allows and no screen offers (last update, currency) stay unindexed.
  `
  CREATE INDEX payments_amount ON payments (amount_minor, pk);
  CREATE INDEX payments_status_pk ON payments (status, pk);
  `,
];

export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the team database to the newest schema; returns the version it was at before. */
export async function migratePg(pool: Pool): Promise<number> {
  const client: PoolClient = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    // A current schema is left alone: a desk connected as the member role may run no DDL, not even
    // CREATE TABLE IF NOT EXISTS (main/store/postgres/member-role.ts).
    const known = (await client.query<{ found: boolean }>(`SELECT to_regclass('schema_version') IS NOT NULL AS found`)).rows[0]?.found;
    if (known) {
      const version = (await client.query<{ version: number }>('SELECT version FROM schema_version')).rows[0]?.version ?? 0;
      if (version === MIGRATIONS.length) return version;
    }
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

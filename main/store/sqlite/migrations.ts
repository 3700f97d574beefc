// Schema of the journal, applied in numbered steps. PRAGMA user_version holds the last step applied,
// so an older journal file is brought forward on open and a newer one is refused rather than damaged.
import { payeeKey } from '../../domain/payee-key';
import type Database from 'better-sqlite3';
import { CodedError } from '../../domain/coded-error';

type Migration = (db: Database.Database) => void;

const MIGRATIONS: readonly Migration[] = [
  // 1: payments, batches, status history, balances, audit log.
  (db) => {
    db.exec(`
      CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );

      CREATE TABLE batches (
        id TEXT PRIMARY KEY,
        file_name TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        row_count INTEGER NOT NULL,
        totals_json TEXT NOT NULL,
        state TEXT NOT NULL,
        pause_reason TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX batches_sha256 ON batches (sha256);
      CREATE INDEX batches_created ON batches (created_at);

      -- Payouts and payins share one table (kind column) so the history is one indexed query;
      -- the views payouts and payins below give each kind on its own.
      CREATE TABLE payments (
        pk INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('payout', 'payin')),
        id TEXT NOT NULL,
        batch_id TEXT REFERENCES batches (id),
        row_number INTEGER,
        amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
        currency_code TEXT NOT NULL,
        account_name TEXT NOT NULL,
        account_number TEXT NOT NULL,
        payment_operator_code TEXT NOT NULL,
        payment_method_code TEXT NOT NULL,
        email_address TEXT NOT NULL,
        callback_url TEXT,
        reference TEXT,
        state TEXT NOT NULL,
        gateway_status TEXT,
        status TEXT NOT NULL,
        is_final INTEGER NOT NULL DEFAULT 0,
        fee_minor INTEGER,
        fee_currency_code TEXT,
        failure_reason TEXT,
        processed_at TEXT,
        is_test INTEGER,
        last_error TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        accepted_at INTEGER,
        final_at INTEGER,
        next_poll_at INTEGER,
        details_json TEXT,
        UNIQUE (kind, id)
      );
      CREATE INDEX payments_created ON payments (created_at);
      CREATE INDEX payments_status_created ON payments (status, created_at);
      CREATE INDEX payments_currency_created ON payments (currency_code, created_at);
      CREATE INDEX payments_kind_created ON payments (kind, created_at);
      CREATE INDEX payments_batch_row ON payments (batch_id, row_number);
      CREATE INDEX payments_beneficiary ON payments (account_name, email_address, created_at);
      CREATE INDEX payments_poll ON payments (next_poll_at) WHERE state = 'ACCEPTED' AND is_final = 0;
      CREATE INDEX payments_unsent ON payments (state) WHERE state IN ('QUEUED', 'SENDING');

      CREATE VIEW payouts AS SELECT * FROM payments WHERE kind = 'payout';
      CREATE VIEW payins AS SELECT * FROM payments WHERE kind = 'payin';

      -- Substring search (trigram) over the fields a person searches by.
      CREATE VIRTUAL TABLE payments_text USING fts5 (
        id, account_name, account_number, email_address, reference,
        content = 'payments', content_rowid = 'pk', tokenize = 'trigram'
      );
      CREATE TRIGGER payments_text_insert AFTER INSERT ON payments BEGIN
        INSERT INTO payments_text (rowid, id, account_name, account_number, email_address, reference)
        VALUES (new.pk, new.id, new.account_name, new.account_number, new.email_address, new.reference);
      END;
      CREATE TRIGGER payments_text_delete AFTER DELETE ON payments BEGIN
        INSERT INTO payments_text (payments_text, rowid, id, account_name, account_number, email_address, reference)
        VALUES ('delete', old.pk, old.id, old.account_name, old.account_number, old.email_address, old.reference);
      END;
      CREATE TRIGGER payments_text_update
      AFTER UPDATE OF id, account_name, account_number, email_address, reference ON payments BEGIN
        INSERT INTO payments_text (payments_text, rowid, id, account_name, account_number, email_address, reference)
        VALUES ('delete', old.pk, old.id, old.account_name, old.account_number, old.email_address, old.reference);
        INSERT INTO payments_text (rowid, id, account_name, account_number, email_address, reference)
        VALUES (new.pk, new.id, new.account_name, new.account_number, new.email_address, new.reference);
      END;

      CREATE TABLE status_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        status TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('create', 'poll', 'callback', 'local')),
        observed_at INTEGER NOT NULL,
        raw_json TEXT
      );
      CREATE INDEX status_events_payment ON status_events (kind, id, seq);

      CREATE TABLE balance_snapshots (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        currency_code TEXT NOT NULL,
        available_minor INTEGER NOT NULL,
        reserved_minor INTEGER NOT NULL,
        observed_at INTEGER NOT NULL
      );
      CREATE INDEX balance_snapshots_currency ON balance_snapshots (currency_code, observed_at);

      CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        subject TEXT,
        details_json TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
      );
      -- Append-only in normal use: the app never updates or deletes audit rows.
      CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only');
      END;
      CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN
        SELECT RAISE(ABORT, 'audit_log is append-only');
      END;
    `);
  },
  // 2: beneficiaries are looked up by name or by e-mail on their own, ignoring case and outer spaces
  //    (the "bank details changed" warning of the CSV import).
  (db) => {
    db.exec(`
      CREATE INDEX payments_payee_name ON payments (lower(trim(account_name)), created_at) WHERE kind = 'payout';
      CREATE INDEX payments_payee_email ON payments (lower(trim(email_address)), created_at) WHERE kind = 'payout';
    `);
  },
  // 3: payment intents (what a person asked to pay; each payout is one attempt of one), outcomes that
  //    are unknown, payouts held for a person, payouts the gateway stopped knowing, and re-reads of
  //    paid payouts (a SUCCESS can still be returned). Every payout polled is found by next_poll_at.
  (db) => {
    db.exec(`
      CREATE TABLE intents (
        id TEXT PRIMARY KEY,
        source TEXT NOT NULL CHECK (source IN ('single', 'batch', 'retry', 'existing')),
        created_at INTEGER NOT NULL,
        actor TEXT NOT NULL
      );
      ALTER TABLE payments ADD COLUMN intent_id TEXT REFERENCES intents (id);
      ALTER TABLE payments ADD COLUMN retry_of TEXT;
      ALTER TABLE payments ADD COLUMN unknown_since INTEGER;
      ALTER TABLE payments ADD COLUMN resend_refused INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE payments ADD COLUMN not_found_since INTEGER;
      ALTER TABLE payments ADD COLUMN not_found_reads INTEGER NOT NULL DEFAULT 0;

      -- Payouts from before intents: one intent each, named by the payout.
      INSERT INTO intents (id, source, created_at, actor) SELECT id, 'existing', created_at, 'migration' FROM payments WHERE kind = 'payout';
      UPDATE payments SET intent_id = id WHERE kind = 'payout';
      -- A send interrupted before this version has an unknown outcome.
      UPDATE payments SET state = 'UNKNOWN', status = 'UNKNOWN', unknown_since = updated_at, next_poll_at = updated_at WHERE state = 'SENDING' AND kind = 'payout';

      CREATE INDEX payments_intent ON payments (intent_id, pk) WHERE intent_id IS NOT NULL;
      CREATE INDEX payments_retry_of ON payments (retry_of) WHERE retry_of IS NOT NULL;
      DROP INDEX payments_poll;
      CREATE INDEX payments_poll ON payments (next_poll_at) WHERE next_poll_at IS NOT NULL;
      UPDATE payments SET next_poll_at = NULL WHERE NOT (state = 'ACCEPTED' AND is_final = 0) AND state <> 'UNKNOWN';
      DROP INDEX payments_unsent;
      CREATE INDEX payments_unsent ON payments (state) WHERE state IN ('QUEUED', 'SENDING', 'UNKNOWN', 'HELD');
    `);
  },
  // 4: audit entries sealed with a key from the OS keychain (key_id names it; NULL: the earlier unkeyed
  //    chain), and an id for this journal under which the keychain keeps its audit key and head anchor.
  (db) => {
    db.exec(`
      ALTER TABLE audit_log ADD COLUMN key_id TEXT;
      INSERT INTO meta (key, value) VALUES ('journal_id', lower(hex(randomblob(16)))) ON CONFLICT (key) DO NOTHING;
    `);
  },
  // 5: payees are looked up by a key computed in JS (payeeKey: Unicode case folding and normalisation),
  //    which SQLite's ASCII-only lower() cannot give; every account a payee was paid to is one index read.
  (db) => {
    db.exec(`
      ALTER TABLE payments ADD COLUMN payee_name_key TEXT;
      ALTER TABLE payments ADD COLUMN payee_email_key TEXT;
      DROP INDEX payments_payee_name;
      DROP INDEX payments_payee_email;
    `);
    const update = db.prepare('UPDATE payments SET payee_name_key = ?, payee_email_key = ? WHERE pk = ?');
    for (const row of db.prepare(`SELECT pk, account_name, email_address FROM payments WHERE kind = 'payout'`).iterate() as IterableIterator<{ pk: number; account_name: string; email_address: string }>) {
      update.run(payeeKey(row.account_name), payeeKey(row.email_address), row.pk);
    }
    db.exec(`
      CREATE INDEX payments_payee_name_key ON payments (payee_name_key, account_number) WHERE kind = 'payout';
      CREATE INDEX payments_payee_email_key ON payments (payee_email_key, account_number) WHERE kind = 'payout';
    `);
  },
  // 6: dual control. People with their role history (grants are closed, never rewritten), approvals and
  //    rejections (each an Ed25519 signature over a manifest digest; append-only), the versions of the
  //    approval policy (append-only, each signed by an admin), and who prepared each batch and payout.
  //    approvals.signer_id has no foreign key on purpose: a row naming no person is refused by verification,
  //    which says so, rather than made impossible to see.
  (db) => {
    db.exec(`
      CREATE TABLE people (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        public_key TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        created_by TEXT,
        revoked_at INTEGER,
        revoked_by TEXT,
        revoke_reason TEXT
      );
      CREATE TABLE role_grants (
        seq INTEGER PRIMARY KEY,
        person_id TEXT NOT NULL REFERENCES people (id),
        role TEXT NOT NULL CHECK (role IN ('preparer', 'approver', 'sender', 'viewer', 'admin')),
        granted_at INTEGER NOT NULL,
        granted_by TEXT,
        removed_at INTEGER,
        removed_by TEXT
      );
      CREATE INDEX role_grants_person ON role_grants (person_id, seq);

      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        profile_id TEXT NOT NULL,
        subject_kind TEXT NOT NULL CHECK (subject_kind IN ('payout', 'batch')),
        subject_id TEXT NOT NULL,
        manifest_digest TEXT NOT NULL,
        policy_version INTEGER NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('approve', 'reject')),
        reason TEXT,
        signer_id TEXT NOT NULL,
        signed_at INTEGER NOT NULL,
        signature TEXT NOT NULL,
        recorded_at INTEGER NOT NULL
      );
      CREATE INDEX approvals_subject ON approvals (subject_kind, subject_id, recorded_at);
      CREATE INDEX approvals_recorded ON approvals (recorded_at);
      CREATE TRIGGER approvals_no_update BEFORE UPDATE ON approvals BEGIN
        SELECT RAISE(ABORT, 'approvals are append-only');
      END;
      CREATE TRIGGER approvals_no_delete BEFORE DELETE ON approvals BEGIN
        SELECT RAISE(ABORT, 'approvals are append-only');
      END;

      CREATE TABLE policies (
        version INTEGER PRIMARY KEY CHECK (version >= 1),
        profile_id TEXT NOT NULL,
        rules_json TEXT NOT NULL,
        set_by TEXT,
        set_at INTEGER NOT NULL,
        signature TEXT,
        recorded_at INTEGER NOT NULL
      );
      CREATE TRIGGER policies_no_update BEFORE UPDATE ON policies BEGIN
        SELECT RAISE(ABORT, 'policy versions are append-only');
      END;
      CREATE TRIGGER policies_no_delete BEFORE DELETE ON policies BEGIN
        SELECT RAISE(ABORT, 'policy versions are append-only');
      END;

      ALTER TABLE batches ADD COLUMN prepared_by TEXT;
      ALTER TABLE payments ADD COLUMN prepared_by TEXT;
    `);
  },
  // 7: the payee book. Each row is one version of a payee; versions are only added, then put in force
  //    (effective_at) or closed (superseded, rejected, withdrawn), never rewritten, so a change of bank
  //    details is a new version and the old ones stay. A version with effective_at NULL and closed_at NULL
  //    is a change waiting for approval (stored, not in force). At most one version of a payee is in force
  //    and at most one waits; one payee in force per name key. payee_approvals: each an Ed25519 signature
  //    over the change's digest (append-only, like approvals).
  (db) => {
    db.exec(`
      CREATE TABLE payees (
        seq INTEGER PRIMARY KEY,
        payee_id TEXT NOT NULL,
        version INTEGER NOT NULL CHECK (version >= 1),
        base_version INTEGER,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL,
        account_number TEXT NOT NULL,
        operator_code TEXT NOT NULL,
        email_address TEXT NOT NULL,
        email_key TEXT NOT NULL,
        reference_default TEXT,
        source TEXT NOT NULL CHECK (source IN ('hand', 'payout', 'import')),
        source_ref TEXT,
        bank_change INTEGER NOT NULL CHECK (bank_change IN (0, 1)),
        change_digest TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        created_by TEXT,
        effective_at INTEGER,
        closed_at INTEGER,
        closed_by TEXT,
        close_reason TEXT CHECK (close_reason IN ('superseded', 'rejected', 'withdrawn')),
        UNIQUE (payee_id, version)
      );
      CREATE UNIQUE INDEX payees_in_force ON payees (payee_id) WHERE effective_at IS NOT NULL AND closed_at IS NULL;
      CREATE UNIQUE INDEX payees_waiting ON payees (payee_id) WHERE effective_at IS NULL AND closed_at IS NULL;
      CREATE UNIQUE INDEX payees_name_in_force ON payees (name_key) WHERE effective_at IS NOT NULL AND closed_at IS NULL;
      CREATE INDEX payees_open_name ON payees (name_key) WHERE closed_at IS NULL;
      CREATE INDEX payees_open_email ON payees (email_key) WHERE closed_at IS NULL;
      CREATE TRIGGER payees_fixed BEFORE UPDATE OF seq, payee_id, version, base_version, name, name_key, account_number, operator_code,
        email_address, email_key, reference_default, source, source_ref, bank_change, change_digest, created_at, created_by ON payees BEGIN
        SELECT RAISE(ABORT, 'payee versions are never rewritten: add a version');
      END;
      CREATE TRIGGER payees_once BEFORE UPDATE OF effective_at, closed_at, closed_by, close_reason ON payees
      WHEN old.closed_at IS NOT NULL OR (old.effective_at IS NOT NULL AND new.effective_at IS NOT old.effective_at) BEGIN
        SELECT RAISE(ABORT, 'a payee version is put in force once and closed once');
      END;
      CREATE TRIGGER payees_no_delete BEFORE DELETE ON payees BEGIN
        SELECT RAISE(ABORT, 'payee versions are never deleted');
      END;

      CREATE TABLE payee_approvals (
        id TEXT PRIMARY KEY,
        profile_id TEXT NOT NULL,
        payee_id TEXT NOT NULL,
        payee_version INTEGER NOT NULL,
        change_digest TEXT NOT NULL,
        policy_version INTEGER NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('approve', 'reject')),
        reason TEXT,
        signer_id TEXT NOT NULL,
        signed_at INTEGER NOT NULL,
        signature TEXT NOT NULL,
        recorded_at INTEGER NOT NULL
      );
      CREATE INDEX payee_approvals_change ON payee_approvals (payee_id, payee_version, recorded_at);
      CREATE TRIGGER payee_approvals_no_update BEFORE UPDATE ON payee_approvals BEGIN
        SELECT RAISE(ABORT, 'payee approvals are append-only');
      END;
      CREATE TRIGGER payee_approvals_no_delete BEFORE DELETE ON payee_approvals BEGIN
        SELECT RAISE(ABORT, 'payee approvals are append-only');
      END;
    `);
  },
  // 8: the control chain (main/trust/): people, roles, revocations, policy versions and registered desks as
  //    records signed by the people entitled to make them, each naming the one before; records waiting for a
  //    second admin; the preparers' signatures over what they submitted. The people, role_grants and policies
  //    tables of migration 6 are no longer written: their rows are sealed into a chain by an admin, once.
  //    Append-only by trigger (a holder of the file can drop a trigger: what guards the records is their
  //    signatures and each desk's keychain pin, not this).
  (db) => {
    db.exec(`
      CREATE TABLE control_chain (
        seq INTEGER PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        record_json TEXT NOT NULL,
        recorded_at INTEGER NOT NULL
      );
      CREATE TABLE control_proposals (
        id INTEGER PRIMARY KEY,
        hash TEXT NOT NULL,
        record_json TEXT NOT NULL,
        recorded_at INTEGER NOT NULL
      );
      CREATE INDEX control_proposals_hash ON control_proposals (hash, id);
      CREATE TABLE preparations (
        id TEXT PRIMARY KEY,
        profile_id TEXT NOT NULL,
        subject_kind TEXT NOT NULL CHECK (subject_kind IN ('payout', 'batch')),
        subject_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        signer_id TEXT NOT NULL,
        signed_at INTEGER NOT NULL,
        signature TEXT NOT NULL,
        recorded_at INTEGER NOT NULL
      );
      CREATE INDEX preparations_subject ON preparations (subject_kind, subject_id, recorded_at);
    `);
    for (const table of ['control_chain', 'control_proposals', 'preparations']) {
      db.exec(`
        CREATE TRIGGER ${table}_no_update BEFORE UPDATE ON ${table} BEGIN SELECT RAISE(ABORT, '${table} is append-only'); END;
        CREATE TRIGGER ${table}_no_delete BEFORE DELETE ON ${table} BEGIN SELECT RAISE(ABORT, '${table} is append-only'); END;
      `);
    }
  },
  // 9: payouts by account, amount and currency: a new row like a recent payout is flagged as a possible
  //    duplicate (main/csv/journal-checks.ts), looked up per row among a million earlier payouts.
  (db) => {
    db.exec(`CREATE INDEX payments_like ON payments (account_number, amount_minor, currency_code, created_at) WHERE kind = 'payout';`);
  },
  // 10: the Overview (main/desk/overview.ts) at a million payouts: the last seven days' accepted payouts read
  //     from one covering index, and the payouts still to settle without a scan of the table.
  (db) => {
    db.exec(`
      CREATE INDEX payments_accepted ON payments (accepted_at, currency_code, fee_currency_code, is_final, status, amount_minor, fee_minor)
        WHERE kind = 'payout' AND accepted_at IS NOT NULL;
      CREATE INDEX payments_pending ON payments (currency_code, state, amount_minor) WHERE kind = 'payout' AND is_final = 0;
    `);
  },
  // 11: closing a period: statements as issued (never changed), movements already in an accounting export (so a
  // second export never repeats one), and the accounts those exports post to.
  (db) => {
    db.exec(`
      CREATE TABLE issued_statements (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        period_from INTEGER NOT NULL,
        period_to INTEGER NOT NULL,
        currency_scope TEXT NOT NULL,
        figures_json TEXT NOT NULL,
        digest TEXT NOT NULL,
        issued_at INTEGER NOT NULL,
        issued_by TEXT
      );
      CREATE INDEX issued_statements_period ON issued_statements (period_from, period_to, currency_scope, seq);
      CREATE TRIGGER issued_statements_no_update BEFORE UPDATE ON issued_statements BEGIN
        SELECT RAISE(ABORT, 'an issued statement is never changed: issue it again');
      END;
      CREATE TRIGGER issued_statements_no_delete BEFORE DELETE ON issued_statements BEGIN
        SELECT RAISE(ABORT, 'an issued statement is never deleted');
      END;
      CREATE TABLE exported_movements (
        movement_id TEXT PRIMARY KEY,
        export_id TEXT NOT NULL,
        exported_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TRIGGER exported_movements_no_update BEFORE UPDATE ON exported_movements BEGIN
        SELECT RAISE(ABORT, 'an exported movement stays exported');
      END;
      CREATE TRIGGER exported_movements_no_delete BEFORE DELETE ON exported_movements BEGIN
        SELECT RAISE(ABORT, 'an exported movement stays exported');
      END;
      CREATE TABLE accounting_accounts (
        only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
        accounts_json TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `);
  },
  // 12: remittance advice by e-mail (main/remittance/outbox.ts): one row per payout whose advice was mailed or is
  //     being, claimed before the SMTP server is spoken to (its primary key is the claim), with the server's reply.
  (db) => {
    db.exec(`
      CREATE TABLE remittance_mails (
        payout_id TEXT PRIMARY KEY NOT NULL,
        batch_id TEXT,
        recipient TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'retrying', 'sent', 'refused', 'failed')),
        attempts INTEGER NOT NULL CHECK (attempts >= 0),
        last_reply TEXT,
        message_id TEXT,
        sends INTEGER NOT NULL CHECK (sends >= 0),
        sent_at INTEGER,
        requested_by TEXT NOT NULL,
        claim TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX remittance_mails_batch ON remittance_mails (batch_id) WHERE batch_id IS NOT NULL;
    `);
  },
  // 13: duplicates across history for ERP payment runs (main/iso20022/run-refs.ts): the first batch that carried each
  //     pain.001 MsgId and EndToEndId, one row per reference (the key refuses a second), only ever added. Filled from
  //     the payouts already stored: each reference's earliest first attempt (retries carry their first attempt's).
  (db) => {
    db.exec(`
      CREATE TABLE payment_run_refs (
        kind TEXT NOT NULL CHECK (kind IN ('MsgId', 'EndToEndId')),
        ref TEXT NOT NULL,
        batch_id TEXT NOT NULL,
        payout_id TEXT,
        pmt_inf_id TEXT,
        recorded_at INTEGER NOT NULL,
        PRIMARY KEY (kind, ref)
      ) WITHOUT ROWID;
      CREATE TRIGGER payment_run_refs_no_update BEFORE UPDATE ON payment_run_refs BEGIN
        SELECT RAISE(ABORT, 'a payment run reference stays as first recorded');
      END;
      CREATE TRIGGER payment_run_refs_no_delete BEFORE DELETE ON payment_run_refs BEGIN
        SELECT RAISE(ABORT, 'a payment run reference stays as first recorded');
      END;
      INSERT OR IGNORE INTO payment_run_refs (kind, ref, batch_id, payout_id, pmt_inf_id, recorded_at)
        SELECT r.kind, r.ref, r.batch_id, r.payout_id, r.pmt_inf_id, r.created_at FROM (
          SELECT 'MsgId' AS kind, json_extract(details_json, '$.extra.MsgId') AS ref, batch_id, NULL AS payout_id, NULL AS pmt_inf_id, created_at, pk
            FROM payments WHERE kind = 'payout' AND batch_id IS NOT NULL AND retry_of IS NULL AND json_valid(details_json)
             AND json_extract(details_json, '$.extra.MsgNmId') LIKE 'pain.001.%'
          UNION ALL
          SELECT 'EndToEndId', json_extract(details_json, '$.extra.EndToEndId'), batch_id, id, NULLIF(json_extract(details_json, '$.extra.PmtInfId'), ''), created_at, pk
            FROM payments WHERE kind = 'payout' AND batch_id IS NOT NULL AND retry_of IS NULL AND json_valid(details_json)
             AND json_extract(details_json, '$.extra.MsgNmId') LIKE 'pain.001.%' AND json_extract(details_json, '$.extra.EndToEndId') <> 'NOTPROVIDED'
        ) AS r
        WHERE typeof(r.ref) = 'text' AND r.ref <> ''
        ORDER BY r.created_at, r.pk;
    `);
  },
  // 14: the calendar (main/schedules/): a payout or batch released at its time, one schedule per subject, written in
  //     the subject's own transaction. The due index serves the release loop's "what is due" at every tick.
  (db) => {
    db.exec(`
      CREATE TABLE schedules (
        subject_kind TEXT NOT NULL CHECK (subject_kind IN ('payout', 'batch')),
        subject_id TEXT NOT NULL,
        execute_at INTEGER NOT NULL,
        zone TEXT NOT NULL,
        local_time TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('SCHEDULED', 'LATE', 'RELEASED', 'CANCELLED')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        released_at INTEGER,
        released_by TEXT,
        late_by_ms INTEGER,
        PRIMARY KEY (subject_kind, subject_id)
      ) WITHOUT ROWID;
      CREATE INDEX schedules_due ON schedules (state, execute_at);
      CREATE INDEX schedules_at ON schedules (execute_at);
    `);
  },
  // 15: recurring payouts (main/schedules/recurring.ts): templates, and one row per template and date an occurrence
  //     was claimed, made, skipped or missed on. The primary key (template_id, occurrence_date) is the rule "never two
  //     payouts for one date": a desk claims the date by inserting it before it makes the payout.
  (db) => {
    db.exec(`
      CREATE TABLE recurring_templates (
        id TEXT PRIMARY KEY NOT NULL,
        payee_id TEXT NOT NULL,
        amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
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
        active_since INTEGER NOT NULL,
        created_by TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        changed_by TEXT
      ) WITHOUT ROWID;
      CREATE INDEX recurring_templates_payee ON recurring_templates (payee_id);
      CREATE TABLE recurring_occurrences (
        template_id TEXT NOT NULL REFERENCES recurring_templates (id),
        occurrence_date TEXT NOT NULL,
        payout_id TEXT,
        state TEXT NOT NULL CHECK (state IN ('CREATING', 'CREATED', 'SKIPPED', 'MISSED', 'FAILED')),
        reason TEXT,
        actor TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (template_id, occurrence_date)
      ) WITHOUT ROWID;
      CREATE TRIGGER recurring_occurrences_no_delete BEFORE DELETE ON recurring_occurrences BEGIN
        SELECT RAISE(ABORT, 'an occurrence of a recurring payout stays recorded');
      END;
    `);
  },
  // 16: the History screen's other sorts (its table sorts by created, amount or status) over a million payouts, as
  //     PostgreSQL migration 18 (bench/pg-history.ts): a page sorted by amount or status over a broad filter read and
  //     sorted every match (150-830 ms); the key's index (each ends with the rowid, pk) stops after a page.
  (db) => {
    db.exec(`
      CREATE INDEX payments_amount ON payments (amount_minor);
      CREATE INDEX payments_status_pk ON payments (status);
    `);
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export class JournalVersionError extends CodedError<'JOURNAL_TOO_NEW'> {
  constructor(found: number) {
    super('JOURNAL_TOO_NEW', `journal schema version ${found} is newer than this app understands (${SCHEMA_VERSION}); update the app`);
  }
}

/** Brings the file to the current schema; each step runs in its own transaction. */
export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) throw new JournalVersionError(current);
  for (let version = current; version < SCHEMA_VERSION; version++) {
    const step = MIGRATIONS[version];
    if (!step) break;
    db.transaction(() => {
      step(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}

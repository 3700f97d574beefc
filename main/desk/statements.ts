// statements:* — a period statement per currency (main/statements/build.ts) and its files (CSV, PDF, camt.053).
// For a period that has not ended, the closing balance is the gateway's now, read first by a desk that may ask.
// Every file made is audited with its SHA-256, so a statement handed on can be matched to what the desk issued.
// A closed period's statement is issued (stored with the SHA-256 of its figures, main/statements/issued.ts) when
// asked or at its first export; every later read of that period compares and names the figures that moved.
import type { FileContent, StatementFormat, StatementIssue, StatementQuery, StatementView } from '../../contract/api';
import type { DeskJournal } from '../journal/port';
import type { IssuedStatementRecord } from '../journal/types';
import { changesSince, figuresDigest, figuresJson } from '../statements/issued';
import { accountingService } from './accounting';
import { iso } from './convert';
import { NOT_SENDER_MESSAGE } from '../engine/payout-engine';
import type { Profile } from '../profiles/profile-schema';
import { buildStatementWithEntries, type ClosingRead } from '../statements/build';
import { statementCamt053 } from '../statements/camt053';
import { statementCsv } from '../statements/csv';
import { statementPdf } from '../statements/pdf';
import { localDayText } from '../statements/words';
import { sha256Hex } from '../approvals/canonical';
import type { CurrencyCache } from './currency-cache';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

/** A file name part from the profile's name: letters, digits and dashes. */
const slug = (text: string) => text.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase() || 'profile';

export function statementsService(rt: DeskRuntime, currencies: CurrencyCache, now: () => number = Date.now): ProfileAreaService<'statements'> {
  async function statementOf(profile: Profile, q: StatementQuery) {
    const period = { from: Date.parse(q.from), to: Date.parse(q.to), currencyCode: q.currencyCode };
    if (!(period.from < period.to)) throw new DeskError('INVALID_ARGUMENT', `The period must start before it ends (from ${q.from}, to ${q.to})`);
    const journal = await rt.journalFor(profile.id);
    let closingRead: ClosingRead = null;
    // A period that has not ended yet closes on the gateway's balance now, when this desk may ask for it.
    if (period.to >= now()) {
      try {
        const engine = await rt.engineFor(profile.id);
        if (!engine.sends) throw new DeskError('NOT_SENDER', NOT_SENDER_MESSAGE);
        const codes = q.currencyCode ? [q.currencyCode] : (await currencies.currencies(profile.id)).map((c) => c.code);
        closingRead = { snapshots: await engine.refreshBalances(codes) };
      } catch (e) {
        closingRead = { error: e instanceof Error ? e.message : String(e) };
      }
    }
    const built = await buildStatementWithEntries(journal, currencies.decimalsOf(profile.id), period, closingRead, now());
    const record = period.to <= now() ? await journal.issuedStatement(period.from, period.to, q.currencyCode ?? '') : null;
    built.view.issued = record ? issueOf(record, built.view) : null;
    return { ...built, journal, closed: period.to <= now() };
  }

  /** Stores the statement as issued now; the view then carries the issue (with no changes). */
  async function issue(profile: Profile, journal: DeskJournal, q: StatementQuery, view: StatementView): Promise<StatementView> {
    const json = figuresJson(view);
    const record = await journal.recordIssuedStatement({
      periodFrom: Date.parse(view.from),
      periodTo: Date.parse(view.to),
      currencyScope: q.currencyCode ?? '',
      figuresJson: json,
      digest: figuresDigest(json),
      issuedAt: now(),
      issuedBy: rt.sessionFor(profile.id)?.personId ?? null,
    });
    await rt.audit(profile.id, { action: 'statement.issued', subject: `${view.from}/${view.to}`, details: { currencyCode: q.currencyCode ?? null, digest: record.digest, seq: record.seq } });
    return { ...view, issued: issueOf(record, view) };
  }

  async function fileOf(profile: Profile, q: StatementQuery, format: StatementFormat): Promise<FileContent> {
    const { view: built, entries, journal, closed } = await statementOf(profile, q);
    // What is handed on of a closed period is on record: the first export issues it.
    const view = closed && !built.issued ? await issue(profile, journal, q, built) : built;
    const decimalsOf = currencies.decimalsOf(profile.id);
    const name = `statement-${slug(profile.name)}-${localDayText(Date.parse(view.from))}-${localDayText(Date.parse(view.to) - 1)}${q.currencyCode ? `-${q.currencyCode}` : ''}`;
    if (format === 'csv') return { fileName: `${name}.csv`, mimeType: 'text/csv', content: statementCsv(view, entries, decimalsOf) };
    if (format === 'camt053') {
      // At most 35 characters (ISO 20022 Max35Text), the same for the same statement.
      const messageId = `PD-${sha256Hex(Buffer.from(JSON.stringify(view))).slice(0, 24)}`;
      return { fileName: `${name}.camt053.xml`, mimeType: 'application/xml', content: await statementCamt053(view, entries, decimalsOf, { merchantCode: profile.merchantCode, name: profile.name }, messageId) };
    }
    const pdf = await statementPdf(view, entries, decimalsOf, profile.name);
    return { fileName: `${name}.pdf`, mimeType: 'application/pdf', content: pdf.toString('base64'), encoding: 'base64' };
  }

  return {
    ...accountingService(rt, currencies, now),
    async get(profile, q) {
      return (await statementOf(profile, q)).view;
    },
    async issue(profile, q) {
      const { view, journal, closed } = await statementOf(profile, q);
      if (!closed) throw new DeskError('PERIOD_OPEN', `The period ends ${q.to}, which has not passed: only a closed period's statement can be issued`);
      return issue(profile, journal, q, view);
    },
    async export(profile, { format, ...q }) {
      const file = await fileOf(profile, q, format);
      const bytes = Buffer.from(file.content, file.encoding === 'base64' ? 'base64' : 'utf8');
      await rt.audit(profile.id, { action: 'statement.exported', subject: `${q.from}/${q.to}`, details: { format, currencyCode: q.currencyCode ?? null, fileName: file.fileName, sha256: sha256Hex(bytes) } });
      return file;
    },
  };
}

/** An issued statement against the same period built now: intact when its stored figures still hash to its digest. */
function issueOf(record: IssuedStatementRecord, now: StatementView): StatementIssue {
  return {
    issuedAt: iso(record.issuedAt),
    issuedBy: record.issuedBy,
    digest: record.digest,
    intact: figuresDigest(record.figuresJson) === record.digest,
    changes: changesSince(record.figuresJson, now),
  };
}

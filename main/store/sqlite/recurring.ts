// Recurring payouts in a single desk's journal (migration 15): the port is main/schedules/recurring.ts.
import type { Journal } from '.';
import { prepared } from './prepared';
import type { RecurringOccurrence, RecurringStore, RecurringTemplate, TemplateState } from '../../schedules/recurring';
import { OCCURRENCE_COLUMNS, TEMPLATE_COLUMNS, toOccurrence, toTemplate, type OccurrenceRow, type TemplateRow } from '../recurring-rows';

export class SqliteRecurringStore implements RecurringStore {
  constructor(private readonly journal: Journal) {}

  private get db() {
    return this.journal.db;
  }

  async addTemplate(t: RecurringTemplate): Promise<void> {
    prepared(this.db, `INSERT INTO recurring_templates (${TEMPLATE_COLUMNS}) VALUES (${TEMPLATE_COLUMNS.split(', ').map(() => '?').join(', ')})`).run(
      t.id, t.payeeId, t.amountMinor, t.currencyCode, t.referencePattern, t.rule, t.start, t.endCount, t.endUntil, t.timeOfDay, t.zone, t.leadDays, t.state,
      t.activeSince, t.createdBy, t.createdAt, t.updatedAt, t.changedBy,
    );
  }

  async template(id: string): Promise<RecurringTemplate | null> {
    const row = prepared(this.db, `SELECT ${TEMPLATE_COLUMNS} FROM recurring_templates WHERE id = ?`).get(id) as TemplateRow | undefined;
    return row ? toTemplate(row) : null;
  }

  async templates(filter: { payeeId?: string; states?: readonly TemplateState[] } = {}): Promise<RecurringTemplate[]> {
    const rows = prepared(
      this.db,
      `SELECT ${TEMPLATE_COLUMNS} FROM recurring_templates
        WHERE (@payee IS NULL OR payee_id = @payee) AND (@states IS NULL OR state IN (SELECT value FROM json_each(@states)))
        ORDER BY created_at, id`,
    ).all({ payee: filter.payeeId ?? null, states: filter.states ? JSON.stringify(filter.states) : null }) as TemplateRow[];
    return rows.map(toTemplate);
  }

  async setTemplateState(id: string, change: { from: readonly TemplateState[]; to: TemplateState; at: number; by: string | null }): Promise<RecurringTemplate | null> {
    const row = prepared(
      this.db,
      `UPDATE recurring_templates SET state = @to, updated_at = @at, changed_by = @by,
              active_since = CASE WHEN @to = 'ACTIVE' THEN @at ELSE active_since END
        WHERE id = @id AND state IN (SELECT value FROM json_each(@from)) RETURNING ${TEMPLATE_COLUMNS}`,
    ).get({ id, to: change.to, at: change.at, by: change.by, from: JSON.stringify(change.from) }) as TemplateRow | undefined;
    return row ? toTemplate(row) : null;
  }

  async occurrences(templateIds: readonly string[]): Promise<RecurringOccurrence[]> {
    if (templateIds.length === 0) return [];
    const rows = prepared(
      this.db,
      `SELECT ${OCCURRENCE_COLUMNS} FROM recurring_occurrences WHERE template_id IN (SELECT value FROM json_each(?)) ORDER BY template_id, occurrence_date`,
    ).all(JSON.stringify([...new Set(templateIds)])) as OccurrenceRow[];
    return rows.map(toOccurrence);
  }

  async recordOccurrence(o: Omit<RecurringOccurrence, 'updatedAt'>): Promise<boolean> {
    const r = prepared(
      this.db,
      `INSERT INTO recurring_occurrences (${OCCURRENCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (template_id, occurrence_date) DO NOTHING`,
    ).run(o.templateId, o.date, o.payoutId, o.state, o.reason, o.actor, o.createdAt, o.createdAt);
    return r.changes === 1;
  }

  async reclaimOccurrence(templateId: string, date: string, change: { actor: string; at: number; staleBefore: number }): Promise<boolean> {
    const r = prepared(
      this.db,
      `UPDATE recurring_occurrences SET actor = ?, updated_at = ? WHERE template_id = ? AND occurrence_date = ? AND state = 'CREATING' AND updated_at < ?`,
    ).run(change.actor, change.at, templateId, date, change.staleBefore);
    return r.changes === 1;
  }

  async settleOccurrence(templateId: string, date: string, change: { state: 'CREATED' | 'FAILED'; reason: string | null; at: number }): Promise<boolean> {
    const r = prepared(
      this.db,
      `UPDATE recurring_occurrences SET state = ?, reason = ?, updated_at = ? WHERE template_id = ? AND occurrence_date = ? AND state = 'CREATING'`,
    ).run(change.state, change.reason, change.at, templateId, date);
    return r.changes === 1;
  }
}

// Recurring payouts on the team database (migration 16), shared by the team's desks: the port is
// main/schedules/recurring.ts. An occurrence is claimed by inserting its (template, date): of two desks that look at
// the same date at once, the key lets exactly one insert, and only that one makes the payout.
import type { Pool } from 'pg';
import type { RecurringOccurrence, RecurringStore, RecurringTemplate, TemplateState } from '../../schedules/recurring';
import { OCCURRENCE_COLUMNS, TEMPLATE_COLUMNS, toOccurrence, toTemplate, type OccurrenceRow, type TemplateRow } from '../recurring-rows';

const placeholders = (n: number): string => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ');

export class PgRecurringStore implements RecurringStore {
  constructor(private readonly pool: Pool) {}

  async addTemplate(t: RecurringTemplate): Promise<void> {
    await this.pool.query(`INSERT INTO recurring_templates (${TEMPLATE_COLUMNS}) VALUES (${placeholders(18)})`, [
      t.id, t.payeeId, t.amountMinor, t.currencyCode, t.referencePattern, t.rule, t.start, t.endCount, t.endUntil, t.timeOfDay, t.zone, t.leadDays, t.state,
      t.activeSince, t.createdBy, t.createdAt, t.updatedAt, t.changedBy,
    ]);
  }

  async template(id: string): Promise<RecurringTemplate | null> {
    const row = (await this.pool.query<TemplateRow>(`SELECT ${TEMPLATE_COLUMNS} FROM recurring_templates WHERE id = $1`, [id])).rows[0];
    return row ? toTemplate(row) : null;
  }

  async templates(filter: { payeeId?: string; states?: readonly TemplateState[] } = {}): Promise<RecurringTemplate[]> {
    const r = await this.pool.query<TemplateRow>(
      `SELECT ${TEMPLATE_COLUMNS} FROM recurring_templates
        WHERE ($1::text IS NULL OR payee_id = $1) AND ($2::text[] IS NULL OR state = ANY($2::text[]))
        ORDER BY created_at, id`,
      [filter.payeeId ?? null, filter.states ? [...filter.states] : null],
    );
    return r.rows.map(toTemplate);
  }

  async setTemplateState(id: string, change: { from: readonly TemplateState[]; to: TemplateState; at: number; by: string | null }): Promise<RecurringTemplate | null> {
    const row = (await this.pool.query<TemplateRow>(
      `UPDATE recurring_templates SET state = $2, updated_at = $3, changed_by = $4,
              active_since = CASE WHEN $2 = 'ACTIVE' THEN $3 ELSE active_since END
        WHERE id = $1 AND state = ANY($5::text[]) RETURNING ${TEMPLATE_COLUMNS}`,
      [id, change.to, change.at, change.by, [...change.from]],
    )).rows[0];
    return row ? toTemplate(row) : null;
  }

  async occurrences(templateIds: readonly string[]): Promise<RecurringOccurrence[]> {
    if (templateIds.length === 0) return [];
    const r = await this.pool.query<OccurrenceRow>(
      `SELECT ${OCCURRENCE_COLUMNS} FROM recurring_occurrences WHERE template_id = ANY($1::text[]) ORDER BY template_id, occurrence_date`,
      [[...new Set(templateIds)]],
    );
    return r.rows.map(toOccurrence);
  }

  async recordOccurrence(o: Omit<RecurringOccurrence, 'updatedAt'>): Promise<boolean> {
    const r = await this.pool.query(
      `INSERT INTO recurring_occurrences (${OCCURRENCE_COLUMNS}) VALUES (${placeholders(7)}, $7) ON CONFLICT (template_id, occurrence_date) DO NOTHING`,
      [o.templateId, o.date, o.payoutId, o.state, o.reason, o.actor, o.createdAt],
    );
    return r.rowCount === 1;
  }

  async reclaimOccurrence(templateId: string, date: string, change: { actor: string; at: number; staleBefore: number }): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE recurring_occurrences SET actor = $3, updated_at = $4 WHERE template_id = $1 AND occurrence_date = $2 AND state = 'CREATING' AND updated_at < $5`,
      [templateId, date, change.actor, change.at, change.staleBefore],
    );
    return r.rowCount === 1;
  }

  async settleOccurrence(templateId: string, date: string, change: { state: 'CREATED' | 'FAILED'; reason: string | null; at: number }): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE recurring_occurrences SET state = $3, reason = $4, updated_at = $5 WHERE template_id = $1 AND occurrence_date = $2 AND state = 'CREATING'`,
      [templateId, date, change.state, change.reason, change.at],
    );
    return r.rowCount === 1;
  }
}

// Display formatting for the renderer. Amounts arrive from main as decimal strings and are handed to
// Intl.NumberFormat as strings: modern Intl parses a numeric string as an exact decimal, so no float
// ever stands between the journal and the screen.

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

const formatters = new Map<string, Intl.NumberFormat>();

function amountFormatter(currencyCode: string, decimals: number | undefined): Intl.NumberFormat {
  const key = `${currencyCode}/${decimals ?? ''}`;
  let f = formatters.get(key);
  if (!f) {
    const base: Intl.NumberFormatOptions = { style: 'currency', currency: currencyCode, currencyDisplay: 'code' };
    if (decimals !== undefined) {
      base.minimumFractionDigits = decimals;
      base.maximumFractionDigits = decimals;
    }
    try {
      f = new Intl.NumberFormat(undefined, base);
    } catch {
      // An unknown currency code: show the number and the code side by side instead.
      f = new Intl.NumberFormat(undefined, { minimumFractionDigits: decimals ?? 0, maximumFractionDigits: decimals ?? 20 });
    }
    formatters.set(key, f);
  }
  return f;
}

/** "1250.5" + "EUR" → "EUR 1,250.50" in the user's locale. Unparseable input is shown as received. */
export function formatAmount(amount: string | undefined | null, currencyCode: string | undefined | null, decimals?: number): string {
  if (amount === undefined || amount === null || amount === '') return '—';
  const text = amount.trim();
  if (!PLAIN_DECIMAL.test(text)) return `${amount} ${currencyCode ?? ''}`.trim();
  const formatter = amountFormatter(currencyCode ?? 'XXX', decimals);
  const formatted = formatter.format(text as Intl.StringNumericLiteral);
  return formatter.resolvedOptions().style === 'currency' ? formatted : `${formatted} ${currencyCode ?? ''}`.trim();
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function formatDateTime(iso: string | undefined | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

const integer = new Intl.NumberFormat();
export function formatCount(n: number): string {
  return integer.format(n);
}

/** Seconds → "1 min 05 s" style text for time-left estimates. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(s % 60).padStart(2, '0')} s`;
}

/** Colour of a status chip: green for success, red for failures, amber for anything in flight. */
export function statusColor(status: string | undefined | null): string {
  switch ((status ?? '').toUpperCase()) {
    case 'SUCCESS':
    case 'COMPLETED':
    case 'DONE':
      return 'success';
    case 'RUNNING':
    case 'QUEUED':
    case 'PAUSED':
    case 'CANCELLING':
      return 'info';
    case 'FAILED':
    case 'REJECTED':
    case 'CANCELLED':
    case 'EXPIRED':
    case 'RETURNED':
    case 'MISMATCH':
      return 'error';
    case 'DRAFT':
      return 'grey';
    default:
      return 'warning';
  }
}

import { plural } from '../../contract/plural';
// Display formatting for the renderer. Amounts arrive from main as decimal strings and are handed to
// Intl.NumberFormat as strings: modern Intl parses a numeric string as an exact decimal, so no float
// ever stands between the journal and the screen. The fraction digits come from the string itself
// (main writes every amount with the gateway's decimals for its currency), never from ISO 4217: a
// currency the gateway keeps with more decimals than ISO would otherwise be rounded on screen.

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;
/** Intl accepts at most 100 fraction digits; a longer string is shown as received. */
const MAX_INTL_FRACTION_DIGITS = 100;

const formatters = new Map<string, Intl.NumberFormat>();

function amountFormatter(currencyCode: string, fractionDigits: number): Intl.NumberFormat {
  const key = `${currencyCode}/${fractionDigits}`;
  let f = formatters.get(key);
  if (!f) {
    const digits = { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits };
    try {
      f = new Intl.NumberFormat(undefined, { style: 'currency', currency: currencyCode, currencyDisplay: 'code', ...digits });
    } catch {
      // An unknown currency code: show the number and the code side by side instead.
      f = new Intl.NumberFormat(undefined, digits);
    }
    formatters.set(key, f);
  }
  return f;
}

/** Digits after the decimal point of a plain decimal string ("12.500" → 3, "7" → 0). */
export function fractionDigitsOf(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/**
 * "1250.50" + "EUR" → "EUR 1,250.50" in the user's locale, with exactly the fraction digits of the
 * string: "10.125" KWD keeps its three, "100" JPY none. `minDecimals` only pads ("1250.5" with 2 →
 * "1,250.50"); nothing is ever rounded away. Unparseable input is shown as received.
 */
export function formatAmount(amount: string | undefined | null, currencyCode: string | undefined | null, minDecimals?: number): string {
  if (amount === undefined || amount === null || amount === '') return '—';
  const text = amount.trim();
  const digits = Math.max(fractionDigitsOf(text), minDecimals ?? 0);
  if (!PLAIN_DECIMAL.test(text) || digits > MAX_INTL_FRACTION_DIGITS) return `${amount} ${currencyCode ?? ''}`.trim();
  const formatter = amountFormatter(currencyCode ?? 'XXX', digits);
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

/** "1 payout", "1,200 payouts": a count and its noun in the reader's digits (contract/plural.ts). */
export function countOf(n: number, one: string, many?: string): string {
  return plural(n, one, many, formatCount);
}

/** Seconds → "1 min 05 s" style text for time-left estimates. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(s % 60).padStart(2, '0')} s`;
}

/**
 * Colour of a status chip: green for success, red for failures, amber for anything in flight, and a
 * colour of its own for each state that waits for a person or for the desk's check (theme colours).
 */
export function statusColor(status: string | undefined | null): string {
  switch ((status ?? '').toUpperCase()) {
    case 'SUCCESS':
    case 'COMPLETED':
    case 'DONE':
      return 'success';
    case 'RUNNING':
    case 'SENT':
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
    case 'HELD':
      return 'held';
    case 'UNKNOWN':
    case 'WAITING':
    case 'STOPPED':
      return 'unknown';
    case 'MISSING':
      return 'missing';
    case 'DISCARDED':
      return 'discarded';
    default:
      return 'warning';
  }
}

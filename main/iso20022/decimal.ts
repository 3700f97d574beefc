// Exact decimal arithmetic for pain.001's control sums: amounts and CtrlSum are xs:decimal text ("1250.5",
// "0.07"), added and compared as scaled big integers, never as floats (a float sum of 100,000 amounts drifts).

/** xs:decimal as a pain.001 amount or sum is written: digits, an optional "." and decimals, no sign, no exponent. */
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export function isDecimalText(text: string): boolean {
  return DECIMAL.test(text);
}

/** The value as digits at a scale: "12.5" → { digits: 125n, scale: 1 }; null when the text is not a decimal. */
export function parseDecimal(text: string): { digits: bigint; scale: number } | null {
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const fraction = match[2] ?? '';
  return { digits: BigInt((match[1] ?? '0') + fraction), scale: fraction.length };
}

const POWERS: bigint[] = [1n];
/** 10^n, remembered: sums rescale often to the same few scales. */
function pow10(n: number): bigint {
  for (let i = POWERS.length; i <= n; i++) POWERS.push(POWERS[i - 1]! * 10n);
  return POWERS[n]!;
}

/** A running exact sum of decimal texts. */
export class DecimalSum {
  private digits = 0n;
  private scale = 0;

  /** Adds a decimal text; false (and nothing added) when it is not one. */
  add(text: string): boolean {
    const value = parseDecimal(text);
    if (!value) return false;
    this.addScaled(value.digits, value.scale);
    return true;
  }

  /** Adds digits at a scale (as parseDecimal gives them). */
  addScaled(digits: bigint, scale: number): void {
    if (scale > this.scale) {
      this.digits *= pow10(scale - this.scale);
      this.scale = scale;
    }
    this.digits += scale === this.scale ? digits : digits * pow10(this.scale - scale);
  }

  /** True when the decimal text has exactly this value ("100.50" equals a sum of 100.5); false for a non-decimal. */
  equals(text: string): boolean {
    const value = parseDecimal(text);
    if (!value) return false;
    const scale = Math.max(value.scale, this.scale);
    return this.digits * pow10(scale - this.scale) === value.digits * pow10(scale - value.scale);
  }

  /** The sum as plain decimal text with the decimals it was given ("1250.50"). */
  toString(): string {
    const text = this.digits.toString().padStart(this.scale + 1, '0');
    return this.scale === 0 ? text : `${text.slice(0, -this.scale)}.${text.slice(-this.scale)}`;
  }
}

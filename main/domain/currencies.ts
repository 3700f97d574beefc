// ISO 4217 minor units: the fallback when the gateway's GET /currencies is unavailable or silent.
const ISO_4217_DECIMALS: Readonly<Record<string, number>> = {
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  CLF: 4, UYW: 4,
};

const CURRENCY_CODE = /^[A-Z]{3}$/;

export function isCurrencyCode(code: string): boolean {
  return CURRENCY_CODE.test(code);
}

/** Decimals of a currency: the gateway's answer when known, else ISO 4217 (2 for most codes). */
export function currencyDecimals(code: string, fromGateway?: ReadonlyMap<string, number>): number {
  const known = fromGateway?.get(code);
  if (known !== undefined && Number.isInteger(known) && known >= 0 && known <= 6) return known;
  return ISO_4217_DECIMALS[code] ?? 2;
}

/** House decision (DESIGN.md §3): payment ids are 1-64 of [A-Za-z0-9_-]. */
export const PAYMENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidPaymentId(id: string): boolean {
  return PAYMENT_ID_PATTERN.test(id);
}

/** A fresh merchant-side id: a UUID, as the interface recommends. */
export function newPaymentId(): string {
  return globalThis.crypto.randomUUID();
}

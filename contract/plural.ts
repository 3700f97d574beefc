// A count and its noun, the singular for exactly one: "1 payout", "3 payouts", "1 policy version". The CLI,
// the desk's messages and the screens all count through here, so none of them says "1 payouts" or "row(s)".

/** `many` is the plural when it is not the noun with an "s"; `format` writes the number (default en-US digits). */
export function plural(n: number, one: string, many = `${one}s`, format: (n: number) => string = (x) => x.toLocaleString('en-US')): string {
  return `${format(n)} ${n === 1 ? one : many}`;
}

// A CSV file sent over IPC as base64 (the contract takes it beside raw bytes, for callers that can only send
// text). At the 50 MB limit that is 67 M characters: one regular expression over it, or one Buffer.from,
// holds the main process's event loop for 100 ms or more. So the text is checked and decoded a slice at a
// time, with a turn of the event loop between slices.

/** Characters per slice: a multiple of 4, so each slice decodes to whole bytes on its own (about 1 ms of work). */
export const BASE64_SLICE_CHARS = 1024 * 1024;

const ALPHABET = /^[A-Za-z0-9+/]*$/;
const PAD = 61; // "="

/**
 * Decodes standard base64 (padding optional, as Buffer accepts it) into bytes, a slice at a time. Returns
 * null when the text is not base64: anything outside A-Z a-z 0-9 + /, or "=" anywhere but the last two places.
 * It accepts what the single check `^[A-Za-z0-9+/]*={0,2}$` accepts, and decodes to the bytes Buffer.from gives.
 */
export async function decodeBase64InSlices(
  text: string,
  yieldNow: () => Promise<void>,
  sliceChars = BASE64_SLICE_CHARS,
): Promise<Uint8Array | null> {
  if (sliceChars <= 0 || sliceChars % 4 !== 0) throw new RangeError('sliceChars must be a positive multiple of 4');
  // The padding ("=" or "==" at the very end) says nothing Buffer needs; the rest must be the alphabet only.
  let end = text.length;
  while (end > 0 && text.length - end < 2 && text.charCodeAt(end - 1) === PAD) end--;
  const out = Buffer.allocUnsafeSlow(Math.floor((end * 3) / 4));
  let written = 0;
  for (let start = 0; start < end; start += sliceChars) {
    const slice = text.slice(start, Math.min(start + sliceChars, end));
    if (!ALPHABET.test(slice)) return null;
    written += out.write(slice, written, 'base64');
    if (start + sliceChars < end) await yieldNow();
  }
  return new Uint8Array(out.buffer, out.byteOffset, written);
}

// The pieces that keep a 100,000-row file from stalling the main process: base64 checked and decoded a
// slice at a time (exactly what one regular expression and one Buffer.from would do), and loops that give
// the event loop a turn once their time slice is used up. No timing thresholds here: the stall figures
// live in bench/csv.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASE64_SLICE_CHARS, decodeBase64InSlices } from '../../../main/csv/base64';
import { mapInSlices, SLICE_MS, TimeSlicer } from '../../../main/csv/time-slice';

const noYield = async (): Promise<void> => {};
const OLD_SCHEMA_CHECK = /^[A-Za-z0-9+/]*={0,2}$/;

describe('decodeBase64InSlices', () => {
  it('decodes what Buffer.from decodes, slice size whatever', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.constantFrom(4, 8, 12, 64, BASE64_SLICE_CHARS), async (bytes, slice) => {
        const text = Buffer.from(bytes).toString('base64');
        const decoded = await decodeBase64InSlices(text, noYield, slice);
        expect(decoded).toBeInstanceOf(Uint8Array);
        expect(Buffer.from(decoded ?? [])).toEqual(Buffer.from(bytes));
        // Without its padding too (Buffer accepts that).
        expect(Buffer.from((await decodeBase64InSlices(text.replace(/=+$/, ''), noYield, slice)) ?? [])).toEqual(Buffer.from(bytes));
      }),
    );
  });

  it('accepts exactly what the old schema pattern accepted, and then decodes like Buffer.from', async () => {
    const unit = fc.constantFrom('A', 'z', '0', '9', '+', '/', '=', '-', '_', ' ', '\n', '.', 'é');
    await fc.assert(
      fc.asyncProperty(fc.string({ unit, maxLength: 40 }), fc.constantFrom(4, 8, 16), async (text, slice) => {
        const decoded = await decodeBase64InSlices(text, noYield, slice);
        expect(decoded !== null).toBe(OLD_SCHEMA_CHECK.test(text));
        if (decoded) expect(Buffer.from(decoded)).toEqual(Buffer.from(text, 'base64'));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses base64url, white space and padding in the middle', async () => {
    for (const bad of ['ab-_', 'QUJD REVG', 'QUJD\nREVG', 'QQ==QUJD', 'QUJD===']) {
      expect(await decodeBase64InSlices(bad, noYield, 4)).toBeNull();
    }
  });

  it('gives the event loop a turn between slices', async () => {
    let turns = 0;
    const text = Buffer.alloc(3000, 7).toString('base64'); // 4,000 characters
    await decodeBase64InSlices(text, async () => {
      turns++;
    }, 1000);
    expect(turns).toBe(3);
    await expect(decodeBase64InSlices(text, noYield, 6)).rejects.toThrow(RangeError);
  });
});

describe('time slices', () => {
  const busy = (ms: number): void => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      // spin
    }
  };

  it('a slicer is due only after its budget, and pause() starts a new slice', async () => {
    let turns = 0;
    // A long budget, so a busy machine pausing this test for a moment cannot make the first answer true.
    const budget = 200;
    const slicer = new TimeSlicer(async () => {
      turns++;
    }, 1, budget);
    expect(slicer.due()).toBe(false);
    busy(budget + 1);
    expect(slicer.due()).toBe(true);
    await slicer.pause();
    expect(turns).toBe(1);
    expect(slicer.due()).toBe(false);
  });

  it('per-row loops read the clock only every 256 iterations', () => {
    const slicer = new TimeSlicer(noYield);
    busy(SLICE_MS + 1);
    const answers = Array.from({ length: 256 }, () => slicer.due());
    expect(answers.slice(0, 255).every((a) => !a)).toBe(true);
    expect(answers[255]).toBe(true);
  });

  it('mapInSlices maps like Array.map and yields when the work takes longer than a slice', async () => {
    let turns = 0;
    const items = Array.from({ length: 1024 }, (_, i) => i);
    const out = await mapInSlices(
      items,
      (i) => {
        if (i % 256 === 0) busy(SLICE_MS + 1); // each block of 256 rows is longer than a slice
        return i * 2;
      },
      async () => {
        turns++;
      },
    );
    expect(out).toEqual(items.map((i) => i * 2));
    expect(turns).toBe(4);
  });
});

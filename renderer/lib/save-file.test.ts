import { describe, expect, it } from 'vitest';
import { fileBytes } from './save-file';

describe('fileBytes', () => {
  it('decodes a base64 file to its exact bytes, not to the text of the base64', async () => {
    // "%PDF-" then bytes a text round trip would mangle (0x00, 0x80, 0xff).
    const bytes = [0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0x80, 0xff];
    const content = btoa(String.fromCharCode(...bytes));
    const blob = new Blob([fileBytes({ fileName: 'a.pdf', mimeType: 'application/pdf', content, encoding: 'base64' })]);
    expect([...new Uint8Array(await blob.arrayBuffer())]).toEqual(bytes);
  });

  it('keeps a text file as its text', () => {
    expect(fileBytes({ fileName: 'a.csv', mimeType: 'text/csv', content: 'a,b\r\n' })).toBe('a,b\r\n');
  });
});

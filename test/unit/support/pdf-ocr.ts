// A PDF page as a person sees it: drawn to a PNG by poppler's pdftoppm, then read back by the tesseract OCR engine.
// What a test finds this way is on the page as pixels, not only in the PDF's text layer.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export function ocrPage(pdfFile: string, page: number, workDir: string): string {
  const base = join(workDir, `ocr-page-${page}`);
  execFileSync('pdftoppm', ['-png', '-r', '150', '-f', String(page), '-l', String(page), '-singlefile', pdfFile, base]);
  return execFileSync('tesseract', [`${base}.png`, '-', '--psm', '4'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
}

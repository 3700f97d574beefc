// Saves a file handed back by main (exports, templates, key letters, statements) through the browser's download
// path, which Electron turns into a native save dialog.
import type { FileContent } from '../../contract/api';

/** What goes into the file: the exact bytes of a base64 file (a PDF), the text of any other. */
export function fileBytes(file: FileContent): Uint8Array<ArrayBuffer> | string {
  if (file.encoding !== 'base64') return file.content;
  return Uint8Array.from(atob(file.content), (c) => c.charCodeAt(0));
}

export function saveFile(file: FileContent): void {
  const blob = new Blob([fileBytes(file)], { type: file.mimeType });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = file.fileName;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

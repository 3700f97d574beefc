// Saves text handed back by main (exports, templates, key letters) through the browser's download path,
// which Electron turns into a native save dialog.
import type { FileContent } from '../../contract/api';

export function saveFile(file: FileContent): void {
  const blob = new Blob([file.content], { type: file.mimeType });
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

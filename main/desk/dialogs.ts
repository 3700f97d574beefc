// The system file dialogs main opens for the user, as a port: the Electron app passes its own
// (main/shell/file-dialogs.ts); the CLI, the tests and the Playwright harness pass a fake or none.
// A cancelled dialog answers null, which the services report as an outcome, not an error.

export interface FileFilter {
  name: string;
  extensions: string[];
}

export interface DialogPort {
  /** An existing file to read. */
  chooseOpenFile(options: { title: string; filters: FileFilter[] }): Promise<string | null>;
  /** A new file to write; the dialog opens in the user's documents folder with `defaultFileName`. */
  chooseSavePath(options: { title: string; defaultFileName: string; filters: FileFilter[] }): Promise<string | null>;
}

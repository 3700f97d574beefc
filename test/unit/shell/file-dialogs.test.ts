// Main's dialogs over Electron's dialog module, with a stand-in for it (electron cannot be required
// under Node): the chosen path comes back, Cancel is null, a save starts in the documents folder.
import { describe, expect, it } from 'vitest';
import type { BaseWindow, Dialog } from 'electron';
import { electronFileDialogs } from '../../../main/shell/file-dialogs';

function fakeDialog(answer: { canceled: boolean; filePaths?: string[]; filePath?: string }) {
  const calls: unknown[][] = [];
  const dialog = {
    showOpenDialog: async (...args: unknown[]) => {
      calls.push(args);
      return { canceled: answer.canceled, filePaths: answer.filePaths ?? [] };
    },
    showSaveDialog: async (...args: unknown[]) => {
      calls.push(args);
      return { canceled: answer.canceled, filePath: answer.filePath ?? '' };
    },
  } as unknown as Pick<Dialog, 'showOpenDialog' | 'showSaveDialog'>;
  return { dialog, calls };
}

const window = { id: 1 } as unknown as BaseWindow;
const filters = [{ name: 'PEM', extensions: ['pem'] }];

describe('electronFileDialogs', () => {
  it('opens a file dialog modal to the window and answers the chosen path', async () => {
    const { dialog, calls } = fakeDialog({ canceled: false, filePaths: ['/home/finance/key.pem'] });
    const port = electronFileDialogs({ dialog, window: () => window, documentsDir: '/home/finance/Documents' });
    expect(await port.chooseOpenFile({ title: 'Choose', filters })).toBe('/home/finance/key.pem');
    expect(calls[0]).toEqual([window, { title: 'Choose', filters, properties: ['openFile'] }]);
  });

  it('answers null when the person cancels either dialog', async () => {
    const { dialog } = fakeDialog({ canceled: true, filePaths: ['/ignored'], filePath: '/ignored' });
    const port = electronFileDialogs({ dialog, window: () => null, documentsDir: '/docs' });
    expect(await port.chooseOpenFile({ title: 'Choose', filters })).toBeNull();
    expect(await port.chooseSavePath({ title: 'Save', defaultFileName: 'k.pem', filters })).toBeNull();
  });

  it('starts a save in the documents folder, without offering to make folders', async () => {
    const { dialog, calls } = fakeDialog({ canceled: false, filePath: '/media/usb/k.backup.pem' });
    const port = electronFileDialogs({ dialog, window: () => null, documentsDir: '/home/finance/Documents' });
    expect(await port.chooseSavePath({ title: 'Save', defaultFileName: 'k.backup.pem', filters })).toBe('/media/usb/k.backup.pem');
    expect(calls[0]).toEqual([{ title: 'Save', filters, defaultPath: '/home/finance/Documents/k.backup.pem' }]);
  });
});

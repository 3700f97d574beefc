// One running desk per user: a second launch quits at once, and the first one brings its window back.
import { describe, expect, it, vi } from 'vitest';
import { acquireSingleInstance } from '../../../main/shell/single-instance';

type Listener = (...args: unknown[]) => void;

function fakeApp(gotLock: boolean) {
  const listeners = new Map<string, Listener[]>();
  const app = {
    requestSingleInstanceLock: vi.fn(() => gotLock),
    quit: vi.fn(),
    on: vi.fn((event: string, listener: Listener) => {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return app;
    }),
  };
  /** What Electron does in the first instance when a second one starts: (event, argv, workingDirectory, additionalData). */
  const secondInstance = () => {
    for (const listener of listeners.get('second-instance') ?? []) listener({ preventDefault: () => undefined }, ['payout-desk'], '/home/user', {});
  };
  return { app, listeners, secondInstance };
}

function fakeWindow(minimized: boolean) {
  const calls: string[] = [];
  let isMin = minimized;
  return {
    calls,
    window: {
      isMinimized: () => isMin,
      restore: () => {
        calls.push('restore');
        isMin = false;
      },
      focus: () => void calls.push('focus'),
      show: () => void calls.push('show'),
    },
  };
}

describe('acquireSingleInstance', () => {
  it('a second instance (no lock) quits and does not start: no listener, false returned', () => {
    const { app } = fakeApp(false);
    const mainWindow = vi.fn(() => null);
    expect(acquireSingleInstance(app as never, mainWindow)).toBe(false);
    expect(app.quit).toHaveBeenCalledOnce();
    expect(app.on).not.toHaveBeenCalled();
    expect(mainWindow).not.toHaveBeenCalled();
  });

  it('the first instance keeps running and listens for second launches', () => {
    const { app, listeners } = fakeApp(true);
    expect(acquireSingleInstance(app as never, () => null)).toBe(true);
    expect(app.requestSingleInstanceLock).toHaveBeenCalledOnce();
    expect(app.quit).not.toHaveBeenCalled();
    expect(listeners.get('second-instance')).toHaveLength(1);
  });

  it('on second-instance, restores a minimized window first and then focuses it', () => {
    const { app, secondInstance } = fakeApp(true);
    const { window, calls } = fakeWindow(true);
    acquireSingleInstance(app as never, () => window as never);
    secondInstance();
    expect(calls).toEqual(['restore', 'focus']);
    expect(app.quit).not.toHaveBeenCalled();
  });

  it('on second-instance, focuses a window that is not minimized without restoring it', () => {
    const { app, secondInstance } = fakeApp(true);
    const { window, calls } = fakeWindow(false);
    acquireSingleInstance(app as never, () => window as never);
    secondInstance();
    expect(calls).toEqual(['focus']);
  });

  it('asks for the window at the time of the second launch (it may have been reopened since)', () => {
    const { app, secondInstance } = fakeApp(true);
    const first = fakeWindow(false);
    const second = fakeWindow(true);
    let current: unknown = first.window;
    acquireSingleInstance(app as never, () => current as never);
    current = second.window;
    secondInstance();
    expect(first.calls).toEqual([]);
    expect(second.calls).toEqual(['restore', 'focus']);
  });

  it('does nothing (and does not throw) when no window is open yet or any more', () => {
    const { app, secondInstance } = fakeApp(true);
    acquireSingleInstance(app as never, () => null);
    expect(() => secondInstance()).not.toThrow();
    expect(app.quit).not.toHaveBeenCalled();
  });
});

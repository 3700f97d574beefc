// Dual control: when the OS locks the screen or the machine suspends, every profile's unlocked person is
// forgotten (their signing key dropped), as if they had pressed Lock. Electron's powerMonitor is passed in
// as a plain emitter, so this runs and is tested under Node with a fake one.

export interface PowerEvents {
  on(event: 'lock-screen' | 'suspend', listener: () => void): unknown;
  removeListener(event: 'lock-screen' | 'suspend', listener: () => void): unknown;
}

export interface SessionLocker {
  lockAll(reason: 'os-lock' | 'suspend'): Promise<number>;
}

/** Locks every session on 'lock-screen' and 'suspend'; returns a function that stops listening. */
export function lockSessionsOnPowerEvents(power: PowerEvents, sessions: SessionLocker, log?: { warn(message: string, fields?: Record<string, unknown>): void }): () => void {
  const onLock = () => void sessions.lockAll('os-lock').catch((error: unknown) => log?.warn('sessions not locked on screen lock', { error }));
  const onSuspend = () => void sessions.lockAll('suspend').catch((error: unknown) => log?.warn('sessions not locked on suspend', { error }));
  power.on('lock-screen', onLock);
  power.on('suspend', onSuspend);
  return () => {
    power.removeListener('lock-screen', onLock);
    power.removeListener('suspend', onSuspend);
  };
}

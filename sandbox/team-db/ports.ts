// Loopback ports for a cluster: one the system picks, or whether a given one is free now.
import { createServer } from 'node:net';

/** Listens on 127.0.0.1:`port` for a moment; the bound port, or null when it is taken. */
function tryPort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

/** A loopback port nobody listens on now (the system's pick). */
export async function freePort(): Promise<number> {
  const port = await tryPort(0);
  if (port === null) throw new Error('no free loopback port');
  return port;
}

export async function portIsFree(port: number): Promise<boolean> {
  return (await tryPort(port)) !== null;
}

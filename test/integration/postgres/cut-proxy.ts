// A TCP proxy between a desk and the team database that the test can cut (every connection dropped, new ones
// refused) and restore: the network between a desk and its database going away and coming back.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface CutProxy {
  /** postgres://… of the database, through the proxy. */
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startCutProxy(databaseUrl: string): Promise<CutProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

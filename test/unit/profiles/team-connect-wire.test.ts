// openTeamPool against a stand-in server on loopback that speaks just enough of PostgreSQL's protocol:
// one that asks for a password and refuses it (the throwaway test cluster trusts every loopback login,
// so a refused password cannot be shown there), and one that accepts the connection and never answers.
// Each fails with the words that say which, through the real pg client.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openTeamPool } from '../../../main/store/postgres/connect';
import type { TeamDatabase } from '../../../main/profiles/profile-schema';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(onSocket: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    onSocket(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as { port: number }).port;
}

function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

/** Asks for a clear-text password after the startup message, then refuses whatever comes as 28P01. */
function refusingServer(socket: Socket): void {
  let stage = 0;
  socket.on('data', () => {
    if (stage === 0) {
      const ask = Buffer.alloc(4);
      ask.writeInt32BE(3); // AuthenticationCleartextPassword
      socket.write(message('R', ask));
    } else if (stage === 1) {
      const fields = ['SFATAL', 'VFATAL', 'C28P01', 'Mpassword authentication failed for user "desk"'].map((f) => Buffer.from(`${f}\0`));
      socket.end(message('E', Buffer.concat([...fields, Buffer.from([0])])));
    }
    stage++;
  });
}

/** The error openTeamPool fails with (a test failure if it opens). */
async function failure(opening: ReturnType<typeof openTeamPool>): Promise<Error & { code: string }> {
  const opened = await opening.catch((e: unknown) => e as Error & { code: string });
  if (!(opened instanceof Error)) {
    await opened.pool.end();
    throw new Error('the pool opened');
  }
  return opened;
}

const team = (port: number): TeamDatabase => ({ url: `postgres://desk@127.0.0.1:${port}/payouts`, tls: 'disable', caFile: null });

describe('openTeamPool against a server that refuses or stays silent', () => {
  it('a refused password says so, naming the user and never the password', async () => {
    const port = await serve(refusingServer);
    const error = await failure(openTeamPool(team(port), 'wrong-password-123'));
    expect(error).toMatchObject({ code: 'TEAM_DB_AUTH', message: expect.stringContaining('refused the password of user desk') });
    expect(error.message).not.toContain('wrong-password-123');
  });

  it('no password in the keychain, when the server asks for one, says so', async () => {
    const port = await serve(refusingServer);
    const error = await failure(openTeamPool(team(port), null));
    expect(['TEAM_DB_AUTH', 'TEAM_DB_NO_PASSWORD']).toContain(error.code);
    expect(error.message).toContain("none is in this desk's keychain");
  });

  it('a server that never answers fails as a time-out, not a hang', async () => {
    const port = await serve(() => undefined);
    const error = await failure(openTeamPool(team(port), 'pw', { connectTimeoutMs: 300 }));
    expect(error).toMatchObject({ code: 'TEAM_DB_TIMEOUT', message: expect.stringContaining('did not answer') });
  });
});

// The TLS modes of a team database against a stand-in server on loopback that answers PostgreSQL's
// SSLRequest with "S", speaks TLS with a self-signed certificate (made here with openssl), and then
// refuses the password. Reaching that refusal (TEAM_DB_AUTH) means the TLS handshake was accepted;
// TEAM_DB_TLS means the desk refused the certificate. Through the real pg client and Node's TLS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTeamPool } from '../../../main/store/postgres/connect';
import type { TeamDatabase, TeamTlsMode } from '../../../main/profiles/profile-schema';

const dir = mkdtempSync(join(tmpdir(), 'desk-team-tls-'));
/** A self-signed certificate (its own CA) for the names given, with its key; paths in `dir`. */
function certificate(name: string, subjectAltName: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=${subjectAltName}`, '-keyout', key, '-out', cert], { stdio: 'pipe' });
  return { cert, key };
}

let loopback: { cert: string; key: string };
let elsewhere: { cert: string; key: string };
beforeAll(() => {
  loopback = certificate('loopback', 'IP:127.0.0.1,DNS:localhost');
  elsewhere = certificate('db.example.com', 'DNS:db.example.com');
});

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

/** Answers the SSLRequest with "S", then TLS; over TLS asks for a password and refuses it (28P01). */
async function tlsServer(pair: { cert: string; key: string }): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.once('data', () => {
      socket.write('S');
      const secure = new TLSSocket(socket, { isServer: true, cert: readFileSync(pair.cert), key: readFileSync(pair.key) });
      secure.on('error', () => undefined);
      let stage = 0;
      secure.on('data', () => {
        if (stage === 0) {
          const ask = Buffer.alloc(4);
          ask.writeInt32BE(3);
          secure.write(message('R', ask));
        } else if (stage === 1) {
          const fields = ['SFATAL', 'VFATAL', 'C28P01', 'Mpassword authentication failed'].map((f) => Buffer.from(`${f}\0`));
          secure.end(message('E', Buffer.concat([...fields, Buffer.from([0])])));
        }
        stage++;
      });
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as { port: number }).port;
}

async function failure(team: TeamDatabase): Promise<Error & { code: string }> {
  const opened = await openTeamPool(team, 'pw').catch((e: unknown) => e as Error & { code: string });
  if (!(opened instanceof Error)) {
    await opened.pool.end();
    throw new Error('the pool opened');
  }
  return opened;
}

const team = (port: number, tls: TeamTlsMode, caFile: string | null = null): TeamDatabase => ({ url: `postgres://desk@127.0.0.1:${port}/payouts`, tls, caFile });

describe('team database TLS modes', () => {
  it('verify-full refuses a certificate no trusted CA signed, and says to give the CA file', async () => {
    const port = await tlsServer(loopback);
    const error = await failure(team(port, 'verify-full'));
    expect(error.code).toBe('TEAM_DB_TLS');
    expect(error.message).toContain('give the CA file that signed it');
  });

  it('verify-full with the CA file accepts it (the server then refuses the password)', async () => {
    const port = await tlsServer(loopback);
    expect((await failure(team(port, 'verify-full', loopback.cert))).code).toBe('TEAM_DB_AUTH');
  });

  it('verify-full refuses a trusted certificate made out to another host', async () => {
    const port = await tlsServer(elsewhere);
    const error = await failure(team(port, 'verify-full', elsewhere.cert));
    expect(error.code).toBe('TEAM_DB_TLS');
    expect(error.message).toContain(elsewhere.cert);
  });

  it('require encrypts without checking the certificate', async () => {
    const port = await tlsServer(elsewhere);
    expect((await failure(team(port, 'require'))).code).toBe('TEAM_DB_AUTH');
  });
});

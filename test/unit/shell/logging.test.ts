// The desktop app's electron-log: setupLogging adds a hook that redacts every message and its data
// before any transport writes. Driven through electron-log's own Logger (its node build: no Electron),
// with a capturing transport, the console transport's writer captured and the real file transport
// writing into a temp folder, so the test reads what would really land in the log file.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogMessage, MainLogger, Transport } from 'electron-log';
import nodeLog from 'electron-log/node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { redactLogData, setupLogging } from '../../../main/shell/logging';

const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const pemLine = pem.split('\n')[1] ?? '';
const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJERU1PLU1FUkNIQU5UIiwiZXhwIjo5OTk5OTk5OTk5fQ.c2lnbmF0dXJlLWJ5dGVzLWhlcmU';
const jwtHead = 'eyJhbGciOiJSUzI1NiJ9';
const merchantSecret = 'ms_live_8f3Kq29xZpLw71Hd';
const opaqueToken = 'opaque0A1b2C3d4E5f6G7h8';

/** Every string that must never reach a transport. */
const SECRETS = [pemLine, 'PRIVATE KEY', jwtHead, merchantSecret, opaqueToken, 'hunter2'];

let dir = '';
let captured: LogMessage[] = [];
let consoleLines: unknown[][] = [];
let log: MainLogger;
let counter = 0;

/** A fresh electron-log logger (same transports as the default one), wired for capture. */
function electronLog(): MainLogger {
  const logger = nodeLog.create({ logId: `redaction-${process.pid}-${counter++}` }) as unknown as MainLogger;
  logger.transports.file.resolvePathFn = () => join(dir, 'main.log');
  logger.transports.console.writeFn = ({ message }) => void consoleLines.push(message.data);
  const capture = Object.assign((message: LogMessage) => void captured.push(message), { level: 'silly', transforms: [] }) as unknown as Transport;
  logger.transports['capture'] = capture;
  // Installing process-wide handlers inside the test worker would swallow the runner's own errors.
  vi.spyOn(logger.errorHandler, 'startCatching').mockImplementation(() => undefined);
  return logger;
}

const fileText = (): string => {
  try {
    return readFileSync(join(dir, 'main.log'), 'utf8');
  } catch {
    return '';
  }
};

function expectClean(text: string): void {
  for (const secret of SECRETS) expect(text, `leaked ${secret}`).not.toContain(secret);
}

/** Everything every transport received or wrote, as one text. */
function everything(): string {
  return [JSON.stringify(captured.map((m) => m.data)), JSON.stringify(consoleLines), fileText()].join('\n');
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'desk-log-'));
  captured = [];
  consoleLines = [];
  log = electronLog();
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe('setupLogging', () => {
  it('adds one hook, file at info, console at info outside production, and catches errors without a dialog', () => {
    const before = log.hooks.length;
    setupLogging(log);
    expect(log.hooks).toHaveLength(before + 1);
    expect(log.transports.file.level).toBe('info');
    expect(log.transports.console.level).toBe(process.env['NODE_ENV'] === 'production' ? 'warn' : 'info');
    expect(log.errorHandler.startCatching).toHaveBeenCalledWith({ showDialog: false });
  });

  it('redacts PEM blocks, JWTs, Authorization and secret fields in the message text', () => {
    const logger = setupLogging(log);
    logger.warn(`import failed for ${pem} with token ${jwt}, header Authorization: Bearer ${opaqueToken}, body {"secret":"${merchantSecret}"} password=hunter2`);
    expect(captured).toHaveLength(1);
    const text = String(captured[0]?.data[0]);
    expect(text).toMatch(/^import failed for \[REDACTED\]/);
    expect(text).toContain('Authorization: [REDACTED]');
    expectClean(everything());
    expect(fileText()).toMatch(/\[warn\]\s+import failed for \[REDACTED\]/);
  });

  it('redacts the structured fields at any depth, and keeps what is harmless', () => {
    const logger = setupLogging(log);
    logger.error('gateway request failed', {
      operation: 'POST /payouts',
      status: 401,
      secret: merchantSecret,
      token: opaqueToken,
      request: { headers: { Authorization: `Bearer ${opaqueToken}`, 'X-SIGNATURE': 'c2lnbmF0dXJl' }, body: `{"idPayout":"p-1","secret":"${merchantSecret}"}` },
      keys: [{ privateKey: pem, fingerprint: 'SHA256:abc' }],
      error: new Error(`refused ${jwt}`),
    });
    const fields = captured[0]?.data[1] as Record<string, unknown>;
    expect(fields).toMatchObject({
      operation: 'POST /payouts',
      status: 401,
      secret: '[REDACTED]',
      token: '[REDACTED]',
      request: { headers: { Authorization: '[REDACTED]', 'X-SIGNATURE': '[REDACTED]' } },
      keys: [{ privateKey: '[REDACTED]', fingerprint: 'SHA256:abc' }],
      error: { name: 'Error', message: 'refused [REDACTED]' },
    });
    expect((fields['request'] as { body: string }).body).toContain('"idPayout":"p-1"');
    expectClean(everything());
    expect(fileText()).toContain('SHA256:abc');
  });

  it('writes the stack of an error, and of its cause, into the log file, redacted', () => {
    const logger = setupLogging(log);
    function failingService(): never {
      const cause = Object.assign(new Error(`keychain said passphrase=hunter2`), { code: 'EACCES' });
      throw new Error(`could not sign with ${jwt} (secret=${merchantSecret})`, { cause });
    }
    let error: unknown;
    try {
      failingService();
    } catch (e) {
      error = e;
    }
    logger.error('ipc handler failed', { channel: 'payouts:create', error });
    const logged = (captured[0]?.data[1] as { error: { stack: string; cause: { code: string; stack: string } } }).error;
    expect(logged.stack).toMatch(/^Error: could not sign with \[REDACTED\] \(secret=\[REDACTED\]\n\s+at failingService/);
    expect(logged.cause).toMatchObject({ code: 'EACCES', message: 'keychain said passphrase=[REDACTED]' });
    expect(logged.cause.stack).toContain('at failingService');
    // The file itself holds the frames, and none of the secrets.
    expect(fileText()).toContain('failingService');
    expectClean(everything());
  });

  it('redacts every data item of a direct electron-log call, not only the first', () => {
    setupLogging(log);
    log.info('first', `second ${jwt}`, { nested: [{ token: opaqueToken }] }, pem, 42, null);
    // A PEM block's trailing newline is not part of the block and stays.
    expect(captured[0]?.data).toEqual(['first', 'second [REDACTED]', { nested: [{ token: '[REDACTED]' }] }, '[REDACTED]\n', 42, null]);
    expectClean(everything());
  });

  it('redacts a Bearer value wherever it appears, with or without an Authorization name before it', () => {
    const logger = setupLogging(log);
    logger.warn(`retrying with Bearer ${opaqueToken}`, { header: `Bearer ${opaqueToken}`, sent: ['Authorization:', `Bearer ${opaqueToken}`] });
    expectClean(everything());
  });

  it('masks secret fields whatever their prefix (merchantSecret, client_secret, refreshToken …)', () => {
    const logger = setupLogging(log);
    logger.info('profile saved', { profileId: 'demo', merchantSecret, client_secret: merchantSecret, refreshToken: opaqueToken, idToken: opaqueToken, hasSecret: true });
    const fields = captured[0]?.data[1] as Record<string, unknown>;
    expect(fields).toMatchObject({ profileId: 'demo', merchantSecret: '[REDACTED]', client_secret: '[REDACTED]', refreshToken: '[REDACTED]', idToken: '[REDACTED]', hasSecret: true });
    expectClean(everything());
  });

  it('redacts before every transport, including ones added later, and only writes where the level allows', () => {
    setupLogging(log);
    const late: LogMessage[] = [];
    log.transports['late'] = Object.assign((m: LogMessage) => void late.push(m), { level: 'silly', transforms: [] }) as unknown as Transport;
    log.debug(`below the file level ${jwt}`);
    log.info(`at the file level ${jwt}`);
    expect(late.map((m) => m.data[0])).toEqual(['below the file level [REDACTED]', 'at the file level [REDACTED]']);
    expect(fileText()).not.toContain('below the file level');
    expect(fileText()).toContain('at the file level [REDACTED]');
    expectClean(everything() + JSON.stringify(late.map((m) => m.data)));
  });

  it('redacts uncaught errors and unhandled rejections that the error handler logs', () => {
    setupLogging(log);
    // What startCatching({ showDialog: false }) sets up (mocked here, as it would hook this process).
    log.errorHandler.setOptions({ showDialog: false });
    // The listeners electron-log puts on process 'uncaughtException' and 'unhandledRejection'.
    const handler = log.errorHandler as unknown as { handleError(e: unknown): void; handleRejection(reason: unknown): void };
    handler.handleError(new Error(`token request failed: {"secret":"${merchantSecret}"} ${jwt}`));
    handler.handleRejection({ reason: 'refused', secret: merchantSecret, header: `Bearer ${opaqueToken}` });
    expect(captured.map((m) => m.data[0])).toEqual(['Unhandled', 'Unhandled rejection']);
    expect(captured.map((m) => m.level)).toEqual(['error', 'error']);
    expectClean(everything());
  });

  it('never changes the objects the caller logged', () => {
    const logger = setupLogging(log);
    const fields = { token: opaqueToken, nested: { secret: merchantSecret } };
    logger.info('x', fields);
    expect(fields).toEqual({ token: opaqueToken, nested: { secret: merchantSecret } });
  });
});

describe('redactLogData', () => {
  it('redacts strings as text and everything else as fields, keeping positions', () => {
    expect(redactLogData([jwt, { secret: 's' }, 7, undefined, [pem.trim()]])).toEqual(['[REDACTED]', { secret: '[REDACTED]' }, 7, undefined, ['[REDACTED]']]);
  });
});

// Whatever a service throws becomes { code, message, retryable } with no secret in the message.
import { describe, expect, it } from 'vitest';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { toIpcError } from '../../../main/desk/errors';
import { DeskError } from '../../../main/desk/services';
import { GatewayError } from '../../../main/gateway/errors';
import { KeyStoreError } from '../../../main/keys/key-store';
import { ProfileError } from '../../../main/profiles/profile-store';
import { createCapturingLogger } from '../../../main/log';
import { PolicyError } from '../../../main/approvals/policy';
import { JournalVersionError } from '../../../main/store/sqlite/migrations';
import { PayeeError } from '../../../main/payees/payee';
import { recordingServices } from './fake-services';

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJERU1PIn0.c2lnbmF0dXJl';

describe('toIpcError', () => {
  it('keeps a gateway error code, HTTP status and retryability', () => {
    const error = toIpcError(new GatewayError('rate-limited', 'Too many requests', { status: 429, code: 'RATE_LIMITED' }));
    expect(error).toEqual({ code: 'RATE_LIMITED', message: 'Too many requests (HTTP 429)', retryable: true });
    expect(toIpcError(new GatewayError('validation', 'amount invalid', { status: 400 }))).toMatchObject({ code: 'VALIDATION', retryable: false });
  });

  it('passes coded service errors through and marks a missing keychain retryable', () => {
    expect(toIpcError(new ProfileError('PROFILE_NOT_FOUND', 'No profile "x"'))).toEqual({ code: 'PROFILE_NOT_FOUND', message: 'No profile "x"', retryable: false });
    expect(toIpcError(new KeyStoreError('Secret Service not running'))).toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE', retryable: true });
    expect(toIpcError(new DeskError('VALIDATION', 'bad', false, [{ field: 'amount', code: 'AMOUNT_FORMAT', message: 'not a number' }]))).toMatchObject({
      issues: [{ field: 'amount', code: 'AMOUNT_FORMAT' }],
    });
  });

  it('shows the desk\'s own errors that once had no code in their own words, each under its class name', () => {
    // These read as INTERNAL before they shared the coded base: a person saw no reason for a refused policy.
    expect(toIpcError(new PolicyError('a band needs at least one approval'))).toEqual({ code: 'POLICY_INVALID', message: 'a band needs at least one approval', retryable: false });
    expect(toIpcError(new JournalVersionError(99))).toMatchObject({ code: 'JOURNAL_TOO_NEW', message: expect.stringContaining('update the app') });
    const payee = new PayeeError('NOT_FOUND', 'no payee g');
    expect([payee.name, payee.code, payee instanceof Error]).toEqual(['PayeeError', 'NOT_FOUND', true]);
  });

  it('removes key material and tokens from every message', () => {
    for (const error of [new GatewayError('server', `boom ${JWT}`), new DeskError('X_Y', `key ${PEM}`), new ProfileError('PROFILE_INVALID', `Authorization: Bearer ${JWT}`)]) {
      const mapped = toIpcError(error);
      expect(mapped.message).not.toContain('MIIEvQ');
      expect(mapped.message).not.toContain(JWT);
      expect(mapped.message).toContain('[REDACTED]');
    }
  });

  it('hides the text of unexpected errors behind INTERNAL', () => {
    expect(toIpcError(new TypeError('Cannot read properties of undefined (reading "x") at /home/user/secret/path'))).toEqual({
      code: 'INTERNAL', message: 'The desk hit an unexpected problem; the details are in the log.', retryable: false,
    });
    expect(toIpcError('a string')).toMatchObject({ code: 'INTERNAL' });
  });
});

describe('handlers never throw', () => {
  it('turns a throwing service into a typed error and logs unexpected ones redacted', async () => {
    const { services } = recordingServices();
    const log = createCapturingLogger();
    const handlers = createIpcHandlers(
      { ...services, audit: { verify: async () => { throw new Error(`disk broke near ${PEM}`); } } },
      { log },
    );
    await expect(handlers['audit:verify'](undefined)).resolves.toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(log.lines.join('\n')).toContain('ipc handler failed');
    expect(log.lines.join('\n')).not.toContain('MIIEvQ');
  });
});

// The logger's last line of defence: PEM blocks, JWTs, secrets and Authorization values never get out.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCapturingLogger, createLogger, redactFields, redactText } from '../../../main/log';

const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJNMSJ9.c2lnbmF0dXJlLXBhcnQ';

describe('redaction', () => {
  it('removes PEM blocks, JWTs, Authorization values and secret fields from text', () => {
    const text = `key ${pem} token ${jwt} Authorization: Bearer abc.def "secret":"s3cr3t-value" password=hunter2`;
    const out = redactText(text);
    expect(out).not.toContain('PRIVATE KEY');
    expect(out).not.toContain(pem.split('\n')[1]!);
    expect(out).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    expect(out).not.toContain('abc.def');
    expect(out).not.toContain('s3cr3t-value');
    expect(out).not.toContain('hunter2');
    expect(out).toContain('[REDACTED]');
  });

  it('masks sensitive keys in structured fields at any depth and keeps the rest', () => {
    const out = redactFields({ path: '/payouts/p1', nested: { secret: 'x', token: jwt, headers: { Authorization: 'Bearer y' } }, list: [jwt] });
    expect(out).toEqual({ path: '/payouts/p1', nested: { secret: '[REDACTED]', token: '[REDACTED]', headers: { Authorization: '[REDACTED]' } }, list: ['[REDACTED]'] });
  });

  it('writes redacted lines through a sink and keeps raw copies in the capturing logger', () => {
    const lines: string[] = [];
    createLogger((l) => lines.push(l)).error(`failed with ${jwt}`, { status: 401 });
    expect(lines[0]).toMatch(/ERROR failed with \[REDACTED\] \{"status":401\}$/);
    const cap = createCapturingLogger();
    cap.warn('x', { secret: 'y' });
    expect(cap.lines[0]).toContain('"secret":"[REDACTED]"');
    expect(cap.raw[0]).toContain('"secret":"y"');
  });
});

// E-mail digests of a person's alerts (issue 29): whoever turned one on at their desk gets the alerts given to them
// (alerts.ts; muted kinds are not given, so not mailed) gathered into one mail at most every hour or day, through
// the profile's SMTP server (the one remittance advice goes through, main/desk/smtp.ts). An alert leaves the queue
// only when the server took the mail that carries it; until then a failure is kept and shown, and the next round
// tries again. A crash between the server's "250" and the memory's write can mail those alerts twice: better than
// losing one.
import { AlertMemory, type DigestEvery, type DigestItem, type DigestState } from './alert-memory';
import { MailSendError } from '../remittance/mail';
import { newMessageId } from '../remittance/message';
import type { DeskRuntime } from './runtime';
import { smtpSession } from './smtp';

export const DIGEST_PERIOD_MS: Record<DigestEvery, number> = { hourly: 3_600_000, daily: 86_400_000 };
/** A digest waits this long after its oldest alert, so a burst of alerts goes in one mail. */
export const DIGEST_GATHER_MS = 2 * 60_000;
/** How often the desk looks for digests that are due. */
const TICK_MS = 60_000;

/** A digest is due once its oldest alert has waited a moment and its period since the last one has passed. */
export function digestDue(d: DigestState, now: number): boolean {
  const oldest = d.waiting[0];
  if (!oldest) return false;
  return now >= oldest.at + DIGEST_GATHER_MS && (d.lastSentAt === null || now >= d.lastSentAt + DIGEST_PERIOD_MS[d.every]);
}

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function digestText(personName: string, profileName: string, items: readonly DigestItem[], dropped: number): { subject: string; text: string } {
  const count = items.length === 1 ? '1 alert' : `${items.length} alerts`;
  const lines = items.map((i) => `- ${utc(i.at)}  ${i.title}: ${i.body}`);
  return {
    subject: `Payout Desk: ${count} for ${personName} (${profileName})`,
    text: [
      `${personName}, these alerts were given to you at your Payout Desk for profile "${profileName}" since the last digest:`,
      '',
      ...lines,
      ...(dropped > 0 ? ['', `${dropped} older alerts gave way to these while the digest could not be sent.`] : []),
      '',
      'Open Payout Desk to act on them. Change or stop this digest in People › Alerts at your desk.',
      '',
    ].join('\n'),
  };
}

/** Sends every digest that is due now; resolves with how many went. Failures are recorded per person, never thrown. */
export async function sendDueDigests(rt: DeskRuntime, memory: AlertMemory, now: number): Promise<number> {
  let sent = 0;
  for (const { profileId, personId, digest } of memory.waitingDigests()) {
    if (!digestDue(digest, now)) continue;
    let close = () => undefined as void;
    try {
      const profile = rt.ctx.profiles.get(profileId);
      const items = digest.waiting.slice();
      const { subject, text } = digestText(digest.name ?? personId, profile.name, items, digest.dropped);
      const session = await smtpSession(rt, profile);
      close = session.close;
      const mail = await (await session.transport()).send({ to: { name: digest.name ?? '', address: digest.email }, subject, text, messageId: newMessageId(session.settings.from), payoutIds: [] });
      memory.digestSent(profileId, personId, items.length, now);
      await rt.audit(profileId, { actor: `person:${personId}`, action: 'alerts.digest-sent', subject: personId, details: { alerts: items.length, to: digest.email, reply: mail.reply } });
      sent += 1;
    } catch (error) {
      const why = error instanceof MailSendError ? `${error.kind}: ${error.reply}` : error instanceof Error ? error.message : String(error);
      memory.digestFailed(profileId, personId, why);
      rt.log.warn('an alert digest could not be sent', { profileId, personId, why });
    } finally {
      close();
    }
  }
  return sent;
}

/** Looks for due digests every minute while the desk runs. */
export function startAlertDigests(rt: DeskRuntime, memory: AlertMemory, now: () => number = Date.now): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void sendDueDigests(rt, memory, now()).finally(() => {
      running = false;
    });
  }, TICK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

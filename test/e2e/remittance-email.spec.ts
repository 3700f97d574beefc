// Remittance advice by e-mail, through the real desk, its sandbox and a real SMTP server (smtp-server) started here on
// loopback: the SMTP server is set in Settings › E-mail (the password typed once, then only "saved in the keychain"),
// a test e-mail goes through it, and a paid payout's detail e-mails its advice to the payee: the mail arrives with the
// PDF attached, the detail says when it went, a second send is only "Send again…", and a payee the server refuses
// (550) shows the refusal with the server's words on the payout. A batch's results mail each paid payee once.
import type { Locator, Page } from '@playwright/test';
import type { AuditEntryView, BatchValidation, BatchView, HistoryRow, Page as ResultPage } from '../../contract/api';
import { readAdviceMail, startSmtpFixture, type SmtpFixture } from '../integration/support/smtp-fixture';
import { expectAccessible } from './support/axe';
import { germanIban, payoutCsv } from './support/csv-fixtures';
import type { DeskHarness } from './support/desk-bridge';
import { call, expect, openWithDemo, selectOption, sendPayout, shot, test } from './support/journey';

const PASSWORD = 'e2e-smtp-Pw-4tr!';
let smtp: SmtpFixture;

test.beforeEach(async () => {
  smtp = await startSmtpFixture({
    login: { username: 'desk@demo.test', password: PASSWORD },
    rcpt: (address) => (address === 'gail@example.com' ? { code: 550, message: '5.1.1 Mailbox unavailable' } : null),
  });
});
test.afterEach(async () => {
  await smtp.close();
});

async function waitForStatuses(desk: DeskHarness, want: Record<string, string>): Promise<void> {
  await expect
    .poll(async () => {
      const rows = (await call<ResultPage<HistoryRow>>(desk.handlers, 'history:query', { offset: 0, limit: 100 })).items;
      return Object.fromEntries(rows.filter((r) => r.final && r.id in want).map((r) => [r.id, r.status]));
    }, { timeout: 60_000, intervals: [500] })
    .toEqual(want);
}

/** A screenshot for the guide without the notices over it. */
async function cleanShot(page: Page, name: string): Promise<void> {
  const close = page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).first();
  for (let i = 0; i < 10 && (await close.isVisible()); i++) await close.click();
  await shot(page, name);
}

/** Opens one payout's detail in History's drawer, getting there by the app's own navigation. */
async function openInHistory(page: Page, id: string): Promise<Locator> {
  await page.getByRole('link', { name: 'History' }).click();
  await page.getByTestId('history-search').locator('input').fill(id);
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  await page.getByTestId('history-row').click();
  const drawer = page.getByTestId('history-drawer');
  await expect(drawer.getByTestId('detail-status')).toHaveText('SUCCESS');
  return drawer;
}

async function fillSmtpSettings(page: Page): Promise<void> {
  await page.getByTestId('tab-email').click();
  const card = page.getByTestId('settings-smtp');
  await expect(card).toBeVisible();
  await card.getByTestId('smtp-host').locator('input').fill('127.0.0.1');
  await selectOption(page, 'smtp-security', /None/);
  await card.getByTestId('smtp-port').locator('input').fill(String(smtp.port));
  await card.getByTestId('smtp-from').locator('input').fill('payouts@demo.test');
  await card.getByTestId('smtp-reply-to').locator('input').fill('finance@demo.test');
  await card.getByTestId('smtp-username').locator('input').fill('desk@demo.test');
  await card.getByTestId('smtp-password').locator('input').fill(PASSWORD);
}

test('SMTP is set in Settings and a paid payout e-mails its advice to the payee, once; a 550 shows on the payout', async ({ page, desk }) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await openWithDemo(page, desk, 'settings');

  // Settings › E-mail: none yet; saved, the password leaves the page and the card says it is in the keychain.
  await fillSmtpSettings(page);
  const card = page.getByTestId('settings-smtp');
  await expect(card.getByTestId('smtp-security-warning')).toContainText('allowed only for a server on this computer');
  await expect(card.getByTestId('smtp-test'), 'the test waits for Save').toBeDisabled();
  await card.getByTestId('smtp-save').click();
  await expect(card.getByTestId('smtp-password-state')).toHaveText('Password saved in the keychain');
  await expect(card.getByTestId('smtp-password').locator('input')).toHaveValue('');
  await card.getByTestId('smtp-test').click();
  await expect(card.getByTestId('smtp-test-result')).toContainText('Test e-mail sent to payouts@demo.test');
  expect(smtp.mails.map((m) => m.to)).toEqual([['payouts@demo.test']]);
  expect(smtp.logins[0]).toEqual({ username: 'desk@demo.test', password: PASSWORD });
  await expectAccessible(page, '[data-testid="settings-smtp"]');
  await cleanShot(page, 'settings-smtp');

  // A paid payout's own page: E-mail to payee.
  const paid = await sendPayout(desk, '980.40', 'EUR', 'Fiona Fox', '370400440532016666');
  const refused = await sendPayout(desk, '45.00', 'EUR', 'Gail Gone', '370400440532017777');
  await waitForStatuses(desk, { [paid.id]: 'SUCCESS', [refused.id]: 'SUCCESS' });
  let drawer = await openInHistory(page, paid.id);
  const email = drawer.getByTestId('remittance-email');
  await expect(email).toHaveText('E-mail to payee');
  await email.click();
  const state = drawer.getByTestId('remittance-email-state');
  await expect(state).toHaveAttribute('data-state', 'sent');
  await expect(state).toContainText('E-mailed to fiona@example.com on');
  await expect(page.getByTestId('snackbar')).toContainText('Remittance advice e-mailed');
  await expectAccessible(page, '[data-testid="history-drawer"]');
  await cleanShot(page, 'payout-remittance-email');

  // What arrived: to the payee, from the profile, the PDF attached with the payee, the amount and the payout id.
  const arrived = smtp.mails.filter((m) => m.to.includes('fiona@example.com'));
  expect(arrived).toHaveLength(1);
  const mail = readAdviceMail(arrived[0]!.raw);
  expect(mail.headers.get('from')).toBe('"Demo Store (TEST)" <payouts@demo.test>');
  expect(mail.pdfName).toBe(`remittance-${paid.id}.pdf`);
  expect(mail.pdfText).toMatch(/Paid to\s+Fiona Fox <fiona@example\.com>/);
  expect(mail.pdfText).toContain('980.40 EUR');
  expect(mail.pdfText).toContain(paid.id);

  // Once: the button is now "Send again…", behind a confirmation, and that second mail is audited as a resend.
  await expect(email).toHaveCount(0);
  await drawer.getByTestId('remittance-email-again').click();
  await expect(page.getByTestId('remittance-email-again-dialog')).toContainText('It was e-mailed to fiona@example.com on');
  await page.getByTestId('remittance-email-again-confirm').click();
  await expect(state).toContainText('(2 times in all)');
  expect(smtp.mails.filter((m) => m.to.includes('fiona@example.com'))).toHaveLength(2);
  const audits = (await call<ResultPage<AuditEntryView>>(desk.handlers, 'audit:list', { limit: 100 })).items.filter((a) => a.action === 'remittance.emailed');
  expect(audits.map((a) => (a.details as { force?: boolean }).force ?? false)).toEqual([true, false]);

  // The server refuses the other payee for good: the payout's detail (here in History's drawer) says so, with its reply.
  await drawer.getByRole('button', { name: 'Close detail' }).click();
  await expect(drawer).not.toHaveClass(/v-navigation-drawer--active/);
  drawer = await openInHistory(page, refused.id);
  await drawer.getByTestId('remittance-email').click();
  const refusal = drawer.getByTestId('remittance-email-state');
  await expect(refusal).toHaveAttribute('data-state', 'refused');
  await expect(refusal).toContainText('The mail server refused the advice');
  await expect(refusal).toContainText('550 5.1.1 Mailbox unavailable');
  await expect(page.getByTestId('snackbar')).toContainText('refused the remittance advice');
  expect(smtp.mails.filter((m) => m.to.includes('gail@example.com'))).toHaveLength(0);
  await expectAccessible(page, '[data-testid="history-drawer"]');
  await shot(page, 'payout-remittance-email-refused');
});

test("a batch's results e-mail each paid payee their advice after a confirmation, and say what was left out", async ({ page, desk }) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1366, height: 900 });
  await openWithDemo(page, desk, 'batches');
  await call(desk.handlers, 'profiles:setSmtp', { host: '127.0.0.1', port: smtp.port, security: 'none', username: 'desk@demo.test', from: 'payouts@demo.test', password: PASSWORD });
  // Supplier A is paid twice (one mail), B once, C's account (ending 0000) is refused by the gateway (not advised).
  const a = { accountName: 'Supplier A GmbH', accountNumber: germanIban('370400440532021111'), emailAddress: 'a@example.com' };
  const csv = payoutCsv(4, {
    1: { ...a, amount: '10.00' },
    2: { ...a, amount: '12.50' },
    3: { accountName: 'Supplier B GmbH', accountNumber: germanIban('370400440532022222'), emailAddress: 'b@example.com', amount: '20.00' },
    4: { accountName: 'Supplier C GmbH', accountNumber: germanIban('370400440532020000'), emailAddress: 'c@example.com', amount: '30.00' },
  });
  const validation = await call<BatchValidation>(desk.handlers, 'batches:validateFile', { source: { kind: 'bytes', fileName: 'suppliers-june.csv', bytes: Buffer.from(csv) } });
  const batch = await call<BatchView>(desk.handlers, 'batches:submit', { validationId: validation.validationId, confirmedWarningRows: [...new Set(validation.warnings.map((w) => w.rowNumber))] });

  await page.getByRole('button', { name: `Open batch ${batch.fileName}` }).click();
  await expect(page.getByTestId('batch-state')).toHaveText('COMPLETED', { timeout: 60_000 });
  const results = page.getByTestId('batch-results');
  await expect(results.getByTestId('results-count-SUCCESS')).toHaveText('SUCCESS: 3', { timeout: 30_000 });
  await results.getByTestId('batch-remittance-email').click();
  const dialog = page.getByTestId('batch-remittance-email-dialog');
  await expect(dialog).toContainText('A payout whose advice was e-mailed before is left out');
  await dialog.getByTestId('batch-remittance-email-confirm').click();
  const outcome = dialog.getByTestId('batch-remittance-email-outcome');
  await expect(outcome).toContainText('E-mailed advice to 2 payees (3 paid payouts).');
  await expect(outcome).toContainText('1 payout not paid left out');
  expect(smtp.mails.map((m) => m.to[0]).sort()).toEqual(['a@example.com', 'b@example.com']);
  const toA = readAdviceMail(smtp.mails.find((m) => m.to[0] === 'a@example.com')!.raw);
  for (const shown of ['Supplier A GmbH', '10.00 EUR', '12.50 EUR', '22.50 EUR', 'suppliers-june.csv']) expect(toA.pdfText).toContain(shown);
  expect(toA.pdfText).not.toContain('Supplier B GmbH');
  await expectAccessible(page, '[data-testid="batch-remittance-email-dialog"]');

  // Again: nothing is mailed twice, and the dialog says why.
  await dialog.getByRole('button', { name: 'Close' }).click();
  await results.getByTestId('batch-remittance-email').click();
  await dialog.getByTestId('batch-remittance-email-confirm').click();
  await expect(outcome).toContainText('E-mailed advice to 0 payees');
  await expect(dialog.getByTestId('batch-remittance-email-skipped-ALREADY_EMAILED')).toHaveText('3 payouts skipped: already e-mailed (Send again mails them once more)');
  expect(smtp.mails).toHaveLength(2);
});

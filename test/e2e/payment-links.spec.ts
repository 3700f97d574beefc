import { expect, openWithDemo, selectOption, shot, test } from './support/journey';

test('a payment link is made in Payins, shown once with its text for the customer, and followed in the list', async ({ page, desk }) => {
  test.setTimeout(90_000);
  await openWithDemo(page, desk, 'payins');
  await expect(page.getByTestId('payment-links').getByTestId('state-empty')).toContainText('No payment link yet');

  await page.getByTestId('payment-link-new').click();
  const dialog = page.getByTestId('payment-link-dialog');
  await expect(dialog).toBeVisible();
  // More decimals than EUR has: main says so on the amount field, and nothing is made.
  await selectOption(page, 'payment-link-currency', 'EUR');
  await dialog.getByTestId('payment-link-amount').locator('input').fill('25.005');
  await dialog.getByTestId('payment-link-create').click();
  await expect(dialog.getByTestId('payment-link-amount')).toContainText('"25.005" has 3 decimals; the currency allows at most 2');
  await dialog.getByTestId('payment-link-amount').locator('input').fill('25.00');
  await expect(dialog.getByTestId('payment-link-amount')).not.toContainText('decimals');
  await dialog.getByTestId('payment-link-reference').locator('input').fill('Invoice 2041');
  await expect(dialog.getByTestId('payment-link-validity')).toContainText('3 days');
  await shot(page, 'payment-link-new');

  await dialog.getByTestId('payment-link-create').click();
  const issued = page.getByTestId('payment-link-issued');
  const shareText = issued.getByTestId('payment-link-share-text');
  await expect(shareText).toContainText('Payment request: 25.00 EUR');
  await expect(shareText).toContainText('Reference: Invoice 2041');
  const text = (await shareText.textContent()) ?? '';
  const token = /Token: (\S+)/.exec(text)?.[1] ?? '';
  expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  const idPayin = /Payin id: (\S+)/.exec(text)?.[1] ?? '';
  await expect(issued.getByTestId('payment-link-id')).toHaveText(idPayin);
  await expect(issued.getByTestId('payment-link-expiry')).not.toBeEmpty();
  for (const what of ['text for the customer', 'payin id', 'token']) await expect(issued.getByRole('button', { name: `Copy ${what}` })).toBeVisible();
  await shot(page, 'payment-link-issued');

  // Done forgets the token: it is nowhere on the page any more; the link is listed, waiting for the customer.
  await issued.getByTestId('payment-link-done').click();
  await expect(page.getByTestId('payment-link-issued')).toHaveCount(0);
  expect(await page.content()).not.toContain(token);
  const row = page.getByTestId(`payment-link-${idPayin}`);
  await expect(row).toContainText('25.00');
  await expect(row).toContainText('Invoice 2041');
  await expect(row.getByTestId('payment-link-state')).toHaveText('Waiting for the customer');
  await expect(page.getByTestId('payin-recent')).toContainText('Payment link');
  await expect(page.getByTestId('payin-recent')).toContainText('Waiting for the customer');

  // The customer creates the payin with the token; the desk finds it when the list is checked.
  const create = () =>
    fetch(`${desk.sandbox().url}/payins/${idPayin}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-api-version': '2', 'content-type': 'application/json' },
      body: JSON.stringify({
        paymentRequested: { money: { amount: 25, currencyCode: 'EUR' } },
        paymentMethod: { paymentMethodCode: 'VAPAY', paymentOperatorCode: 'VAPAY_EU', account: { accountName: 'Grace Hopper', accountNumber: 'NL91ABNA0417164300' }, emailAddress: 'grace@example.com' },
      }),
    });
  // The customer's calls share the merchant's rate limit with the desk: a 429 is waited out.
  await expect.poll(async () => (await create()).status, { intervals: [200] }).not.toBe(429);
  expect(desk.sandbox().state().payins.some((p) => p.idPayin === idPayin)).toBe(true);
  await page.getByRole('button', { name: 'Check the payment links' }).click();
  await expect(row.getByTestId('payment-link-state')).toHaveText('Customer is paying');
  await row.click();
  await expect(page.getByTestId('payin-card').getByTestId('payin-status')).toHaveText('PENDING');
  await expect(page.getByTestId('payin-link-note')).toContainText('Invoice 2041');
  await shot(page, 'payment-links');
});

// Two desks of a team, two browser pages, one team database (a throwaway PostgreSQL) and one gateway (the
// sandbox). The preparer's desk holds no merchant key: Pat sets up the team, uploads the month's file, and
// watches it go. The sender's desk holds the key: Sam enrols there (his key never leaves that machine), is
// given his roles from Pat's desk, approves the batch with his passphrase and sends it. Each page sees the
// other desk's work as it happens; every id reaches the gateway once.
import { expect, test, type Browser, type Page } from '@playwright/test';
import { startSandbox, type SandboxHandle } from '../../sandbox/index';
import { startCluster, freshDatabase, type Cluster } from '../integration/postgres/cluster';
import { openTeamAppDesk, TEAM_PROFILE, type TeamAppDesk } from '../integration/postgres/team-app-desk';
import { sandboxConfig } from '../integration/engine/setup';
import { APP_URL, bridgePage } from './support/bridge-page';
import { payoutCsv } from './support/csv-fixtures';
import { shot } from './support/journey';

const PASS = { pat: 'pat-preparer-passphrase', sam: 'sam-sender-passphrase' };

let cluster: Cluster | undefined;
let sandbox: SandboxHandle | undefined;
test.beforeAll(async () => {
  cluster = await startCluster();
  sandbox = await startSandbox(sandboxConfig());
});
test.afterAll(async () => {
  await sandbox?.close();
  await cluster?.stop();
});

/** A desk's window: its own browser context (storage), bridged to that desk's IPC handlers and events. */
async function windowOf(browser: Browser, desk: TeamAppDesk, screen: string): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const stop = await bridgePage(page, { handlers: desk.handlers, events: desk.events });
  await page.goto(`${APP_URL}#/${screen}`);
  await expect(page.getByTestId('app-bar-status')).toBeVisible();
  return {
    page,
    async close() {
      stop();
      await page.goto('about:blank').catch(() => undefined);
      await context.close();
      expect(errors, `no uncaught errors in ${desk.name}'s page`).toEqual([]);
    },
  };
}

async function cleanShot(page: Page, name: string): Promise<void> {
  const close = page.getByTestId('snackbar').getByRole('button', { name: 'Close' }).first();
  for (let i = 0; i < 10 && (await close.isVisible()); i++) await close.click();
  await shot(page, name);
}

test('a preparer desk and a sender desk on one team database: enrol, grant, prepare, approve, send, each seeing the other live', async ({ browser }) => {
  test.setTimeout(180_000);
  const teamUrl = await freshDatabase(cluster!.url);
  const gateway = sandbox!;
  const prep = await openTeamAppDesk({ name: 'pat-desk', teamUrl, gatewayUrl: gateway.url });
  const send = await openTeamAppDesk({ name: 'sam-desk', teamUrl, gatewayUrl: gateway.url, senderOf: gateway });
  // Each desk starts its profile's engine at launch, as the app does.
  await Promise.all([prep.runtime.engineFor(TEAM_PROFILE), send.runtime.engineFor(TEAM_PROFILE)]);
  const patWindow = await windowOf(browser, prep, 'people');
  const samWindow = await windowOf(browser, send, 'people');
  const pat = patWindow.page;
  const sam = samWindow.page;
  try {
    // Both desks say they work on the team database.
    await expect(pat.getByTestId('team-db-state')).toHaveText('team');
    await expect(sam.getByTestId('team-db-state')).toHaveText('team');

    // Pat sets the team up at his desk: the first person holds every role.
    await pat.getByTestId('people-add').click();
    const add = pat.getByTestId('person-add-dialog');
    await add.getByTestId('person-name').locator('input').fill('Pat Preparer');
    await add.getByTestId('person-passphrase').locator('input').fill(PASS.pat);
    await add.getByTestId('person-passphrase-confirm').locator('input').fill(PASS.pat);
    await add.getByTestId('person-add-confirm').click();
    // A new person's key is sealed under scrypt (128 MiB, a few tenths of a second) and unlocked once more.
    await expect(pat.getByTestId('session-name')).toHaveText('Pat Preparer', { timeout: 20_000 });

    // Sam enrols at his own desk: a viewer, his key in that machine's keychain. Pat's page lists him at once.
    await expect(sam.getByTestId('people-list')).toContainText('Pat Preparer');
    await sam.getByTestId('people-enrol').click();
    const enrol = sam.getByTestId('person-enrol-dialog');
    await enrol.getByTestId('person-name').locator('input').fill('Sam Sender');
    await enrol.getByTestId('person-passphrase').locator('input').fill(PASS.sam);
    await enrol.getByTestId('person-passphrase-confirm').locator('input').fill(PASS.sam);
    await enrol.getByTestId('person-enrol-confirm').click();
    await expect(sam.getByTestId('session-name')).toHaveText('Sam Sender', { timeout: 20_000 });
    const samRow = pat.getByTestId('people-list').locator('tr', { hasText: 'Sam Sender' });
    await expect(samRow).toContainText('key not on this machine');
    await expect(samRow).toContainText('viewer');

    // Pat grants Sam approver and sender from his desk; Sam's desk learns it without asking.
    await pat.getByTestId('person-roles-Sam Sender').click();
    const roles = pat.getByTestId('person-roles-dialog');
    await roles.getByLabel(/^approver/).check();
    await roles.getByLabel(/^sender/).check();
    await roles.getByLabel(/^viewer/).uncheck();
    await roles.getByTestId('person-roles-save').click();
    await expect(roles).toBeHidden();
    await expect(sam.getByTestId('people-list').locator('tr', { hasText: 'Sam Sender' })).toContainText('approver');
    await cleanShot(sam, 'team-sender-enrolled');

    // The policy: one approval for anything (Settings → Approvals, at Pat's desk).
    await pat.getByRole('link', { name: 'Settings' }).click();
    await pat.getByTestId('tab-approvals').click();
    await pat.getByTestId('policy-add-currency').click();
    await pat.getByTestId('policy-save').click();
    await expect(pat.getByTestId('policy-panel')).toContainText('Version 1');

    // Pat uploads the month's file. His desk sends nothing; the sender desk takes it up and its gate holds it.
    await pat.getByRole('link', { name: 'Batches' }).click();
    await pat.getByTestId('batch-file-input').setInputFiles({ name: 'team-suppliers-may.csv', mimeType: 'text/csv', buffer: Buffer.from(payoutCsv(5)) });
    await expect(pat.getByTestId('count-valid')).toContainText('5');
    for (const box of await pat.locator('[data-testid^="confirm-warning-"]').all()) await box.check();
    await pat.getByTestId('batch-review-open').click();
    await pat.getByTestId('batch-review').getByTestId('confirm-batch').locator('input').check();
    await pat.getByTestId('batch-review').getByTestId('submit-batch').click();
    await expect(pat.getByTestId('batch-state')).toHaveText('PAUSED', { timeout: 30_000 });
    await expect(pat.getByTestId('batch-progress').getByTestId('approval-state')).toHaveText('waiting for approval (1 of 1)');
    expect(gateway.state().payouts.length, 'nothing reached the gateway').toBe(0);
    await cleanShot(pat, 'team-preparer-waiting');

    // Sam's queue has it (nobody told his page but the database); he reads the manifest and approves.
    await sam.getByRole('link', { name: 'Approvals' }).click();
    await expect(sam.getByTestId('approvals-list')).toContainText('team-suppliers-may.csv');
    await sam.getByTestId('approvals-list').getByText('team-suppliers-may.csv').click();
    const detail = sam.getByTestId('approval-detail');
    await expect(detail.getByTestId('approval-totals')).toContainText('5 payouts');
    await expect(detail.getByTestId('approval-prepared')).toContainText('Pat Preparer');
    await detail.getByTestId('approval-approve').click();
    await detail.getByTestId('approve-passphrase').locator('input').fill(PASS.sam);
    await detail.getByTestId('approve-confirm').click();
    await expect(detail.getByTestId('approval-state')).toHaveText('approved (1 of 1)', { timeout: 20_000 });
    await detail.getByRole('button', { name: 'Close' }).click();
    // Pat's page shows the approval as it lands.
    await expect(pat.getByTestId('batch-approval-note')).toContainText('Approved by Sam Sender');

    // Sam sends it from his desk; Pat watches it reach the gateway and settle.
    await sam.getByRole('link', { name: 'Batches' }).click();
    await sam.getByTestId('past-batches').getByText('team-suppliers-may.csv').click();
    await sam.getByTestId('batch-resume').click();
    await expect(pat.getByTestId('progress-done')).toHaveText('5', { timeout: 60_000 });
    await expect(pat.getByTestId('batch-state')).toHaveText('COMPLETED');
    await expect(sam.getByTestId('batch-state')).toHaveText('COMPLETED');
    await cleanShot(pat, 'team-preparer-sent');
    await cleanShot(sam, 'team-sender-sent');
    const stored = gateway.state();
    expect(stored.payouts).toHaveLength(5);
    expect(Object.values(stored.createAttempts.payouts)).toEqual([1, 1, 1, 1, 1]);

    // Pat's history reads the team's journal: every row final, sent by the other desk.
    await pat.getByRole('link', { name: 'History' }).click();
    await expect(pat.getByTestId('history-total')).toHaveText('5 payments');
    await expect(pat.locator('main')).toContainText('Supplier 01 GmbH');
  } finally {
    await patWindow.close();
    await samWindow.close();
    await prep.close();
    await send.close();
  }
});

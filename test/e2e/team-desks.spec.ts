// Two desks of a team, two browser pages, one team database (a throwaway PostgreSQL) and one gateway (the
// sandbox). The preparer's desk holds no merchant key: Pat sets up the team, uploads the month's file, and
// watches it go. The sender's desk holds the key: Sam compares the control records' root fingerprint with
// Pat and confirms it there, enrols there (his key never leaves that machine), reads Pat his key's
// fingerprint and is given his roles from Pat's desk, approves the batch with his passphrase and sends it.
// Each page sees the other desk's work as it happens; every id reaches the gateway once. Last, someone with
// the database's password cuts the control records back: both desks say nothing is sent, on every screen.
import { expect, test, type Browser, type Page } from '@playwright/test';
import pg from 'pg';
import { startSandbox, type SandboxHandle } from '../../sandbox/index';
import { startCluster, freshDatabase, type Cluster } from '../integration/postgres/cluster';
import { openTeamAppDesk, TEAM_PROFILE, type TeamAppDesk } from '../integration/postgres/team-app-desk';
import { sandboxConfig } from '../integration/engine/setup';
import { APP_URL, bridgePage } from './support/bridge-page';
import { payoutCsv } from './support/csv-fixtures';
import { shot } from './support/journey';
import { KDF } from './support/people';

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
  test.setTimeout(300_000);
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
    await expect(pat.getByTestId('session-name')).toHaveText('Pat Preparer', KDF);
    // Pat's desk made the control records: their root is confirmed there. Nobody else is added: they enrol.
    const patRoot = pat.getByTestId('control-fingerprint');
    await expect(patRoot).toHaveText(/^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/);
    await expect(pat.getByTestId('control-confirmed')).toBeVisible();
    await expect(pat.getByTestId('people-add')).toHaveCount(0);
    const rootFingerprint = (await patRoot.textContent())!.trim();

    // Sam's desk reads the same root from the database, not confirmed until Sam compares it with Pat.
    await expect(sam.getByTestId('people-list')).toContainText('Pat Preparer');
    await expect(sam.getByTestId('control-fingerprint')).toHaveText(rootFingerprint);
    await expect(sam.getByTestId('control-unconfirmed')).toBeVisible();
    await cleanShot(sam, 'people-control');
    await sam.getByTestId('control-confirm-open').click();
    const confirm = sam.getByTestId('control-confirm-dialog');
    const wrong = rootFingerprint.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    await confirm.getByTestId('control-confirm-input').locator('input').fill(wrong);
    await confirm.getByTestId('control-confirm-submit').click();
    await expect(confirm.getByTestId('control-confirm-error')).toContainText('do not trust these records');
    // Read out in groups, as people do: spaces instead of colons are fine.
    await confirm.getByTestId('control-confirm-input').locator('input').fill(rootFingerprint.replace(/:/g, ' ').toUpperCase());
    await confirm.getByTestId('control-confirm-submit').click();
    await expect(confirm).toBeHidden(KDF);
    await expect(sam.getByTestId('control-confirmed')).toHaveText('confirmed at this desk');

    // Sam enrols at his own desk: a viewer, his key in that machine's keychain. Pat's page lists him at once.
    await sam.getByTestId('people-enrol').click();
    const enrol = sam.getByTestId('person-enrol-dialog');
    await enrol.getByTestId('person-name').locator('input').fill('Sam Sender');
    await enrol.getByTestId('person-passphrase').locator('input').fill(PASS.sam);
    await enrol.getByTestId('person-passphrase-confirm').locator('input').fill(PASS.sam);
    await enrol.getByTestId('person-enrol-confirm').click();
    await expect(sam.getByTestId('session-name')).toHaveText('Sam Sender', KDF);
    const samFingerprint = (await enrol.getByTestId('person-enrol-fingerprint').textContent())!.trim();
    await enrol.getByTestId('person-enrol-close').click();
    const samRow = pat.getByTestId('people-list').locator('tr', { hasText: 'Sam Sender' });
    await expect(samRow).toContainText('key not on this machine');
    await expect(samRow).toContainText('viewer');

    // Pat compares the fingerprint Sam reads him, and grants Sam approver and sender from his desk; Sam's
    // desk learns it without asking.
    await pat.getByTestId('person-roles-Sam Sender').click();
    const roles = pat.getByTestId('person-roles-dialog');
    await expect(roles.getByTestId('person-roles-fingerprint')).toHaveText(samFingerprint);
    await roles.getByLabel(/^approver/).check();
    await roles.getByLabel(/^sender/).check();
    await roles.getByLabel(/^viewer/).uncheck();
    await roles.getByTestId('person-roles-save').click();
    await expect(roles).toBeHidden(KDF);
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

    // Someone with the database's password cuts the newest control record off (the policy): both desks
    // pinned it in their keychain, so both refuse, and say so over every screen.
    const owner = new pg.Pool({ connectionString: teamUrl, max: 1 });
    try {
      await owner.query('ALTER TABLE control_chain DISABLE TRIGGER USER');
      await owner.query('DELETE FROM control_chain WHERE seq = (SELECT max(seq) FROM control_chain)');
    } finally {
      await owner.end();
    }
    for (const page of [pat, sam]) {
      await page.reload();
      await expect(page.getByTestId('control-problem-banner')).toContainText('Nothing is sent or approved at this desk', { timeout: 20_000 });
      await expect(page.getByTestId('control-problem-banner')).toContainText('cut back or replaced');
    }
    await cleanShot(sam, 'control-problem');
    await sam.getByTestId('control-problem-banner').getByRole('link', { name: 'People' }).click();
    await expect(sam.getByTestId('people-control-problem')).toContainText('cut back or replaced');
    await expect(sam.getByTestId('control-problem-banner')).toHaveCount(0);
  } finally {
    await patWindow.close();
    await samWindow.close();
    await prep.close();
    await send.close();
  }
});

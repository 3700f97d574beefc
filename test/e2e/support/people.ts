// Dual control's people, set up the way a team does: the first person is added (every role, the root of the
// control records); everyone else enrols at the desk, reads their key's fingerprint to the admin, and the
// admin compares it and grants their roles. Through the screens, or through the real handlers for set-up.
import { expect, type Page } from '@playwright/test';
import type { IpcHandlerMap, PersonInfo, RoleName } from '../../../contract/api';
import { call, selectOption } from './journey';

/** A person's key is sealed and opened under scrypt (128 MiB): a few tenths of a second, much more on a busy machine. */
export const KDF = { timeout: 30_000 };

/** People › Add the first person: they hold every role and are unlocked at once. */
export async function addFirstPerson(page: Page, name: string, passphrase: string): Promise<void> {
  await page.getByTestId('people-add').click();
  const dialog = page.getByTestId('person-add-dialog');
  await dialog.getByTestId('person-name').locator('input').fill(name);
  await dialog.getByTestId('person-passphrase').locator('input').fill(passphrase);
  await dialog.getByTestId('person-passphrase-confirm').locator('input').fill(passphrase);
  await dialog.getByTestId('person-add-confirm').click();
  await expect(dialog).toBeHidden(KDF);
  await expect(page.getByTestId('session-name')).toHaveText(name);
  await expect(page.getByTestId('people-list')).toContainText(name);
}

export async function lock(page: Page): Promise<void> {
  if (await page.getByTestId('session-lock').isVisible()) {
    await page.getByTestId('session-lock').click();
    await expect(page.getByTestId('session-who')).toHaveCount(0);
  }
}

export async function unlockAs(page: Page, name: string, passphrase: string, beforeSubmit?: () => Promise<void>): Promise<void> {
  await lock(page);
  await page.getByTestId('session-unlock').click();
  const dialog = page.getByTestId('unlock-dialog');
  await selectOption(page, 'unlock-person', new RegExp(`^${name}`));
  await dialog.getByTestId('unlock-passphrase').locator('input').fill(passphrase);
  await beforeSubmit?.();
  await dialog.getByTestId('unlock-submit').click();
  await expect(dialog).toBeHidden(KDF);
  await expect(page.getByTestId('session-name')).toHaveText(name);
}

/** People › Enrol yourself… (whoever is unlocked locks first): returns the key fingerprint the dialog shows. */
export async function enrol(page: Page, name: string, passphrase: string): Promise<string> {
  await lock(page);
  await page.getByTestId('people-enrol').click();
  const dialog = page.getByTestId('person-enrol-dialog');
  await dialog.getByTestId('person-name').locator('input').fill(name);
  await dialog.getByTestId('person-passphrase').locator('input').fill(passphrase);
  await dialog.getByTestId('person-passphrase-confirm').locator('input').fill(passphrase);
  await dialog.getByTestId('person-enrol-confirm').click();
  await expect(dialog.getByTestId('person-enrol-done')).toContainText(`${name} is enrolled`, KDF);
  const fingerprint = (await dialog.getByTestId('person-enrol-fingerprint').textContent())?.trim() ?? '';
  expect(fingerprint).toMatch(/^[0-9a-f]{4}(:[0-9a-f]{4}){3}$/);
  await dialog.getByTestId('person-enrol-close').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('session-name')).toHaveText(name);
  return fingerprint;
}

/**
 * People › Roles… of a person, as the unlocked admin: the dialog shows the fingerprint to compare with the one
 * the person read out; `roles` replace theirs (viewer included only if named).
 */
export async function grantRoles(page: Page, name: string, roles: RoleName[], fingerprint: string): Promise<void> {
  await page.getByTestId(`person-roles-${name}`).click();
  const dialog = page.getByTestId('person-roles-dialog');
  await expect(dialog.getByTestId('person-roles-fingerprint')).toHaveText(fingerprint);
  for (const role of ['preparer', 'approver', 'sender', 'viewer', 'admin'] as const) {
    const box = dialog.getByLabel(new RegExp(`^${role} `));
    if (roles.includes(role)) await box.check();
    else await box.uncheck();
  }
  await dialog.getByTestId('person-roles-save').click();
  await expect(dialog).toBeHidden(KDF);
}

/** A person enrols at this desk, then the admin unlocks and grants their roles (the admin stays unlocked). */
export async function enrolAndGrant(page: Page, person: { name: string; roles: RoleName[]; passphrase: string }, admin: { name: string; passphrase: string }): Promise<void> {
  const fingerprint = await enrol(page, person.name, person.passphrase);
  await unlockAs(page, admin.name, admin.passphrase);
  await grantRoles(page, person.name, person.roles, fingerprint);
  const row = page.getByTestId('people-list').locator('tr', { hasText: person.name });
  for (const role of person.roles) await expect(row).toContainText(role);
}

/** The same through the real handlers (set-up only): lock, enrol, unlock the admin, grant. The admin stays unlocked. */
export async function enrolWithHandlers(handlers: IpcHandlerMap, person: { name: string; roles: RoleName[]; passphrase: string }, admin: { name: string; passphrase: string }): Promise<PersonInfo> {
  await call(handlers, 'people:lock');
  await call(handlers, 'people:enroll', { name: person.name, passphrase: person.passphrase });
  const people = await call<PersonInfo[]>(handlers, 'people:list');
  const adminId = people.find((p) => p.name === admin.name)!.id;
  const enrolled = people.find((p) => p.name === person.name)!;
  await call(handlers, 'people:unlock', { personId: adminId, passphrase: admin.passphrase });
  await call(handlers, 'people:setRoles', { personId: enrolled.id, roles: person.roles });
  return enrolled;
}

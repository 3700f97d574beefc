// axe-core (@axe-core/playwright) on the page as a person sees it, one way for every journey (issue 29: axe on every
// screen and dialog): the WCAG 2.1 A and AA rules, serious and critical findings only, read once transitions are over.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from './journey';

/** The selector of an element by its data-testid. */
export const byTestId = (id: string): string => `[data-testid="${id}"]`;

/** Transitions finished (a screen fading in is lighter than the one a person reads); a spinner's endless one aside. */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getTiming().iterations !== Infinity)
        // A cancelled animation rejects its promise: it is over all the same.
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
}

/**
 * Serious and critical findings, each with its rule, what it asks and the first elements (with their HTML and why).
 * `selector` reads one part only: a dialog without the app behind its scrim.
 */
export async function seriousViolations(page: Page, selector?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  const { violations } = await (selector ? builder.include(selector) : builder).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')} [${n.html.slice(0, 120)}] ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 160)}`).join(' | ')}`);
}

/** Settled, then no serious or critical finding in `selector` (the whole page when none). */
export async function expectAccessible(page: Page, selector?: string): Promise<void> {
  await settled(page);
  const found = await seriousViolations(page, selector);
  expect(found, `${selector ?? 'the page'}:\n${found.join('\n')}`).toEqual([]);
}

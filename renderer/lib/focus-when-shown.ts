// Puts the cursor in a field of a screen that is still coming (a shortcut navigates, then the screen mounts
// and may load first): waits for the element, up to a few seconds, then focuses it once.

/** Resolves true once the element is focused, false if it did not show in time. */
export function focusWhenShown(selector: string, options: { timeoutMs?: number; select?: boolean } = {}): Promise<boolean> {
  const deadline = performance.now() + (options.timeoutMs ?? 5_000);
  return new Promise((resolve) => {
    const attempt = (): void => {
      const el = document.querySelector<HTMLElement>(selector);
      // Laid out and enabled: a field under a loading screen or a closing transition waits.
      if (el && el.getClientRects().length > 0 && !el.hasAttribute('disabled')) {
        el.focus();
        if (options.select && el instanceof HTMLInputElement) el.select();
        resolve(document.activeElement === el);
        return;
      }
      if (performance.now() > deadline) resolve(false);
      else requestAnimationFrame(attempt);
    };
    attempt();
  });
}

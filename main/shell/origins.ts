// Which origins count as "the app itself". In a packaged build only app://desk; in `electron-vite
// dev` also the dev server's origin (ELECTRON_RENDERER_URL), never anything else.
import { APP_ORIGIN } from './app-protocol';

/** scheme://host[:port] of a URL, computed by hand: WHATWG gives "null" for non-special schemes. */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (!parsed.host) return null;
    return `${parsed.protocol}//${parsed.host}`.toLowerCase();
  } catch {
    return null;
  }
}

export function trustedOrigins(devServerUrl: string | undefined, isPackaged: boolean): readonly string[] {
  const dev = !isPackaged && devServerUrl ? originOf(devServerUrl) : null;
  return dev ? [APP_ORIGIN, dev] : [APP_ORIGIN];
}

export function isTrustedUrl(url: string, origins: readonly string[]): boolean {
  const origin = originOf(url);
  return origin !== null && origins.includes(origin);
}

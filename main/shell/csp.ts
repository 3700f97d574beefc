// The renderer's Content Security Policy. The same policy is sent as a response header by the
// app:// protocol and written as a <meta> tag in renderer/index.html (a test keeps the two equal).
// No remote origins at all, no eval, no inline scripts. Inline *styles* are allowed because
// Vuetify sets style attributes at run time; styles cannot run code.

export const CSP_DIRECTIVES = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'worker-src': ["'none'"],
  'frame-src': ["'none'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
} as const satisfies Record<string, readonly string[]>;

/** Directives a <meta> tag cannot carry; header only. */
export const CSP_HEADER_ONLY_DIRECTIVES = { 'frame-ancestors': ["'none'"] } as const;

function serialise(directives: Record<string, readonly string[]>): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

export const CSP_META_POLICY = serialise(CSP_DIRECTIVES);
export const CSP_HEADER_POLICY = serialise({ ...CSP_DIRECTIVES, ...CSP_HEADER_ONLY_DIRECTIVES });

export type ParsedCsp = Map<string, string[]>;

export function parseCsp(policy: string): ParsedCsp {
  const parsed: ParsedCsp = new Map();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name && !parsed.has(name.toLowerCase())) parsed.set(name.toLowerCase(), sources);
  }
  return parsed;
}

/** What a policy does wrong for this app; empty when it is strict enough. */
export function cspProblems(policy: string): string[] {
  const csp = parseCsp(policy);
  const problems: string[] = [];
  const scripts = csp.get('script-src') ?? csp.get('default-src');
  if (!scripts) problems.push('no script-src or default-src');
  for (const source of scripts ?? []) {
    if (source !== "'self'" && source !== "'none'") problems.push(`script-src allows ${source}`);
  }
  const defaults = csp.get('default-src');
  if (!defaults || defaults.some((s) => s !== "'self'" && s !== "'none'")) problems.push('default-src must be self or none');
  for (const [name, sources] of csp) {
    for (const source of sources) {
      if (source === '*' || /^(https?|wss?):/i.test(source) || source.includes('://')) {
        problems.push(`${name} allows the remote source ${source}`);
      }
      if (source === "'unsafe-eval'" || source === "'wasm-unsafe-eval'") problems.push(`${name} allows eval`);
    }
  }
  if (csp.get('object-src')?.join(' ') !== "'none'") problems.push("object-src must be 'none'");
  if (!csp.has('base-uri')) problems.push('base-uri is missing');
  return problems;
}

/** Extracts the CSP of an HTML document's http-equiv meta tag, or null. */
export function cspFromHtml(html: string): string | null {
  for (const tag of html.match(/<meta\b[^>]*>/gis) ?? []) {
    if (!/http-equiv\s*=\s*["']content-security-policy["']/i.test(tag)) continue;
    const content = /content\s*=\s*"([^"]*)"|content\s*=\s*'([^']*)'/is.exec(tag);
    if (content) return (content[1] ?? content[2] ?? '').replace(/\s+/g, ' ').trim();
  }
  return null;
}

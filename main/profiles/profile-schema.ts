// A profile: one merchant on one gateway. Everything here is non-secret; the wrap key, the
// deprecated secret and the private keys live in the keychain / sealed key files (main/keys/).
import { isValidZone } from '../schedules/execution';
import { posix, win32 } from 'node:path';
import * as z from '../zod-mini';
import { DEFAULT_FINAL_STATUSES } from '../domain/status';
import { Iso20022SettingsSchema, type Iso20022Settings } from '../iso20022/settings';

export const TIMESTAMP_UNITS = ['ms', 's'] as const;
export type TimestampUnit = (typeof TIMESTAMP_UNITS)[number];
export const ENVIRONMENTS = ['TEST', 'LIVE'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const PROFILE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
export const DEFAULT_ACCOUNT_DATA_PATH = '/payins/{idPayin}/account-data';

const httpUrl = z.string().check(
  z.trim(),
  z.refine((text) => {
    try {
      const url = new URL(text);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL such as https://gateway.example.com'),
);

/** A public callback URL: where the gateway sends callbacks, so never an "every interface" address. */
const callbackBaseUrl = httpUrl.check(
  z.refine((text) => {
    const host = new URL(text).hostname.replace(/^\[|\]$/g, '');
    return host !== '0.0.0.0' && host !== '::';
  }, 'public callback URL must name a host the gateway can reach (0.0.0.0 and [::] are listening addresses, not destinations)'),
);

// ---- team database (issue 15, "Team desk") ----------------------------------------------------

/**
 * How a desk talks TLS to the team database. verify-full: encrypted, and the server's certificate must
 * chain to a trusted CA (the system's, or caFile) and name the host. require: encrypted, certificate not
 * checked (a man in the middle can read everything). disable: clear text (loopback only on a LIVE profile).
 */
export const TEAM_TLS_MODES = ['verify-full', 'require', 'disable'] as const;
export type TeamTlsMode = (typeof TEAM_TLS_MODES)[number];

/** The parts of a team database URL the desk connects with (percent-decoded). */
export interface TeamDatabaseTarget {
  user: string;
  host: string;
  port: number;
  database: string;
}

/** True for a host name or address that never leaves the machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Why this text cannot be a team database URL, or null. The password never goes in the URL (it is
 * kept in the keychain), and nothing in the URL may change TLS: that is the profile's `tls` setting.
 */
export function teamUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be a URL such as postgres://payout_desk@db.example.com:5432/payouts';
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return 'must start with postgres:// or postgresql://';
  if (url.password !== '' || /^[a-z]+:\/\/[^@/?#]*:[^@/?#]*@/i.test(text)) {
    return 'must not carry a password (the password goes in the keychain, not in the URL: set it with --password-stdin or in Settings)';
  }
  if (!url.username) return 'must name the database user, as in postgres://payout_desk@db.example.com/payouts';
  if (!url.hostname) return 'must name the database host';
  const names = [...url.searchParams.keys()];
  const tlsNames = names.filter((n) => /^(ssl|requiressl|gssencmode)/i.test(n));
  if (tlsNames.length > 0) {
    return `must not set ${tlsNames.join(', ')}: TLS comes from the profile's tls setting (verify-full, require or disable), not from the URL`;
  }
  if (names.length > 0) return `must not carry query parameters (${names.join(', ')}): the desk sets its own connection options`;
  if (url.hash) return 'must not carry a #fragment';
  const database = url.pathname.replace(/^\//, '');
  if (!database || database.includes('/')) return 'must name one database after the host, as in postgres://user@host:5432/payouts';
  return null;
}

/** The user, host, port and database of a URL that passed teamUrlProblem. */
export function teamDatabaseTarget(text: string): TeamDatabaseTarget {
  const url = new URL(text);
  return {
    user: decodeURIComponent(url.username),
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 5432,
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
  };
}

const teamUrl = z.string().check(
  z.trim(),
  z.maxLength(2048, 'at most 2048 characters'),
  z.superRefine((text, ctx) => {
    const problem = teamUrlProblem(text);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
);

/** Where the team journal lives; null (the default) = a single desk with its own SQLite journal. */
export const TeamDatabaseSchema = z.strictObject({
  url: teamUrl,
  tls: z._default(z.enum(TEAM_TLS_MODES), 'verify-full'),
  /** A PEM bundle of the CA(s) that signed the server's certificate; absent = the system's trusted CAs. */
  caFile: z._default(
    z.nullable(
      z.string().check(
        z.trim(),
        z.maxLength(4096),
        z.refine((p) => posix.isAbsolute(p) || win32.isAbsolute(p), 'CA file must be an absolute path to a PEM file'),
      ),
    ),
    null,
  ),
});
export type TeamDatabase = z.output<typeof TeamDatabaseSchema>;
export type TeamDatabaseInput = z.input<typeof TeamDatabaseSchema>;

// ---- SMTP server for remittance advice by e-mail (issue 28) -----------------------------------

/**
 * How the desk talks to its SMTP server. tls: TLS from the first byte (port 465). starttls: plain first, then
 * STARTTLS, which must succeed or nothing is sent (port 587). none: clear text, only to a server on this machine
 * (a local relay), since the login and every advice (payee, amount, account ending) would cross the network.
 */
export const SMTP_SECURITY = ['tls', 'starttls', 'none'] as const;
export type SmtpSecurity = (typeof SMTP_SECURITY)[number];
export const SMTP_DEFAULT_PORT: Record<SmtpSecurity, number> = { tls: 465, starttls: 587, none: 25 };

const SMTP_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[?[0-9A-Fa-f:.]{2,45}\]?)$/;
/** An addr-spec as a payout's e-mail is checked (domain/payout.ts), kept here so the profile needs nothing more. */
const MAIL_ADDRESS = /^[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+\.[^\s@<>(),;:"\\]+$/;
/** True for one plain address (no name, list or comment): what a From, a Reply-to and a recipient must be. */
export const isMailAddress = (text: string): boolean => text.length <= 254 && MAIL_ADDRESS.test(text);
const mailAddress = (what: string) => z.string().check(z.trim(), z.maxLength(254, `${what} must be at most 254 characters`), z.regex(MAIL_ADDRESS, `${what} must be an e-mail address such as payouts@example.com`));

/** The SMTP server remittance advice is sent through; its password is in the keychain (main/keys/smtp-password.ts). */
export const SmtpSettingsSchema = z.strictObject({
  host: z.string().check(z.trim(), z.maxLength(253), z.regex(SMTP_HOST, 'SMTP host must be a host name or an IP address, such as smtp.example.com (no scheme, no port)')),
  port: z.int().check(z.minimum(1, 'SMTP port must be 1-65535'), z.maximum(65_535, 'SMTP port must be 1-65535')),
  security: z.enum(SMTP_SECURITY),
  /** The login; null: the server takes mail from this desk without one (a local relay). */
  username: z.nullable(z.string().check(z.trim(), z.minLength(1, 'SMTP username must not be empty (leave it out for no login)'), z.maxLength(256))),
  from: mailAddress('From address'),
  replyTo: z._default(z.nullable(mailAddress('Reply-to address')), null),
}).check(
  z.superRefine((s, ctx) => {
    if (s.security === 'none' && !isLoopbackHost(s.host)) {
      ctx.addIssue({ code: 'custom', message: `SMTP security "none" sends the login and every advice in clear text: it is allowed only for a server on this machine (localhost, 127.0.0.1, ::1), not ${s.host}; use tls or starttls`, path: ['security'] });
    }
  }),
);
export type SmtpSettings = z.output<typeof SmtpSettingsSchema>;
export type SmtpSettingsInput = z.input<typeof SmtpSettingsSchema>;

/** Input for a new profile; every field but name, baseUrl and merchantCode has a default. */
/** A whole number from `min` to `max`, `fallback` when absent. */
const intIn = (min: number, max: number, fallback: number) => z._default(z.int().check(z.minimum(min), z.maximum(max)), fallback);

export const ProfileInputSchema = z.object({
  id: z.optional(z.string().check(z.regex(PROFILE_ID_PATTERN, 'profile id must be 1-40 of a-z, 0-9 and "-", starting with a letter or digit'))),
  name: z.string().check(z.trim(), z.minLength(1, 'name is required'), z.maxLength(80)),
  baseUrl: z.pipe(httpUrl, z.transform((u) => u.replace(/\/+$/, ''))),
  merchantCode: z.string().check(z.trim(), z.minLength(1, 'merchant code is required'), z.maxLength(64)),
  apiMajorVersion: intIn(1, 99, 2),
  timestampUnit: z._default(z.enum(TIMESTAMP_UNITS), 'ms'),
  environment: z._default(z.enum(ENVIRONMENTS), 'TEST'),
  rateLimitPerSec: intIn(1, 1000, 10),
  tokenValiditySecs: intIn(60, 86_400, 900),
  callbackEnabled: z._default(z.boolean(), false),
  callbackHost: z._default(z.string().check(z.trim(), z.minLength(1)), '127.0.0.1'),
  callbackPort: intIn(0, 65_535, 0),
  /** The public base URL the gateway reaches this desk's listener at; the path secret is added to it. */
  callbackUrl: z._default(z.nullable(callbackBaseUrl), null),
  /**
   * Unguessable path segment of the callback URL, made by ProfileStore (node:crypto). Kept with the
   * profile, not in the keychain: it travels in every payment's callbackUrl and sits in the journal
   * anyway, and the listener must start while the keychain is locked.
   */
  callbackSecret: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{22,128}$/))),
  useDeprecatedSecret: z._default(z.boolean(), false),
  maxAmountMinor: z._default(z.nullable(z.int().check(z.positive())), null),
  /** A payout like one of the last this many days (account, amount, currency) is flagged a possible duplicate; 0: off. */
  repeatWindowDays: intIn(0, 3650, 30),
  /** The calendar's zone for release times given without one (IANA name); '': this machine's. */
  timeZone: z._default(z.string().check(z.maxLength(64), z.refine((v) => v === '' || isValidZone(v), 'time zone must be an IANA name such as Europe/Berlin')), ''),
  /** A scheduled release found more than this late waits for a person to confirm it; 0: any lateness waits. */
  lateReleaseWindowMinutes: intIn(0, 10_080, 360),
  finalStatuses: z._default(
    z.array(z.string().check(z.trim(), z.minLength(1), z.toUpperCase())).check(z.minLength(1)),
    () => [...DEFAULT_FINAL_STATUSES],
  ),
  accountDataPath: z._default(
    z.string().check(z.regex(/^\/[A-Za-z0-9_!/{}.-]*\{idPayin\}[A-Za-z0-9_!/{}.-]*$/, 'account data path must start with "/" and contain {idPayin}')),
    DEFAULT_ACCOUNT_DATA_PATH,
  ),
  pollIntervalSecs: intIn(1, 3600, 10),
  /** Dual control: an unlocked person unused this long is locked again (must unlock with their passphrase). */
  idleLockMinutes: intIn(1, 480, 10),
  isDemo: z._default(z.boolean(), false),
  /** A shared team journal on PostgreSQL; null = this desk alone (SQLite). Its password is in the keychain. */
  teamDatabase: z._default(z.nullable(TeamDatabaseSchema), null),
  /** Where remittance advice is e-mailed from; null: not set up. Its password is in the keychain. */
  smtp: z._default(z.nullable(SmtpSettingsSchema), null),
  /** pain.001 payment runs: operator rules and a fallback e-mail (main/iso20022/settings.ts); absent: SEPA → EU_SEPA. */
  iso20022: z.optional(Iso20022SettingsSchema),
});
export type ProfileInput = z.input<typeof ProfileInputSchema>;

/**
 * Fields a user may change after creation (id and createdAt are fixed). Validated field by field
 * (see ProfileStore.update): zod's `partial()` would still fill every default and so reset fields
 * the patch does not name.
 */
export type ProfilePatch = Partial<Omit<ProfileInput, 'id'>>;

export interface Profile {
  id: string;
  name: string;
  baseUrl: string;
  merchantCode: string;
  apiMajorVersion: number;
  timestampUnit: TimestampUnit;
  environment: Environment;
  rateLimitPerSec: number;
  tokenValiditySecs: number;
  callbackEnabled: boolean;
  callbackHost: string;
  callbackPort: number;
  callbackUrl: string | null;
  callbackSecret?: string;
  activeKeyId: string | null;
  useDeprecatedSecret: boolean;
  maxAmountMinor: number | null;
  repeatWindowDays: number;
  timeZone: string;
  lateReleaseWindowMinutes: number;
  finalStatuses: string[];
  accountDataPath: string;
  pollIntervalSecs: number;
  idleLockMinutes: number;
  isDemo: boolean;
  teamDatabase: TeamDatabase | null;
  smtp: SmtpSettings | null;
  iso20022?: Iso20022Settings;
  createdAt: string;
  updatedAt: string;
}

/**
 * Why these fields cannot make a profile, or null: a LIVE profile moves real money, so its base URL must be
 * https (TEST may use http, e.g. the loopback sandbox), and its team database, unless on this machine, is
 * reached with verify-full only: with require nobody checks who answers, so a man in the middle can ask for
 * the password in clear; with disable everything crosses in clear.
 */
export function profileRuleProblem(p: { environment: Environment; baseUrl: string; teamDatabase?: TeamDatabase | null }): string | null {
  if (p.environment === 'LIVE' && !/^https:\/\//i.test(p.baseUrl)) {
    return `a LIVE profile must use an https:// base URL (got ${p.baseUrl}); only TEST profiles may use http://`;
  }
  const team = p.teamDatabase;
  if (p.environment === 'LIVE' && team && team.tls !== 'verify-full') {
    const { host } = teamDatabaseTarget(team.url);
    if (isLoopbackHost(host)) return null;
    if (team.tls === 'disable') {
      return `a LIVE profile cannot reach its team database ${host} with tls "disable": the password and every payment would cross the network in clear text; use verify-full (or disable only for a database on this machine: localhost, 127.0.0.1, ::1)`;
    }
    return `a LIVE profile cannot reach its team database ${host} with tls "require": the server's certificate is not checked, so a man in the middle could ask for the password in clear; use verify-full (with a CA file for a private CA), or require only for a database on this machine: localhost, 127.0.0.1, ::1`;
  }
  return null;
}

export const KEY_STATUSES = ['active', 'standby', 'retired'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];
export const KEY_SOURCES = ['generated', 'imported'] as const;
export type KeySource = (typeof KEY_SOURCES)[number];

/** Metadata of one signing key of a profile (the key itself is sealed on disk). */
export interface KeyRecord {
  profileId: string;
  keyId: string;
  createdAt: string;
  fingerprint: string;
  bits: number;
  status: KeyStatus;
  source: KeySource;
  retiredAt: string | null;
}

/** Derives a profile id from its name: "Demo Store (EU)" → "demo-store-eu". */
export function slugifyProfileName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'profile';
}

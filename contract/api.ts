// The IPC contract between the renderer and main (DESIGN.md §2): types plus the channel list. It sits
// in contract/ with its schemas (schemas.ts), its sizes (limits.ts) and the words a person reads
// (state-words.ts); it imports nothing, so main, preload, the renderer and the Playwright harness share it.
//
// Rules kept by every method:
// - one argument object (or none), checked by a schema in main before any service sees it;
// - the answer is a Result, never a thrown error;
// - amounts cross as decimal strings with their currency; nothing secret crosses, except the
//   payin-scoped tokens of `payins:shareToken` and `payins:createLink`, created on an explicit user action.

// ---------------------------------------------------------------- shared shapes

export interface IpcError {
  /** Stable machine code, e.g. INVALID_ARGUMENT, NOT_FOUND, RATE_LIMITED, NOT_AVAILABLE. */
  code: string;
  /** A sentence for the user; never contains a key, secret or token. */
  message: string;
  /** True when the same call may succeed later (network, 5xx, rate limit). */
  retryable: boolean;
  /** Field-level problems for forms (argument validation, payout rules). */
  issues?: FieldIssue[];
}

export type Result<T> = { ok: true; data: T } | { ok: false; error: IpcError };

export interface FieldIssue {
  /** Dotted path of the field, e.g. "amount" or "callback.port". */
  field: string;
  code: string;
  message: string;
}

/** An exact amount: a plain decimal string in major units with its currency. */
export interface Money {
  amount: string;
  currencyCode: string;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type Environment = 'TEST' | 'LIVE';
export type PaymentKind = 'payout' | 'payin';
export type StatusSource = 'create' | 'poll' | 'callback' | 'local';
/** ISO 8601 UTC timestamp. */
export type IsoTime = string;

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

export interface PageRequest {
  offset?: number;
  /** At most 1000. */
  limit?: number;
}

/** A file handed back to the renderer to save (CSV exports, templates, key letters). */
export interface FileContent {
  fileName: string;
  mimeType: string;
  content: string;
  /** 'base64': `content` is the file's bytes in base64 (a PDF); text otherwise. */
  encoding?: 'base64';
}

/** What a file the user hands the desk is for: it decides the dialog's filter and the extensions main accepts. */
/** ca: the PEM bundle of the CA that signed the team database's certificate. */
export type FilePurpose = 'csv' | 'key' | 'ca';

/**
 * A file the user chose in main's own open dialog or dropped on the window. Main keeps its path; the page
 * only ever holds this token (and the name to show), so it can neither name a path nor read the file.
 */
export interface FileGrant {
  token: string;
  fileName: string;
  purpose: FilePurpose;
}

/** A dialog the user cancelled is an answer, not an error. */
export type FileChoice = { chosen: true; file: FileGrant } | { chosen: false };

// ---------------------------------------------------------------- profiles

export interface CallbackSettings {
  enabled: boolean;
  host: string;
  port: number;
  /** The public base URL the gateway reaches the listener at (a path secret is added to it); null = loopback only. */
  url: string | null;
}

/** How a profile's callback listener is doing; a failure never stops sending or status polling. */
export interface CallbackListenerStatus {
  /** off: callbacks not enabled; stopped: its engine is not running; failed: it could not listen. */
  state: 'off' | 'listening' | 'failed' | 'stopped';
  /** Where it listens, e.g. "127.0.0.1:43121". */
  boundTo: string | null;
  /** The callbackUrl payments are sent with (includes the unguessable path secret). */
  announcedUrl: string | null;
  /** Why it failed or is stopped, or a note on how it listens. */
  message: string | null;
}

export interface ProfileView {
  id: string;
  name: string;
  baseUrl: string;
  merchantCode: string;
  environment: Environment;
  isDemo: boolean;
  apiMajorVersion: number;
  activeKeyId: string | null;
  useDeprecatedSecret: boolean;
  hasSecret: boolean;
  settings: SettingsView;
}

export interface ProfileCreateInput {
  name: string;
  baseUrl: string;
  merchantCode: string;
  environment: Environment;
  apiMajorVersion?: number;
}

export interface ProfileUpdateInput {
  profileId: string;
  name?: string;
  baseUrl?: string;
  merchantCode?: string;
  environment?: Environment;
  apiMajorVersion?: number;
}

export interface ProfileList {
  profiles: ProfileView[];
  activeProfileId: string | null;
}

export interface ConnectionTestResult {
  channelName: string;
  environment: Environment;
  /** Decoded claims of the token used for the test (never the token itself). */
  tokenClaims: { [key: string]: JsonValue };
  checkedAt: IsoTime;
}

export interface ProfilesContract {
  list: { args: void; result: ProfileList };
  create: { args: ProfileCreateInput; result: ProfileView };
  /** One click: sandbox in-process, demo key generated and registered, balances funded. */
  createDemo: { args: void; result: ProfileView };
  use: { args: { profileId: string }; result: ProfileView };
  update: { args: ProfileUpdateInput; result: ProfileView };
  /** The journal file stays unless deleteJournal; removing the current profile makes the first other one current. */
  remove: { args: { profileId: string; deleteJournal?: boolean }; result: { removed: true; journalDeleted: boolean; activeProfileId: string | null } };
  testConnection: { args: { profileId?: string }; result: ConnectionTestResult };
  /** The SMTP server remittance advice is e-mailed through: never the password, only whether one is kept. */
  smtp: { args: { profileId?: string }; result: SmtpSettingsView };
  /** Saves the SMTP server (an admin once dual control is on); the password, sent once, goes to the keychain. */
  setSmtp: { args: SmtpSettingsUpdate; result: SmtpSettingsView };
  /** No e-mail of advice from this profile; the password leaves the keychain. */
  clearSmtp: { args: { profileId?: string }; result: SmtpSettingsView };
  /** Sends a short test e-mail through the saved settings (to the From address unless `to`); SMTP_TEST_FAILED with the server's reply. */
  testSmtp: { args: { profileId?: string; to?: string }; result: SmtpTestResult };
}

/** tls: TLS from the start (465); starttls: STARTTLS required (587); none: clear text, a server on this machine only. */
export type SmtpSecurity = 'tls' | 'starttls' | 'none';

export interface SmtpSettingsView {
  /** null: remittance advice is not e-mailed from this profile. */
  config: { host: string; port: number; security: SmtpSecurity; username: string | null; from: string; replyTo: string | null } | null;
  /** Whether this desk's keychain holds the SMTP password (it never leaves main). */
  passwordStored: boolean;
}

export interface SmtpSettingsUpdate {
  profileId?: string;
  host: string;
  /** Default: 465 for tls, 587 for starttls, 25 for none. */
  port?: number;
  security: SmtpSecurity;
  /** null or absent: no login. */
  username?: string | null;
  from: string;
  replyTo?: string | null;
  /** Sent once, page → main, kept in the keychain (as the team database password); absent = keep the stored one. */
  password?: string;
}

export interface SmtpTestResult {
  to: string;
  /** The server's answer to the message. */
  reply: string;
  sentAt: IsoTime;
}

// ---------------------------------------------------------------- keys

/** standby: usable for verification by the gateway, not used for signing (e.g. after rotation). */
export type KeyStatus = 'active' | 'standby' | 'retired';

export interface KeyView {
  id: string;
  profileId: string;
  status: KeyStatus;
  source: 'generated' | 'imported';
  algorithm: 'RSA';
  modulusBits: number;
  /** SHA-256 of the DER public key, hex pairs separated by ":". */
  fingerprint: string;
  publicKeyPem: string;
  createdAt: IsoTime;
  retiredAt: IsoTime | null;
}

export interface KeyLetter extends FileContent {
  profileName: string;
  merchantCode: string;
  environment: Environment;
  fingerprint: string;
  publicKeyPem: string;
}

/** A key of the active profile, or of `profileId`. */
export interface KeyRef {
  keyId: string;
  profileId?: string;
}

export type KeyBackupOutcome = { saved: true; path: string; fingerprint: string } | { saved: false };

export interface KeysContract {
  list: { args: { profileId?: string }; result: KeyView[] };
  generate: { args: { profileId?: string; modulusBits?: 2048 | 3072 | 4096 }; result: KeyView };
  /** `file`: the token of a key file main's dialog chose or the user dropped; main reads it, the page never sees the PEM. */
  import: { args: { profileId?: string; file: string; passphrase?: string }; result: KeyView };
  exportPublic: { args: KeyRef; result: FileContent & { fingerprint: string } };
  letter: { args: KeyRef; result: KeyLetter };
  /** New key becomes active; the previous one stays usable until retired. */
  rotate: { args: { profileId?: string }; result: { active: KeyView; previous: KeyView | null } };
  retire: { args: KeyRef; result: KeyView };
  /**
   * Passphrase-encrypted PKCS#8 backup written by main to a new file the user names in main's own save
   * dialog; only the path comes back. `confirmed`: the user acknowledged that whoever has file and
   * passphrase can pay. A cancelled dialog writes nothing and answers `saved: false`.
   */
  /**
   * With dual control on: the unlocked admin exports, and `second` (another person of dual control, an admin or
   * an approver, who types their own passphrase here) agrees: exporting the merchant key needs two people.
   */
  backup: { args: KeyRef & { passphrase: string; confirmed: boolean; second?: { personId: string; passphrase: string } }; result: KeyBackupOutcome };
  setSecret: { args: { profileId?: string; secret: string }; result: { hasSecret: boolean } };
  clearSecret: { args: { profileId?: string }; result: { hasSecret: boolean } };
}

// ---------------------------------------------------------------- the calendar

/**
 * When a payout or batch is released: a wall time in a named zone, "2026-12-24T09:00", or a date alone (released at
 * 08:00 that day). A time the clocks skip (a spring-forward night) is refused; one they pass twice is the first.
 */
export interface ExecuteOn {
  local: string;
  /** IANA zone, e.g. Europe/Berlin; the profile's (Settings) when absent. */
  zone?: string;
}

/** SCHEDULED: waits for its time. LATE: found past the late window, waits for a person. RELEASED: sent through the gate. */
export type ScheduleState = 'SCHEDULED' | 'LATE' | 'RELEASED' | 'CANCELLED';

export interface ScheduleView {
  kind: 'payout' | 'batch';
  id: string;
  /** The batch's file name, or the payout's payee. */
  title: string;
  executeAt: IsoTime;
  zone: string;
  /** The wall time asked for, in `zone`. */
  local: string;
  /** "2026-12-24 09:00 Europe/Berlin" (with a note on a fall-back night). */
  when: string;
  state: ScheduleState;
  /** The batch's or payout's own state (SCHEDULED, RUNNING, HELD, QUEUED, COMPLETED…). */
  subjectState: string;
  rows: number;
  totals: { money: Money; count: number }[];
  releasedAt: IsoTime | null;
  releasedBy: string | null;
  /** "late by 2 h 5 min" when it was released (or found) late; null when on time. */
  lateBy: string | null;
  /** Who prepared it (a person's id), when dual control records one: only they move it. */
  preparedBy: string | null;
}

/** The forecast of one currency on one day (schedules/forecast.ts): due that day, due to its end, and short by. */
export interface ForecastLineView {
  /** yyyy-MM-dd in the profile's zone. */
  date: string;
  currencyCode: string;
  due: Money;
  count: number;
  cumulative: Money;
  available: Money | null;
  shortBy: Money | null;
}

export interface ScheduleList {
  items: ScheduleView[];
  /** Runs not yet released, per currency and day, against the balances last read. */
  forecast: ForecastLineView[];
  /** The zone days are counted in (the profile's). */
  zone: string;
}

export interface ScheduleRef {
  kind: 'payout' | 'batch';
  id: string;
}

export interface SchedulesContract {
  /** Schedules released from `from` to `to` (default: everything), by time. */
  list: { args: { from?: IsoTime; to?: IsoTime; states?: ScheduleState[] }; result: ScheduleList };
  get: { args: ScheduleRef; result: ScheduleView };
  /** Only its preparer moves it under dual control (they sign it again): the approvals are asked again. */
  move: { args: ScheduleRef & { executeOn: ExecuteOn }; result: ScheduleView };
  /** Before release: a batch is cancelled with its rows, a payout discarded. */
  cancel: { args: ScheduleRef & { reason?: string }; result: ScheduleView };
  /** A sender confirms a release past the late window: it is released now, through the approval gate. */
  confirmLate: { args: ScheduleRef; result: ScheduleView };
}

// ---------------------------------------------------------------- recurring payouts

/** ACTIVE: its occurrences are made ahead. PAUSED: none are made until resumed. ENDED: final. */
export type RecurringState = 'ACTIVE' | 'PAUSED' | 'ENDED';

/**
 * One date of a series. UPCOMING: not made yet. CREATING: a desk is making its payout. CREATED: its scheduled payout is
 * in the journal (payoutId). SKIPPED: a person chose not to pay it. MISSED: its release passed before anyone could
 * prepare it. FAILED: its payout was refused (reason).
 */
export type OccurrenceState = 'UPCOMING' | 'CREATING' | 'CREATED' | 'SKIPPED' | 'MISSED' | 'FAILED';

export interface RecurringInput {
  /** A payee of the book: each occurrence pays its details in force at the time it is made. */
  payeeId: string;
  /** Decimal text in the currency's units, e.g. "1250.00". */
  amount: string;
  currencyCode: string;
  /** The payout's reference; the occurrence's date fills braces: "Rent {yyyy-MM}", "{MMMM yyyy} fee". */
  reference?: string;
  /** "monthly 25" (the month's last day when shorter), "monthly last-business-day" (Mon–Fri), "weekly fri". */
  rule: string;
  /** yyyy-MM-dd: the first date it may pay on; today (in the zone) when absent. */
  start?: string;
  /** Ends after this many payments (skipped ones count)… */
  endCount?: number;
  /** …or after this date (yyyy-MM-dd, inclusive). Neither: until ended. */
  endUntil?: string;
  /** HH:mm each occurrence releases at; 08:00 when absent. */
  timeOfDay?: string;
  /** IANA zone; the profile's (Settings) when absent. */
  zone?: string;
  /** How many days before its release each occurrence is made, to be approved in time; 5 when absent. */
  leadDays?: number;
}

export interface RecurringOccurrenceView {
  /** yyyy-MM-dd in the template's zone. */
  date: string;
  releaseAt: IsoTime;
  /** "2027-03-25 08:00 Europe/Berlin". */
  when: string;
  state: OccurrenceState;
  payoutId: string | null;
  reason: string | null;
}

export interface RecurringView {
  id: string;
  payeeId: string;
  /** The payee's name in force (null when the payee has none in force: its occurrences fail until it has). */
  payeeName: string | null;
  money: Money;
  referencePattern: string | null;
  /** As typed: "monthly 25". */
  rule: string;
  /** In words: "monthly on the 25th". */
  ruleText: string;
  start: string;
  /** "after 12 payments", "until 2027-12-31", or null (until ended). */
  end: string | null;
  timeOfDay: string;
  zone: string;
  leadDays: number;
  state: RecurringState;
  createdBy: string | null;
  createdAt: IsoTime;
  /** The next date not yet made, skipped or missed, and when it will be made; null when the series has ended. */
  next: (RecurringOccurrenceView & { madeFrom: IsoTime }) | null;
  /** Dates recorded (made, skipped, missed, failed), newest first (at most 24). */
  occurrences: RecurringOccurrenceView[];
}

/** What a look for due occurrences did. */
export interface RecurringRunResult {
  created: { templateId: string; date: string; payoutId: string }[];
  missed: { templateId: string; date: string }[];
  failed: { templateId: string; date: string; reason: string }[];
  /** Why nothing could be made at this desk now (nobody who may prepare is unlocked), or null. */
  waiting: string | null;
}

export interface RecurringContract {
  /** Templates, oldest first; those of one payee, or in these states, when asked. */
  list: { args: { payeeId?: string; states?: RecurringState[] }; result: { items: RecurringView[] } };
  /** Under dual control its maker prepares every occurrence (they are made while that person is unlocked at a desk). */
  add: { args: RecurringInput; result: RecurringView };
  pause: { args: { id: string }; result: RecurringView };
  /** Dates whose release passed while it was paused are not made. */
  resume: { args: { id: string }; result: RecurringView };
  /** One date of the series is not paid; refused when its payout was made already (cancel that in the Calendar). */
  skip: { args: { id: string; date: string; reason?: string }; result: RecurringView };
  end: { args: { id: string }; result: RecurringView };
  /** Makes the occurrences due now (the desk also looks on unlock and every few minutes). */
  run: { args: { id?: string }; result: RecurringRunResult };
}

// ---------------------------------------------------------------- payouts

export interface PayoutInput {
  /** Generated by main when absent; fixed from then on (never paid twice). */
  idPayout?: string;
  amount: string;
  currencyCode: string;
  accountName: string;
  accountNumber: string;
  paymentOperatorCode: string;
  /** Default BANK_TRANSFER. */
  paymentMethodCode?: string;
  emailAddress: string;
  callbackUrl?: string;
  reference?: string;
}

export interface PayoutPreview {
  idPayout: string;
  money: Money;
  accountName: string;
  accountNumber: string;
  paymentOperatorCode: string;
  paymentMethodCode: string;
  emailAddress: string;
  callbackUrl: string | null;
  /** The exact JSON body that will be signed and sent. */
  requestBody: string;
  fee: Money | null;
}

export interface PayoutValidation {
  valid: boolean;
  issues: FieldIssue[];
  /** Present when valid. */
  preview: PayoutPreview | null;
  /** The chosen currency's last known balance, and what this payout would leave of it; null when none is known. */
  balance: PayoutBalance | null;
  /** An earlier payout like this one (see PossibleDuplicate); create refuses until the person confirms. Null: none. */
  possibleDuplicate: PossibleDuplicate | null;
}

/**
 * A payout of the profile's last `repeatWindowDays` days (Settings) to the same account, of the same amount and
 * currency, paid or still on its way: sending again may pay one invoice twice.
 */
export interface PossibleDuplicate {
  /** The earliest such payout. */
  idPayout: string;
  createdAt: IsoTime;
  /** The batch file it came in, if any. */
  fileName: string | null;
  /** The sentence to show: what matched, and what confirming means. */
  message: string;
}

/** The funding rule's figures for one payout (main/desk/funding.ts): the available balance, not what is pending. */
export interface PayoutBalance {
  available: Money;
  /** When the balance was read from the gateway. */
  observedAt: IsoTime;
  /** Available minus this payout's amount (negative: short by that much); null until the amount is valid. */
  afterThis: Money | null;
}

export interface CurrencyView {
  code: string;
  name: string;
  decimals: number;
}

export interface OperatorView {
  code: string;
  name: string;
  paymentMethodCode: string;
  currencyCodes: string[];
}

/** queued: being sent; retrying: a transient failure, tried again; sent: the server took it; refused: 5xx; failed: not sent. */
export type RemittanceEmailState = 'queued' | 'retrying' | 'sent' | 'refused' | 'failed';

/** The e-mail of one payout's remittance advice, as journaled (both back ends). */
export interface RemittanceEmailView {
  idPayout: string;
  /** The batch it was mailed with, when mailed for a batch. */
  batchId: string | null;
  to: string;
  state: RemittanceEmailState;
  /** Attempts of the latest send. */
  attempts: number;
  /** The server's last answer (or the connection's error), as received: "550 5.1.1 <x@example.com>: Recipient address rejected". */
  lastReply: string | null;
  messageId: string | null;
  /** How many times a server took it (2 or more after a Send again). */
  sends: number;
  sentAt: IsoTime | null;
  /** Who asked for the latest send. */
  requestedBy: string;
  updatedAt: IsoTime;
}

/** Payouts of a batch whose advice was not e-mailed, for one reason. */
export interface RemittanceEmailSkip {
  /** ALREADY_EMAILED, NO_EMAIL_ADDRESS, EMAIL_IN_PROGRESS, EMAIL_OUTCOME_UNKNOWN. */
  code: string;
  reason: string;
  idPayouts: string[];
}

export interface BatchRemittanceEmailOutcome {
  /** Mails the server took (one per payee). */
  mails: number;
  /** Payouts those mails advised. */
  payouts: number;
  /** Payouts not paid (in flight, failed or returned): never advised. */
  notPaid: number;
  /** Mails refused (5xx) or not sent, with each payout's record. */
  refused: RemittanceEmailView[];
  failed: RemittanceEmailView[];
  skipped: RemittanceEmailSkip[];
}

export interface PayoutsContract {
  /** `executeOn`: checked as create checks it; a dated payout is not held to today's balance (the forecast shows it). */
  validate: { args: PayoutInput & { executeOn?: ExecuteOn }; result: PayoutValidation };
  /** idPayout is required: it comes from validate's preview, so a double click cannot pay twice. */
  /**
   * Refused with POSSIBLE_DUPLICATE while an earlier payout like it exists (validate's possibleDuplicate), unless
   * `confirmPossibleDuplicate`: the person checked it is a separate payment (audited).
   */
  /** `executeOn`: stored HELD and released at that time (the calendar), not sent now. */
  create: { args: PayoutInput & { idPayout: string; confirmPossibleDuplicate?: boolean; executeOn?: ExecuteOn }; result: PaymentDetail };
  get: { args: { idPayout: string }; result: PaymentDetail };
  /** Remittance advice (PDF) for the payee of a paid payout; refused with NOT_PAID unless the gateway reports SUCCESS (audited). */
  remittance: { args: { idPayout: string }; result: FileContent };
  /**
   * E-mails the remittance advice (the same PDF, attached) to the payout's e-mail address through the profile's SMTP
   * server, once: a second request for an advice already sent is refused with ALREADY_EMAILED saying when, unless
   * `force` (audited as a resend). NOT_PAID unless the gateway reports SUCCESS; EMAIL_REFUSED when the server refused
   * it for good (5xx), EMAIL_FAILED when it could not be sent; the record shows either (remittanceEmail).
   */
  emailRemittance: { args: { idPayout: string; force?: boolean }; result: RemittanceEmailView };
  /** Where the e-mail of this payout's advice stands; null when it was never e-mailed. */
  remittanceEmail: { args: { idPayout: string }; result: RemittanceEmailView | null };
  /** A HELD payout is sent after a person fixed the cause (PAYOUT_HELD again if it still cannot be). */
  release: { args: { idPayout: string }; result: PaymentDetail };
  /** A HELD payout is not sent at all: DISCARDED, final. */
  discard: { args: { idPayout: string; reason?: string }; result: PaymentDetail };
  currencies: { args: void; result: CurrencyView[] };
  operators: { args: { currencyCode?: string }; result: OperatorView[] };
}

// ---------------------------------------------------------------- batches

export type BatchFileSource =
  /** A file main's dialog chose or the user dropped (app:chooseFile / app:fileDropped). */
  | { kind: 'granted'; token: string }
  | { kind: 'bytes'; fileName: string; bytes: Uint8Array }
  /** For bridges that cannot carry binary (the Playwright harness). */
  | { kind: 'base64'; fileName: string; base64: string };

export interface CsvIssueView {
  rowNumber: number;
  column: string | null;
  code: string;
  message: string;
}

export interface BatchRowView {
  rowNumber: number;
  idPayout: string;
  money: Money;
  accountName: string;
  accountNumber: string;
  paymentOperatorCode: string;
  paymentMethodCode: string;
  emailAddress: string;
  callbackUrl: string | null;
  reference: string | null;
}

export interface CurrencyFunding {
  currencyCode: string;
  count: number;
  required: Money;
  available: Money | null;
  /** Positive when the balance does not cover the rows; null when funded or unknown. */
  shortfall: Money | null;
}

export interface BatchValidation {
  /** Handle for batches:submit; valid while the app runs. */
  validationId: string;
  fileName: string;
  sha256: string;
  encoding: string;
  delimiter: string;
  counts: { rows: number; valid: number; invalid: number; warnings: number };
  rows: BatchRowView[];
  errors: CsvIssueView[];
  /** Duplicates and "bank details changed": each must be confirmed by row number. */
  warnings: CsvIssueView[];
  funding: CurrencyFunding[];
  unknownColumns: string[];
  alreadySubmitted: boolean;
  /** Checks that could not run (e.g. the gateway's currencies and operators while offline); empty when all ran. */
  skippedChecks: string[];
  /** False when the balances could not be read now: `funding` then holds the last known ones (see skippedChecks). */
  balancesRead: boolean;
  /** The ISO 20022 message when the file is a pain.001 (encoding "utf-8", no delimiter); null for a CSV. */
  iso20022: Pain001FileView | null;
  /**
   * The release time the file's rows ask for (a CSV execute_on column, a pain.001 ReqdExctnDt), still ahead:
   * "2026-12-24 08:00 Europe/Berlin". batches:submit schedules the batch then when it names no time itself.
   */
  executeOn: string | null;
  /** What the file's dates mean, for the review ("… is released then", "… has passed: sent at once"); null for none. */
  executeOnNote: string | null;
}

/** "ISO 20022 pain.001.001.09, 12 transactions in 3 payment groups": what the review says of a pain.001. */
export interface Pain001FileView {
  version: string;
  messageId: string;
  createdAt: string;
  transactions: number;
  paymentGroups: number;
}

export interface BatchSubmitInput {
  validationId: string;
  /** Row numbers of warnings the user confirmed one by one. */
  confirmedWarningRows: number[];
  /** Send only these currencies (e.g. the funded ones); all when absent. */
  currencyCodes?: string[];
  /** The batch's id, when the desks of a team agree on one (`team send --batch`); a new one when absent. */
  batchId?: string;
  /** Released at this time (the calendar), not sent now; a file's own dates (an execute_on column, ReqdExctnDt) when absent. */
  executeOn?: ExecuteOn;
}

export type BatchState = 'QUEUED' | 'SCHEDULED' | 'RUNNING' | 'PAUSED' | 'CANCELLING' | 'CANCELLED' | 'COMPLETED' | 'FAILED';

export interface BatchProgress {
  batchId: string;
  state: BatchState;
  total: number;
  /** Final: every row not still pending (final + pending = total). */
  done: number;
  failed: number;
  pending: number;
  /** Payouts accepted by the gateway so far. */
  sent: number;
  ratePerSec: number;
  etaSeconds: number | null;
  /** The state as a person reads it (contract/state-words.ts): SENT while final statuses are awaited, WAITING, STOPPED… */
  stateWord: string;
  /** Why the batch stopped or waits (e.g. "gateway unreachable since 10:42 (ECONNREFUSED)"); null when nothing needs saying. */
  stateReason: string | null;
}

export interface BatchView {
  id: string;
  profileId: string;
  fileName: string;
  sha256: string;
  createdAt: IsoTime;
  finishedAt: IsoTime | null;
  totals: { money: Money; count: number }[];
  progress: BatchProgress;
}

export interface BatchResultRow {
  rowNumber: number;
  idPayout: string;
  money: Money;
  accountName: string;
  status: string;
  localState: string;
  fee: Money | null;
  failureReason: string | null;
  processedAt: IsoTime | null;
  /** The intent (what was asked to pay) this row is an attempt of. */
  intentId: string | null;
  /** "Retry failed rows" would send this row again now (decided in main, per intent). */
  retryable: boolean;
  retryOf: string | null;
  retriedAs: string | null;
  /** The transaction's EndToEndId when the batch came from a pain.001 (its pain.002 status report can be exported). */
  endToEndId: string | null;
}

/** csv: every row with its status (the default); pain.002: the ISO 20022 status report of a batch from a pain.001. */
export type BatchExportFormat = 'csv' | 'pain.002';

export interface BatchesContract {
  template: { args: void; result: FileContent };
  validateFile: { args: { source: BatchFileSource; decimalComma?: boolean }; result: BatchValidation };
  submit: { args: BatchSubmitInput; result: BatchView };
  pause: { args: { batchId: string }; result: BatchView };
  resume: { args: { batchId: string }; result: BatchView };
  cancel: { args: { batchId: string }; result: BatchView };
  list: { args: PageRequest; result: Page<BatchView> };
  get: { args: { batchId: string }; result: BatchView };
  results: { args: { batchId: string }; result: BatchResultRow[] };
  /** NOT_FROM_PAIN001 for a pain.002 of a batch that did not come from a pain.001. */
  exportResults: { args: { batchId: string; format?: BatchExportFormat }; result: FileContent };
  /** The approvals sheet: every signed decision on the batch (signer, roles, time, digest, signature, public key). */
  exportApprovals: { args: { batchId: string }; result: FileContent };
  /**
   * Remittance advice (one PDF, a page per payee) for the batch's paid payouts; `notPaid` counts those left out (in
   * flight, failed or returned). Refused with NOT_PAID when none was paid (audited).
   */
  remittance: { args: { batchId: string }; result: FileContent & { payees: number; payouts: number; notPaid: number } };
  /**
   * E-mails each payee of the batch's paid payouts their advice (one mail per payee, the per-payee PDF attached), each
   * payout once: those already e-mailed, without an e-mail address or being sent are skipped and counted by reason;
   * `force` sends again those already e-mailed (audited). NOT_PAID when none was paid.
   */
  emailRemittance: { args: { batchId: string; force?: boolean }; result: BatchRemittanceEmailOutcome };
  /** Failed rows become a new batch with new payout ids. */
  /** `idPayouts`: the failed rows the user reviewed; refused unless they are exactly the batch's failed rows now. */
  retryFailed: { args: { batchId: string; idPayouts: string[] }; result: BatchView };
}

// ---------------------------------------------------------------- balances

export interface BalanceView {
  currencyCode: string;
  available: Money;
  reserved: Money;
  /** This desk's payouts not yet final in this currency. */
  pendingOutgoing: Money;
  observedAt: IsoTime | null;
}

export interface BalancePoint {
  at: IsoTime;
  available: Money;
  reserved: Money;
}

export interface BalancesContract {
  /** Latest snapshots from the journal (works offline). */
  get: { args: void; result: BalanceView[] };
  /** Asks the gateway now and stores a snapshot. */
  refresh: { args: void; result: BalanceView[] };
  series: { args: { currencyCode: string; from?: IsoTime; to?: IsoTime }; result: BalancePoint[] };
  pending: { args: void; result: Money[] };
}

// ---------------------------------------------------------------- overview (the home screen)

/** A count of payouts and their total. */
export interface PayoutTally {
  count: number;
  amount: Money;
}

/**
 * The payouts the gateway accepted in one period, in one currency, by where they stand now. A payout counts in
 * the period it was handed to the gateway (accepted), whatever its entry date; one the gateway refused at
 * create was never sent and is not here.
 */
export interface PayoutActivity {
  sent: PayoutTally;
  succeeded: PayoutTally;
  /** Final and not paid: FAILED, REJECTED, CANCELLED, EXPIRED… */
  failed: PayoutTally;
  /** Paid, then came back. */
  returned: PayoutTally;
  /** Not final yet. */
  inFlight: PayoutTally;
  /** Fees charged in this currency on payouts of the period (a fee in another currency is counted there). */
  fees: Money;
  /** failed ÷ final, in percent with one decimal ("2.5"); null while none is final. */
  failureRatePercent: string | null;
  /** returned ÷ (succeeded + returned), in percent with one decimal; null while none was paid. */
  returnRatePercent: string | null;
}

export interface OverviewCurrency {
  currencyCode: string;
  today: PayoutActivity;
  /** Today and the six days before. */
  lastSevenDays: PayoutActivity;
  /** Sent per day, oldest first: the seven days of `lastSevenDays`. */
  sentByDay: PayoutTally[];
  /** The newest balance reading (null: never read), and this desk's payouts still to settle. */
  available: Money | null;
  pendingOutgoing: Money;
  balanceObservedAt: IsoTime | null;
}

export interface OverviewView {
  /** Local midnight of each of the seven days, oldest first (the last is today's). */
  dayStarts: IsoTime[];
  generatedAt: IsoTime;
  currencies: OverviewCurrency[];
}

export interface OverviewContract {
  /** From the journal only (works offline): volumes, outcomes and fees of today and the last seven days, balances. */
  get: { args: void; result: OverviewView };
}

// ---------------------------------------------------------------- statements (closing a period)

export interface StatementQuery {
  /** The period: from its start (inclusive) to its end (exclusive). The screen and the CLI send local midnights. */
  from: IsoTime;
  to: IsoTime;
  /** One currency; every currency with a balance read or a movement when left out. */
  currencyCode?: string;
}

/** A balance as the gateway gave it at one moment: available, reserved (payouts in flight) and their sum. */
export interface StatementBalance {
  available: Money;
  reserved: Money;
  total: Money;
  observedAt: IsoTime;
  /** `read`: a balance read the desk kept; `gateway`: read from the gateway for this statement (a period ending now). */
  source: 'read' | 'gateway';
}

/**
 * A line that explains part of the way from the opening to the closing balance, or says what the desk cannot
 * explain. `amount`: for beforePeriod and afterPeriod, what it adds to the expected closing total; for
 * unexplained, the difference itself (closing − expected), which is not in the expected total; null for a remark.
 * Times in `text` are UTC (the same sentence goes into the CLI's output and the files).
 */
export interface StatementLine {
  kind:
    | 'beforePeriod' // moved between the opening balance read and the start of the period
    | 'afterPeriod' // moved between the end of the period and the closing balance read
    | 'firstRead' // no balance read before the period: the opening is the desk's first one
    | 'noOpening' // no balance read at all before the end: there is nothing to start from
    | 'noClosing' // no balance read at or after the end, and the gateway could not be asked
    | 'closingRead' // the closing balance is the last read before the end, not one at the end
    | 'paidTimeUnknown' // a returned payout whose payment the desk never saw: counted with its return
    | 'inFlight' // payouts accepted and not processed at the end: their amount and fee are reserved
    | 'reservedDiffers' // reserved at the end differs from this desk's payouts in flight
    | 'unexplained'; // the difference the desk cannot explain
  amount: Money | null;
  text: string;
}

export interface StatementCurrency {
  currencyCode: string;
  opening: StatementBalance | null;
  closing: StatementBalance | null;
  /** Payouts paid in the period (SUCCESS, returned later or not), by the gateway's processedAt. */
  paid: PayoutTally;
  /** Fees charged in this currency on the payouts paid in the period. */
  fees: Money;
  /** Payouts that ended without being paid in the period: no fee, nothing left the balance. */
  failed: PayoutTally;
  /** Payouts that came back in the period: the amount is available again, the fee stays charged. */
  returned: PayoutTally;
  payins: PayoutTally;
  /** opening.total − paid − fees + returned + payins, with the lines' amounts: what the closing total should be. */
  expectedClosing: Money | null;
  /** closing.total − expectedClosing: zero when the statement reconciles. */
  difference: Money | null;
  reconciled: boolean;
  lines: StatementLine[];
}

export interface StatementView {
  from: IsoTime;
  to: IsoTime;
  generatedAt: IsoTime;
  currencies: StatementCurrency[];
  /** The statement of this same closed period and currency scope as issued last, compared with now; null if never issued. */
  issued: StatementIssue | null;
}

/** A figure of an issued statement that is different now (a payout observed late, a return, a balance read). */
export interface StatementChange {
  /** e.g. "EUR payouts paid amount", "EUR closing available". */
  figure: string;
  issued: string;
  now: string;
}

export interface StatementIssue {
  issuedAt: IsoTime;
  /** The person unlocked at the desk that issued it, when there was one. */
  issuedBy: string | null;
  /** SHA-256 of the issued figures (canonical JSON). */
  digest: string;
  /** False when the stored figures no longer match their digest: the journal row was changed after issue. */
  intact: boolean;
  /** Figures that moved since it was issued; empty when the statement still holds. */
  changes: StatementChange[];
}

/** Where an accounting export posts: account codes (Xero) or names (QuickBooks), per profile's journal. */
export interface AccountingAccounts {
  /** The merchant's balance at the gateway: the other side of every line. */
  clearing: string;
  payouts: string;
  fees: string;
  returns: string;
  payins: string;
  /** Xero's TaxRate column (the rate's name, e.g. "Tax Exempt", "No VAT", "BAS Excluded"). */
  taxRate: string;
}

/** generic: one line per side of each movement with stable ids; xero / quickbooks: their manual journal import files. */
export type AccountingFormat = 'generic' | 'xero' | 'quickbooks';

export interface AccountingExport extends FileContent {
  exportId: string;
  /** Movements in this file. */
  movements: number;
  rows: number;
  /** Movements of the period left out because an earlier export already carried them, per export. */
  exportedBefore: { exportId: string; exportedAt: IsoTime; movements: number }[];
}

/** csv: for a spreadsheet; pdf: to file or print; camt053: an ISO 20022 bank statement for an ERP to import. */
export type StatementFormat = 'csv' | 'pdf' | 'camt053';

export interface StatementsContract {
  /**
   * A period statement per currency from the journal; for a period that ends now, the closing balance is read from
   * the gateway (a sender desk) first. Reconciles on the total (available + reserved): a payout's money leaves when
   * it is processed, so it counts in the period of its processedAt, not of its entry.
   */
  get: { args: StatementQuery; result: StatementView };
  /** The statement as a file, with every movement of the period; each export is audited with the file's SHA-256. */
  export: { args: StatementQuery & { format: StatementFormat }; result: FileContent };
  /**
   * Stores the statement of a closed period with the SHA-256 of its figures (again as a new issue if it was issued
   * before); later reads of the period say what changed since. Exporting a closed period issues it once too.
   */
  issue: { args: StatementQuery; result: StatementView };
  accounts: { args: void; result: AccountingAccounts };
  setAccounts: { args: AccountingAccounts; result: AccountingAccounts };
  /**
   * The period's movements (by processedAt) as journal lines for a ledger. A movement goes into one export only:
   * those exported before are left out and listed. Xero and QuickBooks files hold one currency.
   */
  accounting: { args: StatementQuery & { format: AccountingFormat }; result: AccountingExport };
}

// ---------------------------------------------------------------- history

export interface HistoryFilters {
  kinds?: PaymentKind[];
  statuses?: string[];
  currencyCodes?: string[];
  from?: IsoTime;
  to?: IsoTime;
  batchId?: string;
  /** Matches id, account name, account number, e-mail, reference. */
  search?: string;
}

export type HistorySortField = 'createdAt' | 'updatedAt' | 'amount' | 'status' | 'currencyCode';

export interface HistoryQuery extends PageRequest {
  filters?: HistoryFilters;
  sort?: { field: HistorySortField; direction: 'asc' | 'desc' };
}

/**
 * A page of history. `totalCapped`: more rows match than `total` (the count stops some way past the page asked,
 * so a broad filter over a million payouts answers at once): shown as "10,000+"; a deeper page counts further.
 */
export interface HistoryPage extends Page<HistoryRow> {
  totalCapped?: boolean;
}

export interface HistoryRow {
  kind: PaymentKind;
  id: string;
  status: string;
  localState: string;
  final: boolean;
  money: Money;
  fee: Money | null;
  accountName: string;
  accountNumber: string;
  emailAddress: string;
  batchId: string | null;
  isTest: boolean | null;
  createdAt: IsoTime;
  updatedAt: IsoTime;
}

export interface StatusEventView {
  status: string;
  source: StatusSource;
  observedAt: IsoTime;
}

/** One attempt (gateway id) of an intent. */
export interface AttemptView {
  idPayout: string;
  status: string;
  localState: string;
  createdAt: IsoTime;
}

export interface PaymentDetail extends HistoryRow {
  /** The operator it was (or is to be) paid through: with the account, what a payee saved from it needs. */
  paymentOperatorCode: string;
  failureReason: string | null;
  processedAt: IsoTime | null;
  /** Why it is HELD, UNKNOWN or MISSING, or the last error while sending; null otherwise. */
  reason: string | null;
  /** Payouts: the intent, and every attempt of it oldest first (this one included). */
  intentId: string | null;
  attempts: AttemptView[];
  retryOf: string | null;
  retriedAs: string | null;
  events: StatusEventView[];
  /** The last raw gateway response, as received. */
  raw: JsonValue;
}

export interface HistoryContract {
  query: { args: HistoryQuery; result: HistoryPage };
  timeline: { args: { kind: PaymentKind; id: string }; result: PaymentDetail };
  export: { args: Omit<HistoryQuery, 'offset' | 'limit'>; result: FileContent };
}

// ---------------------------------------------------------------- payins

export interface PaymentOptionView {
  paymentMethodCode: string;
  operators: { code: string; name: string }[];
}

export interface PayinInput {
  idPayin?: string;
  amount: string;
  currencyCode: string;
  /** Default VAPAY. */
  paymentMethodCode?: string;
  paymentOperatorCode: string;
  accountName: string;
  accountNumber: string;
  emailAddress: string;
  callbackUrl?: string;
  returnUrl?: string;
}

export interface PayinView {
  idPayin: string;
  status: string;
  final: boolean;
  requested: Money;
  toPay: Money | null;
  paymentMethodCode: string;
  /** The virtual account to pay into. */
  account: { accountName: string; accountNumber: string; bankCode: string; bankName: string } | null;
  reference: string | null;
  expireAt: IsoTime | null;
  returnUrl: string | null;
  isTest: boolean | null;
  createdAt: IsoTime;
  events: StatusEventView[];
  raw: JsonValue;
}

export interface PayinShareToken {
  idPayin: string;
  /** Allows PAYIN_INFO for this one payin only; shown once. */
  token: string;
  expiresAt: IsoTime;
}

/** How long a payment link's token may be valid, in hours: from 1 hour to 30 days; 72 when not given. */
export const PAYMENT_LINK_HOURS = { min: 1, max: 720, default: 72 } as const;

/**
 * Where a payment link stands. waiting: the customer has not created the payin yet and the token is still valid;
 * paying: the customer created it and the gateway has not called it final; paid: SUCCESS; expired: the token ran
 * out before the customer created it, or the payin itself expired unpaid; failed: any other final status.
 */
export const PAYMENT_LINK_STATES = ['waiting', 'paying', 'paid', 'expired', 'failed'] as const;
export type PaymentLinkState = (typeof PAYMENT_LINK_STATES)[number];
/** The words a person reads for each state (screen and CLI alike). */
export const PAYMENT_LINK_STATE_WORDS: Readonly<Record<PaymentLinkState, string>> = {
  waiting: 'Waiting for the customer',
  paying: 'Customer is paying',
  paid: 'Paid',
  expired: 'Expired',
  failed: 'Not paid',
};

export interface PaymentLinkInput {
  /** Decimal string in major units, exact to the currency's decimals. */
  amount: string;
  currencyCode: string;
  /** 1 to 720 (30 days); default 72. */
  validityHours?: number;
  /** Shown to the customer in the share text and searchable in the history. */
  reference?: string;
}

/** A payment link as the desk keeps it: a payin the customer is to create, never its token. */
export interface PaymentLinkView {
  idPayin: string;
  money: Money;
  reference: string | null;
  createdAt: IsoTime;
  /** When the token stops working (the gateway's own expiry). */
  expiresAt: IsoTime;
  state: PaymentLinkState;
  /** The payin's status word as the history shows it (QUEUED until the customer creates it). */
  status: string;
}

export interface PaymentLinkIssued extends PaymentLinkView {
  /**
   * PAYIN_CREATE for this one payin id and exactly this money, until expiresAt: the second token allowed to cross
   * IPC. Shown once; main never stores, logs or audits it.
   */
  token: string;
  /** The gateway address and API major version the customer's side calls with the token. */
  gatewayUrl: string;
  apiMajorVersion: number;
  /** Everything the customer's side needs, ready to paste into a message. */
  shareText: string;
}

export interface PayinsContract {
  options: { args: { money: Money }; result: PaymentOptionView[] };
  /** A fresh payin id and a token that lets the customer create (and read) exactly that payin for this money. */
  createLink: { args: PaymentLinkInput; result: PaymentLinkIssued };
  /** The links issued, newest first; those still waiting are checked with the gateway first (when it answers). */
  links: { args: { limit?: number }; result: PaymentLinkView[] };
  create: { args: PayinInput; result: PayinView };
  get: { args: { idPayin: string }; result: PayinView };
  accountData: { args: { idPayin: string }; result: JsonValue };
  /** Demo profiles only: the sandbox marks the payin paid. */
  markPaidDemo: { args: { idPayin: string }; result: PayinView };
  shareToken: { args: { idPayin: string; validitySecs: number }; result: PayinShareToken };
}

// ---------------------------------------------------------------- audit

export interface AuditEntryView {
  seq: number;
  at: IsoTime;
  action: string;
  subject: string | null;
  details: JsonValue;
  hash: string;
  /** Which log: the team's (a profile on a team database), or this desk's own (its keys, secrets and settings). */
  log: 'team' | 'desk';
}

export interface AuditVerification {
  ok: boolean;
  checked: number;
  firstBrokenSeq: number | null;
  message: string;
  /** Every stored approval's signature re-checked against its signer's public key (dual control). */
  approvals: { checked: number; bad: BadApproval[] };
  /** Every stored policy version's admin signature re-checked (who signed, their role then, not revoked). */
  policies: { checked: number; bad: BadPolicy[] };
}

/** A stored policy version that may not be applied: altered, forged, or signed by someone who was not an admin. */
export interface BadPolicy {
  version: number;
  problem: string;
}

/** A stored approval whose signature does not verify (altered, forged, or signed by no person of the desk). */
export interface BadApproval {
  approvalId: string;
  subject: string;
  signerId: string;
  signerName: string | null;
  problem: string;
}

export interface AuditContract {
  list: { args: PageRequest; result: Page<AuditEntryView> };
  verify: { args: void; result: AuditVerification };
}

// ---------------------------------------------------------------- dual control: people and approvals

export type RoleName = 'preparer' | 'approver' | 'sender' | 'viewer' | 'admin';

export interface PersonInfo {
  id: string;
  name: string;
  roles: RoleName[];
  /** SHA-256 of the person's public signing key, as hex pairs. */
  fingerprint: string;
  createdAt: IsoTime;
  revokedAt: IsoTime | null;
  revokeReason: string | null;
  /** This machine's keychain holds their sealed signing key (they can unlock here). */
  keyOnThisMachine: boolean;
}

/** Who is unlocked on the active profile at this desk; main holds the key, the page only this. */
export interface DeskSessionView {
  /** Dual control is on for this profile (its control records, people from before them, or this desk's pin say so). */
  enforced: boolean;
  /** The profile has at least one person. */
  hasPeople: boolean;
  unlocked: { personId: string; name: string; roles: RoleName[]; unlockedAt: IsoTime; locksAt: IsoTime | null } | null;
  /** Why nothing may be sent or approved on this desk now (the control records do not verify here); null when they hold. */
  controlProblem: string | null;
}

/** A change of people, roles or policy one admin signed, waiting for a second admin's signature. */
export interface ControlProposalInfo {
  hash: string;
  seq: number;
  what: string;
  signedBy: string[];
  needs: number;
}

/** The control records (people, roles, policy, desks) as this desk verified them against its keychain pin. */
export interface ControlInfo {
  enforced: boolean;
  /** The root's fingerprint: compare it with the team's admin out of band. */
  fingerprint: string | null;
  /** A person at this desk confirmed the fingerprint (or this desk made the records). */
  confirmed: boolean;
  records: number;
  problem: { code: string; message: string } | null;
  /** People from before this version wait for an admin to sign them into the control records. */
  needsSeal: boolean;
  /** Grants of approver or admin and policy changes need two admins' signatures. */
  secondAdmin: boolean;
  proposals: ControlProposalInfo[];
}

/** The unlocked person's second factor (an authenticator app's codes) on this desk, and when it is asked. */
export interface SecondFactorView {
  /** Nobody is unlocked: the rest says nothing. */
  personId: string | null;
  /** The person has set up a second factor on this desk. */
  enrolled: boolean;
  /** Recovery codes not used yet; null when not enrolled. */
  recoveryCodesLeft: number | null;
  /** Asked on approve (set up, the policy says so, or LIVE's default policy). */
  onApprove: boolean;
  /** Asked on admin actions (set up, or the policy says so). */
  onAdmin: boolean;
  /** Until when the last code typed covers admin actions (5 minutes); null when none counts now. */
  verifiedUntil: IsoTime | null;
}

/** A secret to scan: shown once, kept sealed until a code from the app confirms it (10 minutes). */
export interface SecondFactorEnrolment {
  uri: string;
  /** The same secret in base32, for typing into an app by hand. */
  secret: string;
  /** The URI as a QR code (a PNG data: URL), drawn in main. */
  qrDataUrl: string;
  expiresAt: IsoTime;
}

/** What a person can be alerted of at their desk (main/desk/alerts.ts). */
export const ALERT_KINDS = ['approval-waiting', 'batch-paused', 'batch-failures', 'payout-held', 'payout-returned', 'payout-missing', 'schedule-short', 'schedule-late'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export interface AlertKindView {
  kind: AlertKind;
  /** What it says, as the switch reads ("Something waits for my approval"). */
  label: string;
  muted: boolean;
}

/** A person's e-mail digest of their alerts, through the profile's SMTP server (main/desk/alert-digest.ts). */
export interface AlertDigestView {
  /** Where the digest goes; null while the person has none. */
  email: string | null;
  every: 'hourly' | 'daily';
  /** Alerts given since the last digest, waiting for the next. */
  waiting: number;
  lastSentAt: IsoTime | null;
  /** Why the last try did not go (no SMTP server set, the server's reply); null after a digest went. */
  lastError: string | null;
}

export interface PeopleContract {
  list: { args: void; result: PersonInfo[] };
  session: { args: void; result: DeskSessionView };
  /** The passphrase crosses once, here; main keeps the unlocked key until Lock, idle time or the OS locks. */
  unlock: { args: { personId: string; passphrase: string }; result: DeskSessionView };
  lock: { args: void; result: DeskSessionView };
  /** The person at the desk is still working (input in the window): the idle time starts again. */
  touch: { args: void; result: DeskSessionView };
  /**
   * The first person: needs nobody unlocked, gets every role and signs the control records' first entry (its
   * root). Refused once anyone is set up: later people enrol at their own desk, so their key never exists elsewhere.
   */
  add: { args: { name: string; roles?: RoleName[]; passphrase: string }; result: { person: PersonInfo; warning: string | null } };
  /**
   * A person sets themselves up at their own desk (their key is made in this desk's keychain): a viewer until an
   * admin grants more roles, from any desk of the team. Needs someone set up already (the first person uses add).
   */
  enroll: { args: { name: string; passphrase: string }; result: DeskSessionView };
  /** Signed by the unlocked admin; with the policy's secondAdmin, a grant of approver or admin waits for a second admin (proposal). */
  setRoles: { args: { personId: string; roles: RoleName[] }; result: { person: PersonInfo; proposal: ControlProposalInfo | null } };
  revoke: { args: { personId: string; reason: string }; result: { person: PersonInfo; approvalsVoided: number; proposal: ControlProposalInfo | null } };
  /** The control records as this desk verified them: root fingerprint, problems, changes waiting for a second admin. */
  control: { args: void; result: ControlInfo };
  /** The unlocked admin adds their signature to a waiting change. */
  cosign: { args: { hash: string }; result: ControlInfo };
  /** The unlocked admin signs the people and policy from before this version into the control records (once). */
  seal: { args: void; result: ControlInfo };
  /** A person compared the root fingerprint with the team's admin: this desk pins it as confirmed. */
  confirmRoot: { args: { fingerprint: string }; result: ControlInfo };
  /** The unlocked person's second factor, and which actions ask for it. */
  secondFactor: { args: void; result: SecondFactorView };
  /** The unlocked person starts setting up a second factor: a secret to scan with an authenticator app. */
  beginSecondFactor: { args: void; result: SecondFactorEnrolment };
  /** A code from the app confirms the secret; the ten recovery codes are returned this once. */
  confirmSecondFactor: { args: { code: string }; result: { view: SecondFactorView; recoveryCodes: string[] } };
  /** A code (or recovery code) of the unlocked person: admin actions need no other for 5 minutes. */
  verifySecondFactor: { args: { code: string }; result: SecondFactorView };
  /** Removes the unlocked person's second factor; needs one of its codes. Refused while the policy requires one. */
  removeSecondFactor: { args: { code: string }; result: SecondFactorView };
  /** The kinds of alert the unlocked person gets at this desk, and which they muted. */
  alerts: { args: void; result: AlertKindView[] };
  /** The unlocked person mutes (or unmutes) a kind of alert at this desk. */
  muteAlert: { args: { kind: AlertKind; muted: boolean }; result: AlertKindView[] };
  /** The unlocked person's e-mail digest of their alerts at this desk. */
  alertDigest: { args: void; result: AlertDigestView };
  /** Turns the unlocked person's digest on (an address, hourly or daily) or off (email null). */
  setAlertDigest: { args: { email: string | null; every: 'hourly' | 'daily' }; result: AlertDigestView };
}

export type ApprovalSubjectKind = 'batch' | 'payout';
export interface ApprovalSubjectRef {
  kind: ApprovalSubjectKind;
  id: string;
}

export interface PersonRef {
  id: string;
  name: string;
}

/**
 * Where a subject stands: waiting for approvals, rejected, or approved (a sender may now send it). 'unchecked' only in
 * the queue: its rows and signatures are not checked yet (it shows no approval; an approvalsChanged follows once checked).
 */
export type ApprovalState = 'waiting' | 'rejected' | 'approved' | 'not-needed' | 'unchecked';

export interface ApprovalStatusView {
  subject: ApprovalSubjectRef;
  /** False when dual control is not on for the profile (nothing to show). */
  enforced: boolean;
  state: ApprovalState;
  required: number;
  approvedBy: PersonRef[];
  rejectedBy: (PersonRef & { reason: string | null })[];
  /** The verdict's sentence (why it may not be sent yet). */
  message: string;
  /** While approvals are missing: how many, who can give them, and the sentence to show; null otherwise. */
  stillNeeded: StillNeededView | null;
}

/** "needs 1 more approval from: Bob, Cy", worked out in main (the approver role now, not revoked, not its preparer, not counted yet). */
export interface StillNeededView {
  more: number;
  from: PersonRef[];
  /** Says what to do when no one on the desk can give a missing approval. */
  text: string;
}

export interface ApprovalItem extends ApprovalStatusView {
  /** File name of a batch, payee of a single payout. */
  title: string;
  preparedBy: PersonRef | null;
  preparedAt: IsoTime | null;
  rows: number;
  /** Of every row; while 'unchecked', a batch's are those of its file as submitted. */
  totals: { money: Money; count: number }[];
  /** The unlocked person may approve or reject it now (approver, not its preparer, not yet decided). */
  forMe: boolean;
  preparedByMe: boolean;
  /** Payout HELD or batch PAUSED by the gate (a sender resumes it once approved). */
  sendState: string;
}

/** A row of the manifest; `payeeFlag` set when the payee book marks a new payee or changed bank details. */
export interface ApprovalRowView {
  id: string;
  money: Money;
  payeeName: string;
  account: string;
  operator: string;
  method: string;
  email: string;
  payeeFlag: 'new' | 'changed' | null;
  /** Like a payout of the profile's repeat window that is not part of this subject: what matched. Null: none. */
  possibleDuplicate: string | null;
}

export interface ApprovalDecisionView {
  approvalId: string;
  signer: PersonRef;
  decision: 'approve' | 'reject';
  reason: string | null;
  signedAt: IsoTime;
  /** How the verdict counts it now (counted, or why it is void). */
  status: string;
  message: string;
}

export interface ApprovalDetail extends ApprovalItem {
  manifestDigest: string;
  fileSha256: string | null;
  policyVersion: number;
  /** The first rows of the manifest (all of them up to `rowsShown`); totals cover every row. */
  manifestRows: ApprovalRowView[];
  rowsShown: number;
  /** Rows of the whole manifest (not only those shown) like an earlier payout: see ApprovalRowView.possibleDuplicate. */
  possibleDuplicates: number;
  decisions: ApprovalDecisionView[];
}

export interface PolicyBandView {
  /** Total of one currency, in major units, from which the band applies. */
  atLeast: string;
  approvals: number;
}

export interface PolicyRulesView {
  /** Bands per currency code, or "*" for any other currency. */
  bands: Record<string, PolicyBandView[]>;
  /** Extra approvals when a row pays a new payee or one whose bank details changed. */
  newOrChangedPayee: number;
  /** Rows confirmed as possible duplicates of earlier payouts count like a new or changed payee (the same extra approvals). */
  countPossibleDuplicates?: boolean;
  /** With two admins or more: grants of approver or admin and policy changes need both. */
  secondAdmin?: boolean;
  /** Every approval and admin action needs a code of the person's authenticator app besides the passphrase. */
  secondFactor?: boolean;
}

export interface PolicyView {
  version: number;
  isDefault: boolean;
  enforced: boolean;
  rules: PolicyRulesView;
  setBy: PersonRef | null;
  setAt: IsoTime | null;
  /** A new version waiting for a second admin's signature (setPolicy with secondAdmin on); it is not in force yet. */
  proposal?: ControlProposalInfo | null;
}

export interface ApprovalsContract {
  /** Every subject still unsent that dual control holds back or has just let go, newest first. */
  queue: { args: void; result: ApprovalItem[] };
  show: { args: ApprovalSubjectRef; result: ApprovalDetail };
  /** Where each subject stands (Batches and a payout's page show "waiting for approval (1 of 2)"). */
  status: { args: { subjects: ApprovalSubjectRef[] }; result: ApprovalStatusView[] };
  /** Signed in main by the unlocked person; the passphrase is asked again for each approval. */
  /** `code`: of the person's authenticator app, when their second factor is asked on approve. */
  approve: { args: ApprovalSubjectRef & { passphrase: string; code?: string }; result: ApprovalDetail };
  reject: { args: ApprovalSubjectRef & { reason: string }; result: ApprovalDetail };
  policy: { args: void; result: PolicyView };
  /** A new policy version, signed by the unlocked admin; approvals given under the old one are void. */
  setPolicy: { args: { rules: PolicyRulesView }; result: PolicyView };
}

// ---------------------------------------------------------------- the payee book

export interface PayeeDetailsView {
  name: string;
  /** Only the account's last characters ("…3000"): the full number stays in main. */
  accountMasked: string;
  operatorCode: string;
  emailAddress: string;
  referenceDefault: string | null;
}

/** A change of a payee that waits for approval (a bank-detail change under dual control). */
export interface PayeeChangeItem {
  version: number;
  before: PayeeDetailsView | null;
  after: PayeeDetailsView;
  bankChange: boolean;
  createdBy: PersonRef | null;
  createdAt: IsoTime;
  required: number;
  approvedBy: PersonRef[];
  /** The verdict's sentence (why it is not in force yet). */
  message: string;
  /** The unlocked person may approve or reject it (an approver who did not make it and has not decided). */
  forMe: boolean;
  /** The unlocked person made it (they may withdraw it). */
  byMe: boolean;
}

export interface PayeeItem extends PayeeDetailsView {
  id: string;
  version: number;
  /** 'not verified': marked in force, but its rows and approvals do not vouch for it (dual control): it does not count. */
  state: 'in force' | 'awaiting approval' | 'superseded' | 'rejected' | 'withdrawn' | 'not verified';
  /** Why a version marked in force does not count (state 'not verified'); null otherwise. */
  problem: string | null;
  source: 'hand' | 'payout' | 'import';
  sourceRef: string | null;
  since: IsoTime | null;
  waiting: PayeeChangeItem | null;
}

export interface PayeeVersionItem extends PayeeDetailsView {
  version: number;
  state: PayeeItem['state'];
  bankChange: boolean;
  source: PayeeItem['source'];
  createdBy: PersonRef | null;
  createdAt: IsoTime;
  effectiveAt: IsoTime | null;
  closedAt: IsoTime | null;
}

/** What a person types for a payee; an omitted field of an edit keeps its value. */
export interface PayeeInputView {
  name?: string;
  accountNumber?: string;
  operatorCode?: string;
  emailAddress?: string;
  referenceDefault?: string | null;
}

export interface PayeeChangeOutcome {
  payee: PayeeItem;
  /** False: the change waits for approval and the details in force stay until then. */
  inForce: boolean;
  message: string;
}

export interface PayeeImportOutcome {
  fileName: string;
  /** False when any row was bad: then nothing was imported. */
  imported: boolean;
  errors: { rowNumber: number; column: string | null; message: string }[];
  added: number;
  changed: number;
  awaitingApproval: number;
  unchanged: number;
  repeated: number;
}

export interface PayeesContract {
  /** Payees with a version in force or a change awaiting approval (all: closed ones too). */
  list: { args: { all?: boolean }; result: PayeeItem[] };
  versions: { args: { payeeId: string }; result: PayeeVersionItem[] };
  add: { args: PayeeInputView & { name: string; accountNumber: string; operatorCode: string; emailAddress: string }; result: PayeeChangeOutcome };
  /** A bank-detail change under dual control answers inForce false: it waits for approval. */
  edit: { args: PayeeInputView & { payeeId: string }; result: PayeeChangeOutcome };
  /** Signed in main by the unlocked approver; the passphrase is asked again for each approval. */
  approve: { args: { payeeId: string; passphrase: string; code?: string }; result: PayeeChangeOutcome };
  reject: { args: { payeeId: string; reason: string }; result: PayeeChangeOutcome };
  withdraw: { args: { payeeId: string }; result: PayeeChangeOutcome };
  /** A CSV the user chose in main's dialog (app:chooseFile), by its token only. */
  import: { args: { source: { kind: 'granted'; token: string } }; result: PayeeImportOutcome };
  export: { args: void; result: FileContent & { rows: number } };
  addFromPayout: { args: { idPayout: string }; result: PayeeChangeOutcome };
}

// ---------------------------------------------------------------- settings

export interface SettingsView {
  rateLimitPerSec: number;
  pollIntervalSecs: number;
  finalStatuses: string[];
  tokenValiditySecs: number;
  timestampUnit: 'ms' | 's';
  accountDataPath: string;
  /** Per-payout ceiling in minor units of the payout's currency; null = none. */
  maxAmountMinor: number | null;
  /** A payout like one of the last this many days (same account, amount and currency) needs confirming; 0: off. */
  repeatWindowDays: number;
  /** The calendar's zone for release times given without one; '' means this machine's (zoneInUse says which). */
  timeZone: string;
  zoneInUse: string;
  /** A scheduled release found more than this many minutes late waits for a person to confirm it. */
  lateReleaseWindowMinutes: number;
  callback: CallbackSettings;
  /** Read only: the listener as it runs now. */
  callbackListener: CallbackListenerStatus;
}

export interface SettingsUpdate {
  profileId?: string;
  rateLimitPerSec?: number;
  pollIntervalSecs?: number;
  finalStatuses?: string[];
  tokenValiditySecs?: number;
  timestampUnit?: 'ms' | 's';
  accountDataPath?: string;
  maxAmountMinor?: number | null;
  repeatWindowDays?: number;
  timeZone?: string;
  lateReleaseWindowMinutes?: number;
  useDeprecatedSecret?: boolean;
  callback?: Partial<CallbackSettings>;
}

export type TeamTlsMode = 'verify-full' | 'require' | 'disable';

/** A profile's team database (issue 15) as the page sees it: never the password, only whether one is kept. */
export interface TeamDatabaseView {
  /** null: this desk keeps its own journal (single desk). */
  config: { url: string; tls: TeamTlsMode; caFile: string | null } | null;
  /** Whether this desk's keychain holds the password (it never leaves main). */
  passwordStored: boolean;
}

export interface TeamDatabaseUpdate {
  profileId?: string;
  /** postgres://user@host:5432/database: no password, no query parameters. */
  url: string;
  tls: TeamTlsMode;
  /** Absent: keep the stored CA file; null: none (system CAs); a token of a file chosen with purpose 'ca'. */
  caFile?: { kind: 'granted'; token: string } | null;
  /**
   * Sent once, page → main, and kept in the keychain (the same deliberate exception as a passphrase:
   * docs/design-changes.md, "Dual control"); absent = keep the stored one. Never sent back.
   */
  password?: string;
}

export interface TeamDatabaseCheck {
  /** user@host:port/database (no password). */
  where: string;
  tls: TeamTlsMode;
  serverVersion: string;
  schemaVersion: number;
  migratedFrom: number;
  checkedAt: IsoTime;
}

export interface SettingsContract {
  get: { args: { profileId?: string }; result: SettingsView };
  update: { args: SettingsUpdate; result: SettingsView };
  teamDatabase: { args: { profileId?: string }; result: TeamDatabaseView };
  setTeamDatabase: { args: TeamDatabaseUpdate; result: TeamDatabaseView };
  /** Back to this desk's own journal; the password leaves the keychain. */
  clearTeamDatabase: { args: { profileId?: string }; result: TeamDatabaseView };
  /** Connects, migrates the team schema, answers the versions; fails with a TEAM_DB_* code in plain words. */
  checkTeamDatabase: { args: { profileId?: string }; result: TeamDatabaseCheck };
}

// ---------------------------------------------------------------- app and connection

export type ConnectionStatus = 'unknown' | 'connecting' | 'online' | 'offline' | 'no-profile';

export interface ConnectionState {
  status: ConnectionStatus;
  profileId: string | null;
  environment: Environment | null;
  channelName: string | null;
  since: IsoTime;
  lastError: { code: string; message: string } | null;
  /** Payouts waiting to be sent (queued work waits while offline). */
  queued: number;
  /** The profile's team database, when it has one: whether this desk reaches it (without it, nothing is sent). */
  teamDatabase: TeamDatabaseState | null;
}

export interface TeamDatabaseState {
  /** user@host:port/database (never a password). */
  where: string;
  state: 'connected' | 'unreachable';
  since: IsoTime;
  /** Why it cannot be reached. */
  message: string | null;
}

export type RateLane = 'token' | 'create' | 'status' | 'list';

export interface RateBudgetUsage {
  inWindow: number;
  limit: number;
  queued: Record<RateLane, number>;
  /** Non-zero while the gateway asked us to wait (429 Retry-After). */
  pausedForMs: number;
}

export interface AppInfo {
  name: string;
  version: string;
  platform: string;
  dataFolder: string;
  /** False when this build cannot start the in-process sandbox. */
  demoAvailable: boolean;
}

export interface AppContract {
  info: { args: void; result: AppInfo };
  connectionState: { args: void; result: ConnectionState };
  rateBudget: { args: void; result: RateBudgetUsage };
  /** Fails with OPEN_FAILED (and the OS's reason) when the file manager could not show the folder. */
  openDataFolder: { args: void; result: { path: string } };
  /** Main's own open dialog; the chosen file comes back as a token only. */
  chooseFile: { args: { purpose: FilePurpose }; result: FileChoice };
  /**
   * A file dropped on the window. On the wire `path` is what the preload read from the dropped File with
   * webUtils.getPathForFile; the page itself calls `desk.app.fileDropped({ file, purpose })` with the File
   * and cannot put a path of its own (see DeskApi and preload/desk-bridge.ts).
   */
  fileDropped: { args: { purpose: FilePurpose; path: string }; result: FileGrant };
}

// ---------------------------------------------------------------- the contract and its channels

export interface IpcContract {
  profiles: ProfilesContract;
  keys: KeysContract;
  payouts: PayoutsContract;
  batches: BatchesContract;
  balances: BalancesContract;
  overview: OverviewContract;
  statements: StatementsContract;
  history: HistoryContract;
  payins: PayinsContract;
  audit: AuditContract;
  settings: SettingsContract;
  people: PeopleContract;
  approvals: ApprovalsContract;
  payees: PayeesContract;
  schedules: SchedulesContract;
  recurring: RecurringContract;
  app: AppContract;
}

/** Every invokable method, by area. Main registers `area:verb` for each; preload builds window.desk from it. */
export const IPC_METHODS = {
  profiles: ['list', 'create', 'createDemo', 'use', 'update', 'remove', 'testConnection', 'smtp', 'setSmtp', 'clearSmtp', 'testSmtp'],
  keys: ['list', 'generate', 'import', 'exportPublic', 'letter', 'rotate', 'retire', 'backup', 'setSecret', 'clearSecret'],
  payouts: ['validate', 'create', 'get', 'remittance', 'emailRemittance', 'remittanceEmail', 'release', 'discard', 'currencies', 'operators'],
  batches: ['template', 'validateFile', 'submit', 'pause', 'resume', 'cancel', 'list', 'get', 'results', 'exportResults', 'exportApprovals', 'remittance', 'emailRemittance', 'retryFailed'],
  balances: ['get', 'refresh', 'series', 'pending'],
  overview: ['get'],
  statements: ['get', 'export', 'issue', 'accounts', 'setAccounts', 'accounting'],
  history: ['query', 'timeline', 'export'],
  payins: ['options', 'createLink', 'links', 'create', 'get', 'accountData', 'markPaidDemo', 'shareToken'],
  audit: ['list', 'verify'],
  settings: ['get', 'update', 'teamDatabase', 'setTeamDatabase', 'clearTeamDatabase', 'checkTeamDatabase'],
  people: ['list', 'session', 'unlock', 'lock', 'touch', 'add', 'enroll', 'setRoles', 'revoke', 'control', 'cosign', 'seal', 'confirmRoot', 'secondFactor', 'beginSecondFactor', 'confirmSecondFactor', 'verifySecondFactor', 'removeSecondFactor', 'alerts', 'muteAlert', 'alertDigest', 'setAlertDigest'],
  approvals: ['queue', 'show', 'status', 'approve', 'reject', 'policy', 'setPolicy'],
  payees: ['list', 'versions', 'add', 'edit', 'approve', 'reject', 'withdraw', 'import', 'export', 'addFromPayout'],
  schedules: ['list', 'get', 'move', 'cancel', 'confirmLate'],
  recurring: ['list', 'add', 'pause', 'resume', 'skip', 'end', 'run'],
  app: ['info', 'connectionState', 'rateBudget', 'openDataFolder', 'chooseFile', 'fileDropped'],
} as const satisfies { [A in keyof IpcContract]: readonly (keyof IpcContract[A])[] };

export type Area = keyof IpcContract;
export type Verb<A extends Area> = keyof IpcContract[A] & string;
export type Channel = { [A in Area]: `${A}:${Verb<A>}` }[Area];
/** The arguments and the result of one method, by area and verb. */
export type AreaArgs<A extends Area, V extends Verb<A>> = IpcContract[A][V] extends { args: infer X } ? X : never;
export type AreaResult<A extends Area, V extends Verb<A>> = IpcContract[A][V] extends { result: infer R } ? R : never;

type SplitChannel<C extends Channel> = C extends `${infer A}:${infer V}`
  ? A extends Area
    ? V extends Verb<A>
      ? IpcContract[A][V]
      : never
    : never
  : never;
export type ArgsOf<C extends Channel> = SplitChannel<C> extends { args: infer X } ? X : never;
export type ResultOf<C extends Channel> = SplitChannel<C> extends { result: infer R } ? R : never;

/** Fails to compile when IPC_METHODS misses a method of the contract. */
type MissingMethods = { [A in Area]: Exclude<Verb<A>, (typeof IPC_METHODS)[A][number]> }[Area];
export type ContractComplete = [MissingMethods] extends [never] ? true : { missing: MissingMethods };
export const CONTRACT_COMPLETE: ContractComplete = true;

export function channelName<A extends Area>(area: A, verb: Verb<A>): `${A}:${Verb<A>}` {
  return `${area}:${verb}`;
}

/** Every channel as a flat list, in contract order. */
export const IPC_CHANNELS: readonly Channel[] = (Object.keys(IPC_METHODS) as Area[]).flatMap((area) =>
  (IPC_METHODS[area] as readonly string[]).map((verb) => `${area}:${verb}` as Channel),
);

// ---------------------------------------------------------------- events (main → renderer)

export interface PaymentStatusChanged {
  kind: PaymentKind;
  id: string;
  status: string;
  previousStatus: string | null;
  final: boolean;
  source: StatusSource;
  observedAt: IsoTime;
  batchId: string | null;
}

export interface DeskNotification {
  level: 'info' | 'success' | 'warning' | 'error';
  title: string;
  body: string;
}

export const MENU_COMMANDS = [
  'import-csv', 'export', 'open-data-folder', 'about', 'new-payout', 'lock', 'refresh', 'find-history', 'shortcuts',
  'go-overview', 'go-balances', 'go-new-payout', 'go-batches', 'go-approvals', 'go-payees', 'go-history', 'go-payins', 'go-people', 'go-settings',
] as const;
export type MenuCommand = (typeof MENU_COMMANDS)[number];

export interface EventContract {
  batchProgress: BatchProgress;
  paymentStatusChanged: PaymentStatusChanged;
  connectionChanged: ConnectionState;
  notification: DeskNotification;
  /** `file`: for import-csv, the file the user chose in main's own open dialog (menus have no page gesture for a picker). */
  menuCommand: { command: MenuCommand; file?: FileGrant };
  /** Someone unlocked, or the session locked (Lock, idle time, OS lock or suspend): ask people:session again. */
  sessionChanged: { profileId: string; unlocked: boolean; reason: 'unlock' | 'lock' | 'idle' | 'os-lock' | 'suspend' };
  /** An approval, rejection, revocation or policy change, or the gate held something back: queues refresh. */
  approvalsChanged: { profileId: string; subject: ApprovalSubjectRef | null };
  /** The calendar changed: something scheduled, moved, cancelled, released, or found past its late window. */
  schedulesChanged: { profileId: string; subject: ScheduleRef; change: 'scheduled' | 'moved' | 'cancelled' | 'released' | 'late' };
}
export type EventName = keyof EventContract;

/** Event name → IPC channel it travels on. */
export const EVENT_CHANNELS = {
  batchProgress: 'batches:progress',
  paymentStatusChanged: 'payments:statusChanged',
  connectionChanged: 'app:connectionChanged',
  notification: 'app:notification',
  menuCommand: 'app:menuCommand',
  sessionChanged: 'people:sessionChanged',
  approvalsChanged: 'approvals:changed',
  schedulesChanged: 'schedules:changed',
} as const satisfies Record<EventName, string>;
export type EventChannel = (typeof EVENT_CHANNELS)[EventName];

// ---------------------------------------------------------------- window.desk, derived

export type Unsubscribe = () => void;

type MethodOf<Spec> = Spec extends { args: infer X; result: infer R }
  ? [X] extends [void]
    ? () => Promise<Result<R>>
    : (args: X) => Promise<Result<R>>
  : never;

export type DeskAreaApi<A extends Area> = { [V in Verb<A>]: MethodOf<IpcContract[A][V]> };

/** The type of `window.desk`. The renderer declares `interface Window { desk: DeskApi }`. */
/** Page side of app:fileDropped: the page hands over the dropped File; the bridge finds its path. */
export interface DroppedFileArgs {
  file: File;
  purpose: FilePurpose;
}
type AppAreaApi = Omit<DeskAreaApi<'app'>, 'fileDropped'> & { fileDropped: (args: DroppedFileArgs) => Promise<Result<FileGrant>> };

export type DeskApi = { [A in Exclude<Area, 'app'>]: DeskAreaApi<A> } & { app: AppAreaApi } & {
  events: { [E in EventName]: (listener: (payload: EventContract[E]) => void) => Unsubscribe };
};

/** The shape main (and the test harness) implements: one function per channel, arguments unchecked. */
export type IpcHandlerMap = { [C in Channel]: (args: unknown) => Promise<Result<ResultOf<C>>> };

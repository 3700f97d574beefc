// One schema per contract method. Every object is strict (unknown keys are refused), every string
// has a length limit, every number a range. The types are checked against the contract, so a
// schema cannot drift from what the renderer is allowed to send.
import { z } from 'zod';
import { ALERT_KINDS, PAYMENT_LINK_HOURS, type Area, type AreaArgs, type Verb } from './api';
import { MAX_CSV_BYTES, MAX_LIST_ITEMS, MAX_PAGE_SIZE } from './limits';

/**
 * A schema several areas share, built at its first use and the same instance from then on: a command builds
 * only what its area's schemas use (issue 26: most of building all of them was these, before any area).
 */
const shared = <T>(build: () => T): (() => T) => {
  let built: T | undefined;
  return () => (built ??= build());
};

const listOf = <T extends z.ZodType>(item: T, max = MAX_LIST_ITEMS) => z.array(item).max(max, `at most ${max.toLocaleString('en')} items`);
/** A token main issued for a file the user chose or dropped (main/desk/file-grants.ts). */
const fileToken = shared(() => z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'is not a file token'));
const filePurpose = shared(() => z.enum(['csv', 'key', 'ca']));

const text = (max: number) => z.string().max(max, `at most ${max} characters`);
const required = (max: number) => text(max).trim().min(1, 'is required');
const paymentId = shared(() => z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of A-Z, a-z, 0-9, "_" or "-"'));
const profileId = shared(() => z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'is not a profile id'));
const keyId = shared(() => z.string().regex(/^[A-Za-z0-9_.-]{1,80}$/, 'is not a key id'));
const batchId = shared(() => z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'is not a batch id'));
const currencyCode = shared(() => z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter code such as EUR'));
/** Amount text as typed; its exact rules (decimals of the currency) are checked by the service. */
const amountText = shared(() => text(40));
const decimalText = shared(() => z.string().regex(/^\d{1,18}(\.\d{1,6})?$/, 'must be a plain decimal such as 1250.50'));
const url = shared(() => text(2048));
const isoTime = shared(() => z.string().max(40).refine((t) => !Number.isNaN(Date.parse(t)), 'must be an ISO 8601 time'));
const environment = shared(() => z.enum(['TEST', 'LIVE']));
const statusText = shared(() => z.string().regex(/^[A-Za-z_]{1,40}$/, 'is not a status'));
const money = shared(() => z.strictObject({ amount: decimalText(), currencyCode: currencyCode() }));
const page = shared(() => ({ offset: z.number().int().min(0).max(10_000_000).optional(), limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional() }));
const none = shared(() => z.undefined());
const byKey = shared(() => z.strictObject({ keyId: keyId(), profileId: profileId().optional() }));
const byBatch = shared(() => z.strictObject({ batchId: batchId() }));
/** A release time as asked (main/schedules/execution.ts checks it exists in its zone). */
const executeOn = shared(() => z.strictObject({
  local: z.string().trim().regex(/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?$/, 'must be a date (2026-12-24) or a date and time (2026-12-24T09:00)'),
  zone: z.string().trim().min(1).max(64).optional(),
}));
const scheduleRefFields = () => ({ kind: z.enum(['payout', 'batch']), id: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'is not a payout or batch id') });
const scheduleRef = shared(() => z.strictObject(scheduleRefFields()));
const byPayin = shared(() => z.strictObject({ idPayin: paymentId() }));
const optionalProfile = shared(() => z.strictObject({ profileId: profileId().optional() }));
const personId = shared(() => z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'is not a person id'));
const role = shared(() => z.enum(['preparer', 'approver', 'sender', 'viewer', 'admin']));
const roles = shared(() => z.array(role()).min(1, 'at least one role').max(5));
/** Its strength (length) is the service's rule, so the message is the same as on the command line. */
const passphrase = shared(() => z.string().min(1, 'is required').max(1024, 'at most 1024 characters'));
/** 6 digits of an authenticator app, or a recovery code (10 letters and digits, a dash optional). */
const secondFactorCode = shared(() => z.string().trim().regex(/^(\d{6}|[A-Za-z0-9]{5}-?[A-Za-z0-9]{5})$/, 'is not a 6-digit code or a recovery code'));
const subjectRef = shared(() => ({ kind: z.enum(['batch', 'payout']), id: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'is not a batch or payout id') }));
const policyBand = shared(() => z.strictObject({ atLeast: z.string().regex(/^\d{1,18}(\.\d{1,6})?$/, 'must be a plain decimal such as 1000 or 2500.50'), approvals: z.number().int().min(0).max(3) }));
const policyRules = shared(() => z.strictObject({
  bands: z
    .record(z.string().regex(/^([A-Z]{3}|\*)$/, 'must be a currency code or *'), z.array(policyBand()).max(10, 'at most 10 bands'))
    .refine((b) => Object.keys(b).length <= 200, 'at most 200 currencies'),
  newOrChangedPayee: z.number().int().min(0).max(3),
  countPossibleDuplicates: z.boolean().optional(),
  secondAdmin: z.boolean().optional(),
  secondFactor: z.boolean().optional(),
}));

const payeeId = shared(() => z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'is not a payee id'));
/** Payee details as typed; their rules (IBAN check digits, e-mail form) are the payee book's, checked in main. */
const payeeFields = shared(() => ({
  name: text(200).optional(),
  accountNumber: text(64).optional(),
  operatorCode: text(64).optional(),
  emailAddress: text(254).optional(),
  referenceDefault: text(200).nullable().optional(),
}));

const payoutFields = shared(() => ({
  idPayout: paymentId().optional(),
  amount: amountText(),
  currencyCode: currencyCode(),
  accountName: text(200),
  accountNumber: text(64),
  paymentOperatorCode: text(64),
  paymentMethodCode: text(64).optional(),
  emailAddress: text(254),
  callbackUrl: url().optional(),
  reference: text(200).optional(),
}));

/**
 * A payment link: the amount is a plain positive decimal here; whether its decimals fit the currency (and the
 * gateway offers the currency) is the payins service's check, against the currency cache.
 */
const paymentLink = shared(() => z.strictObject({
  amount: decimalText().refine((a) => /[1-9]/.test(a), 'must be greater than zero'),
  currencyCode: currencyCode(),
  validityHours: z
    .number()
    .int('must be a whole number of hours')
    .min(PAYMENT_LINK_HOURS.min, `at least ${PAYMENT_LINK_HOURS.min} hour`)
    .max(PAYMENT_LINK_HOURS.max, `at most ${PAYMENT_LINK_HOURS.max} hours (30 days)`)
    .optional(),
  // One line of printable text: it is put into the share text a customer reads.
  reference: text(140).trim().regex(/^[^\p{Cc}]*$/u, 'must be one line without control characters').optional(),
}));

const callback = shared(() => z.strictObject({
  enabled: z.boolean(),
  host: required(253),
  port: z.number().int().min(0).max(65_535),
  url: url().nullable(),
}));

const historyFilters = shared(() => z.strictObject({
  kinds: z.array(z.enum(['payout', 'payin'])).max(2).optional(),
  statuses: z.array(statusText()).max(50).optional(),
  currencyCodes: z.array(currencyCode()).max(200).optional(),
  from: isoTime().optional(),
  to: isoTime().optional(),
  batchId: batchId().optional(),
  search: text(200).optional(),
}));
const historySort = shared(() => z.strictObject({
  field: z.enum(['createdAt', 'updatedAt', 'amount', 'status', 'currencyCode']),
  direction: z.enum(['asc', 'desc']),
}));

const fileSource = shared(() => z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('granted'), token: fileToken() }),
  z.strictObject({
    kind: z.literal('bytes'),
    fileName: required(255),
    bytes: z.instanceof(Uint8Array).refine((b) => b.byteLength <= MAX_CSV_BYTES, 'file is larger than 50 MB'),
  }),
  z.strictObject({
    kind: z.literal('base64'),
    fileName: required(255),
    // Length only: a regular expression over up to 67 M characters would hold the main process for 100 ms
    // and more. The alphabet is checked by the batches service while it decodes, a slice at a time, and a
    // bad character is the same INVALID_ARGUMENT (source.base64: "is not base64").
    base64: z.string().max(Math.ceil(MAX_CSV_BYTES / 3) * 4, 'file is larger than 50 MB'),
  }),
]));

type SchemaMap = { [A in Area]: { [V in Verb<A>]: z.ZodType<AreaArgs<A, V>> } };

/** Each area's schemas, built when the area is first used (see ARG_SCHEMAS). */
const AREA_SCHEMAS: { [A in Area]: () => SchemaMap[A] } = {
  profiles: () => ({
    list: none(),
    create: z.strictObject({
      name: required(80),
      baseUrl: required(2048),
      merchantCode: required(64),
      environment: environment(),
      apiMajorVersion: z.number().int().min(1).max(99).optional(),
    }),
    createDemo: none(),
    use: z.strictObject({ profileId: profileId() }),
    update: z.strictObject({
      profileId: profileId(),
      name: required(80).optional(),
      baseUrl: required(2048).optional(),
      merchantCode: required(64).optional(),
      environment: environment().optional(),
      apiMajorVersion: z.number().int().min(1).max(99).optional(),
    }),
    remove: z.strictObject({ profileId: profileId(), deleteJournal: z.boolean().optional() }),
    testConnection: optionalProfile(),
    // Host and addresses as typed: their rules (host name, one plain address, "none" only on loopback) are the profile's, checked in main.
    smtp: optionalProfile(),
    setSmtp: z.strictObject({
      profileId: profileId().optional(),
      host: required(253),
      port: z.number().int().min(1).max(65_535).optional(),
      security: z.enum(['tls', 'starttls', 'none']),
      username: text(256).nullable().optional(),
      from: required(254),
      replyTo: text(254).nullable().optional(),
      password: z.string().min(1, 'is required (leave it out to keep the saved one)').max(1024, 'at most 1024 characters').optional(),
    }),
    clearSmtp: optionalProfile(),
    testSmtp: z.strictObject({ profileId: profileId().optional(), to: required(254).optional() }),
  }),
  keys: () => ({
    list: optionalProfile(),
    generate: z.strictObject({ profileId: profileId().optional(), modulusBits: z.union([z.literal(2048), z.literal(3072), z.literal(4096)]).optional() }),
    import: z.strictObject({ profileId: profileId().optional(), file: fileToken(), passphrase: text(1024).optional() }),
    exportPublic: byKey(),
    letter: byKey(),
    rotate: optionalProfile(),
    retire: byKey(),
    backup: z.strictObject({
      keyId: keyId(),
      profileId: profileId().optional(),
      passphrase: z.string().min(12, 'at least 12 characters').max(1024),
      confirmed: z.boolean(),
      second: z.strictObject({ personId: personId(), passphrase: passphrase() }).optional(),
    }),
    setSecret: z.strictObject({ profileId: profileId().optional(), secret: required(4096) }),
    clearSecret: optionalProfile(),
  }),
  payouts: () => ({
    validate: z.strictObject({ ...payoutFields(), executeOn: executeOn().optional() }),
    create: z.strictObject({ ...payoutFields(), idPayout: paymentId(), confirmPossibleDuplicate: z.boolean().optional(), executeOn: executeOn().optional() }),
    get: z.strictObject({ idPayout: paymentId() }),
    remittance: z.strictObject({ idPayout: paymentId() }),
    emailRemittance: z.strictObject({ idPayout: paymentId(), force: z.boolean().optional() }),
    remittanceEmail: z.strictObject({ idPayout: paymentId() }),
    release: z.strictObject({ idPayout: paymentId() }),
    discard: z.strictObject({ idPayout: paymentId(), reason: z.string().trim().min(1).max(500).optional() }),
    currencies: none(),
    operators: z.strictObject({ currencyCode: currencyCode().optional() }),
  }),
  batches: () => ({
    template: none(),
    validateFile: z.strictObject({ source: fileSource(), decimalComma: z.boolean().optional() }),
    submit: z.strictObject({
      validationId: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'is not a validation id'),
      // Every row of a file at the row limit, plus row 0: the file itself (e.g. "this file was already submitted").
      confirmedWarningRows: listOf(z.number().int().min(0).max(1_000_000), MAX_LIST_ITEMS + 1),
      currencyCodes: z.array(currencyCode()).max(200).optional(),
      batchId: batchId().optional(),
      executeOn: executeOn().optional(),
    }),
    pause: byBatch(),
    resume: byBatch(),
    cancel: byBatch(),
    list: z.strictObject(page()),
    get: byBatch(),
    results: byBatch(),
    exportResults: z.strictObject({ batchId: batchId(), format: z.enum(['csv', 'pain.002']).optional() }),
    exportApprovals: byBatch(),
    remittance: byBatch(),
    emailRemittance: z.strictObject({ batchId: batchId(), force: z.boolean().optional() }),
    retryFailed: z.strictObject({ batchId: batchId(), idPayouts: listOf(paymentId()).min(1) }),
  }),
  balances: () => ({
    get: none(),
    refresh: none(),
    series: z.strictObject({ currencyCode: currencyCode(), from: isoTime().optional(), to: isoTime().optional() }),
    pending: none(),
  }),
  schedules: () => ({
    list: z.strictObject({ from: isoTime().optional(), to: isoTime().optional(), states: z.array(z.enum(['SCHEDULED', 'LATE', 'RELEASED', 'CANCELLED'])).max(4).optional() }),
    get: scheduleRef(),
    move: z.strictObject({ ...scheduleRefFields(), executeOn: executeOn() }),
    cancel: z.strictObject({ ...scheduleRefFields(), reason: z.string().trim().min(1).max(500).optional() }),
    confirmLate: scheduleRef(),
  }),
  recurring: () => {
    const id = z.string().regex(/^[A-Za-z0-9-]{1,51}$/, 'is not a recurring payment id');
    const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (2027-03-25)');
    const byId = z.strictObject({ id });
    return {
      list: z.strictObject({ payeeId: payeeId().optional(), states: z.array(z.enum(['ACTIVE', 'PAUSED', 'ENDED'])).max(3).optional() }),
      add: z.strictObject({
        payeeId: payeeId(),
        amount: amountText(),
        currencyCode: currencyCode(),
        reference: text(140).optional(),
        rule: text(60),
        start: date.optional(),
        endCount: z.number().int().min(1).max(10_000).optional(),
        endUntil: date.optional(),
        timeOfDay: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day (08:00)').optional(),
        zone: z.string().trim().min(1).max(64).optional(),
        leadDays: z.number().int().min(1).max(60).optional(),
      }),
      pause: byId,
      resume: byId,
      skip: z.strictObject({ id, date, reason: z.string().trim().min(1).max(500).optional() }),
      end: byId,
      run: z.strictObject({ id: id.optional() }),
    };
  },
  overview: () => ({
    get: none(),
  }),
  statements: () => ({
    get: z.strictObject({ from: isoTime(), to: isoTime(), currencyCode: currencyCode().optional() }),
    export: z.strictObject({ from: isoTime(), to: isoTime(), currencyCode: currencyCode().optional(), format: z.enum(['csv', 'pdf', 'camt053']) }),
    issue: z.strictObject({ from: isoTime(), to: isoTime(), currencyCode: currencyCode().optional() }),
    accounts: none(),
    setAccounts: z.strictObject({ clearing: required(100), payouts: required(100), fees: required(100), returns: required(100), payins: required(100), taxRate: required(100) }),
    accounting: z.strictObject({ from: isoTime(), to: isoTime(), currencyCode: currencyCode().optional(), format: z.enum(['generic', 'xero', 'quickbooks']) }),
  }),
  history: () => ({
    query: z.strictObject({ ...page(), filters: historyFilters().optional(), sort: historySort().optional() }),
    timeline: z.strictObject({ kind: z.enum(['payout', 'payin']), id: paymentId() }),
    export: z.strictObject({ filters: historyFilters().optional(), sort: historySort().optional() }),
  }),
  payins: () => ({
    options: z.strictObject({ money: money() }),
    createLink: paymentLink(),
    links: z.strictObject({ limit: z.number().int().min(1).max(200).optional() }),
    create: z.strictObject({
      idPayin: paymentId().optional(),
      amount: amountText(),
      currencyCode: currencyCode(),
      paymentMethodCode: text(64).optional(),
      paymentOperatorCode: required(64),
      accountName: required(200),
      accountNumber: required(64),
      emailAddress: required(254),
      callbackUrl: url().optional(),
      returnUrl: url().optional(),
    }),
    get: byPayin(),
    accountData: byPayin(),
    markPaidDemo: byPayin(),
    shareToken: z.strictObject({ idPayin: paymentId(), validitySecs: z.number().int().min(60).max(86_400) }),
  }),
  audit: () => ({
    list: z.strictObject(page()),
    verify: none(),
  }),
  settings: () => ({
    get: optionalProfile(),
    update: z.strictObject({
      profileId: profileId().optional(),
      rateLimitPerSec: z.number().int().min(1).max(1000).optional(),
      pollIntervalSecs: z.number().int().min(1).max(3600).optional(),
      finalStatuses: z.array(statusText()).min(1).max(50).optional(),
      tokenValiditySecs: z.number().int().min(60).max(86_400).optional(),
      timestampUnit: z.enum(['ms', 's']).optional(),
      accountDataPath: text(300).optional(),
      maxAmountMinor: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
      repeatWindowDays: z.number().int().min(0).max(3650).optional(),
      timeZone: z.string().trim().max(64).optional(),
      lateReleaseWindowMinutes: z.number().int().min(0).max(10_080).optional(),
      useDeprecatedSecret: z.boolean().optional(),
      callback: callback().partial().optional(),
    }),
    teamDatabase: optionalProfile(),
    // The URL's own rules (no password, no TLS override) are the profile store's, so the message is the CLI's.
    setTeamDatabase: z.strictObject({
      profileId: profileId().optional(),
      url: required(2048),
      tls: z.enum(['verify-full', 'require', 'disable']),
      caFile: z.strictObject({ kind: z.literal('granted'), token: fileToken() }).nullable().optional(),
      password: z.string().min(1, 'is required').max(1024, 'at most 1024 characters').optional(),
    }),
    clearTeamDatabase: optionalProfile(),
    checkTeamDatabase: optionalProfile(),
  }),
  people: () => ({
    list: none(),
    session: none(),
    unlock: z.strictObject({ personId: personId(), passphrase: passphrase() }),
    lock: none(),
    touch: none(),
    add: z.strictObject({ name: required(80), roles: roles().optional(), passphrase: passphrase() }),
    enroll: z.strictObject({ name: required(80), passphrase: passphrase() }),
    setRoles: z.strictObject({ personId: personId(), roles: roles() }),
    revoke: z.strictObject({ personId: personId(), reason: required(500) }),
    control: none(),
    cosign: z.strictObject({ hash: z.string().regex(/^[0-9a-f]{64}$/, 'is not a control record hash') }),
    seal: none(),
    confirmRoot: z.strictObject({ fingerprint: z.string().trim().regex(/^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/i, 'is not a root fingerprint (8 groups of 4 hex digits)') }),
    secondFactor: none(),
    beginSecondFactor: none(),
    confirmSecondFactor: z.strictObject({ code: secondFactorCode() }),
    verifySecondFactor: z.strictObject({ code: secondFactorCode() }),
    removeSecondFactor: z.strictObject({ code: secondFactorCode() }),
    alerts: none(),
    muteAlert: z.strictObject({ kind: z.enum(ALERT_KINDS), muted: z.boolean() }),
    alertDigest: none(),
    setAlertDigest: z.strictObject({ email: text(254).trim().min(3, 'is not an e-mail address').nullable(), every: z.enum(['hourly', 'daily']) }),
  }),
  approvals: () => ({
    queue: none(),
    show: z.strictObject(subjectRef()),
    status: z.strictObject({ subjects: z.array(z.strictObject(subjectRef())).max(200, 'at most 200 items') }),
    approve: z.strictObject({ ...subjectRef(), passphrase: passphrase(), code: secondFactorCode().optional() }),
    reject: z.strictObject({ ...subjectRef(), reason: required(500) }),
    policy: none(),
    setPolicy: z.strictObject({ rules: policyRules() }),
  }),
  payees: () => ({
    list: z.strictObject({ all: z.boolean().optional() }),
    versions: z.strictObject({ payeeId: payeeId() }),
    add: z.strictObject({ ...payeeFields(), name: text(200), accountNumber: text(64), operatorCode: text(64), emailAddress: text(254) }),
    edit: z.strictObject({ payeeId: payeeId(), ...payeeFields() }),
    approve: z.strictObject({ payeeId: payeeId(), passphrase: passphrase(), code: secondFactorCode().optional() }),
    reject: z.strictObject({ payeeId: payeeId(), reason: required(500) }),
    withdraw: z.strictObject({ payeeId: payeeId() }),
    import: z.strictObject({ source: z.strictObject({ kind: z.literal('granted'), token: fileToken() }) }),
    export: none(),
    addFromPayout: z.strictObject({ idPayout: paymentId() }),
  }),
  app: () => ({
    info: none(),
    connectionState: none(),
    rateBudget: none(),
    openDataFolder: none(),
    chooseFile: z.strictObject({ purpose: filePurpose() }),
    fileDropped: z.strictObject({ purpose: filePurpose(), path: required(4096) }),
  }),
};

/**
 * The argument schema of every contract method, by area. An area's schemas are built the first time the area is
 * read, not when this module loads: building all of them takes tens of milliseconds, and a CLI command calls
 * one or two methods (issue 26: a CLI that starts fast). The Electron main process builds an area at its
 * first call in the same way.
 */
export const ARG_SCHEMAS: SchemaMap = builtOnFirstRead(AREA_SCHEMAS);

function builtOnFirstRead<T extends object>(builders: { [K in keyof T]: () => T[K] }): T {
  const built = {} as T;
  for (const key of Object.keys(builders) as (keyof T)[]) {
    Object.defineProperty(built, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = builders[key]();
        Object.defineProperty(built, key, { value, enumerable: true, configurable: false, writable: false });
        return value;
      },
    });
  }
  return built;
}

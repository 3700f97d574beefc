// A security-relevant action (a key made, imported, rotated, retired or backed up; the merchant secret
// set or cleared; a profile added, changed or removed), as key custody and the profile store report it
// for the audit log of the profile's journal. Details never hold a secret: no passphrase, private key
// or merchant secret (the journal also drops secret-looking fields, as a second line).
export interface SecurityAction {
  profileId: string;
  action: string;
  subject?: string | null;
  details?: Record<string, unknown>;
}

/** Where a reported action goes; the promise settles once it is in the audit log. */
export type SecurityActionSink = (action: SecurityAction) => Promise<void>;

/** What key custody and the profile store are given: record (awaited) or report (from sync code). */
export interface SecurityActionReporter {
  record(action: SecurityAction): Promise<void>;
  report(action: SecurityAction): void;
}

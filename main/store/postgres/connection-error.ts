// Which PostgreSQL client errors mean the connection, not the statement, failed: the budget, the journal
// and the desk retry those on a new connection or report the team database unreachable.

/** Errors after which a new connection may do better: the server ended the session, or the socket broke. */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    // 57P01 admin_shutdown (pg_terminate_backend), 57P02/57P03 crash/cannot connect now, class 08: connection.
    if (code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('08')) return true;
    if (code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'EPIPE' || code === 'ETIMEDOUT') return true;
  }
  return /Connection terminated|connection (?:is )?closed|Client has encountered a connection error/i.test(error.message);
}

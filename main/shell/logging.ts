// electron-log for the desktop app, with the same redaction as every other logger (main/log.ts)
// applied as a hook, so a key, secret or token never reaches the log file even if a caller slips.
// electron-log's initialize() is deliberately not called: it would inject its own preload into
// every session to collect renderer logs, and the renderer gets nothing but window.desk.
import type { MainLogger } from 'electron-log';
import { redactFields, redactText, type Logger } from '../log';

export function redactLogData(data: readonly unknown[]): unknown[] {
  return data.map((item) => (typeof item === 'string' ? redactText(item) : redactFields(item)));
}

export function setupLogging(log: MainLogger): Logger {
  log.hooks.push((message) => ({ ...message, data: redactLogData(message.data) }));
  log.transports.file.level = 'info';
  log.transports.console.level = process.env['NODE_ENV'] === 'production' ? 'warn' : 'info';
  log.errorHandler.startCatching({ showDialog: false });
  return {
    info: (message, fields) => (fields ? log.info(message, fields) : log.info(message)),
    warn: (message, fields) => (fields ? log.warn(message, fields) : log.warn(message)),
    error: (message, fields) => (fields ? log.error(message, fields) : log.error(message)),
  };
}

// app:* and audit:*. The audit log belongs to a profile's journal; verify walks the hash chain.
import type { AppInfo, AuditEntryView } from '../../../preload/api';
import type { DeskRuntime } from '../runtime';
import type { AreaService } from '../services';
import { iso, toJson } from './convert';

export interface AppEnvironment {
  name: string;
  version: string;
  platform: string;
  demoAvailable: boolean;
  /** Opens a folder in the OS file manager (Electron's shell.openPath); absent in tests and the harness. */
  openPath?: (path: string) => Promise<string>;
}

export function appService(rt: DeskRuntime, env: AppEnvironment): AreaService<'app'> {
  return {
    async info(): Promise<AppInfo> {
      return { name: env.name, version: env.version, platform: env.platform, dataFolder: rt.ctx.home, demoAvailable: env.demoAvailable };
    },
    async connectionState() {
      return rt.connection();
    },
    async rateBudget() {
      const id = rt.ctx.profiles.currentId();
      if (!id) return { inWindow: 0, limit: 0, queued: { token: 0, create: 0, status: 0, list: 0 }, pausedForMs: 0 };
      const usage = rt.ctx.limiterFor(rt.ctx.profiles.get(id)).usage();
      return { inWindow: usage.inWindow, limit: usage.limit, queued: usage.queued, pausedForMs: usage.pausedForMs };
    },
    async openDataFolder() {
      if (env.openPath) {
        const problem = await env.openPath(rt.ctx.home);
        if (problem) rt.log.warn('could not open the data folder', { problem });
      }
      return { path: rt.ctx.home };
    },
  };
}

export function auditService(rt: DeskRuntime): AreaService<'audit'> {
  return {
    async list({ offset = 0, limit = 200 }) {
      const journal = rt.journalFor(rt.activeProfile().id);
      // The journal pages the audit log by sequence number; the newest entries come first.
      const entries = journal.listAudit(offset + limit);
      const items: AuditEntryView[] = entries.slice(offset, offset + limit).map((e) => ({
        seq: e.seq, at: iso(e.at), action: e.action, subject: e.subject, details: toJson({ actor: e.actor, ...(typeof e.details === 'object' && e.details ? e.details : { value: e.details }) }), hash: e.hash,
      }));
      const newest = entries[0]?.seq ?? 0;
      return { items, total: newest, offset, limit };
    },
    async verify() {
      const result = rt.journalFor(rt.activeProfile().id).verifyAudit();
      const first = result.problems[0];
      return {
        ok: result.ok,
        checked: result.entries,
        firstBrokenSeq: first?.seq ?? null,
        message: result.ok ? `All ${result.entries} audit entries are intact` : `${result.problems.length} problem(s): ${first?.message ?? ''}`,
      };
    },
  };
}

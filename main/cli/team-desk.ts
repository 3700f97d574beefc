// CLI: `team send [--file <csv>] [--batch <id>]`: this desk as one sender of a team (issue 15, "Team desk").
// It opens the profile's team database (profiles team set), submits a CSV as a batch if one is given (or
// joins it if another desk already did), and sends and tracks the team's running batches with the other
// desks until the batch named (or every running one) is sent and final. Exactly one desk sends a payout (a
// claim in the database), and the merchant's requests per second are shared (a budget in the database).
// A desk that dies leaves its sends to the others after its lease, as of unknown outcome. It is the app's
// engine (main/compose/team-desk.ts): with dual control on, nothing leaves without its approvals, and a file is
// submitted only by an unlocked preparer (--as). A file goes through the very checks of `batch submit`
// (submit-file.ts, the batches service): invalid rows refuse it, and a warning (the file already submitted,
// a duplicate row, changed bank details, a currency short) needs --confirm-warnings.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { dualControlService } from '../desk/dual-control';
import { NOT_SENDER_MESSAGE } from '../engine/payout-engine';
import type { TeamDesk } from '../compose/team-desk';
import { CliUsageError, type CliDeps } from './deps';
import { unlockAs } from './dual-control';
import { actingOptions, type ActingOptions } from './acting';
import { intOption, interrupted } from './shared';
import { fileSubmitOptions, submitValidated, validateFile, type FileSubmitOptions } from './submit-file';

interface SendOptions extends ActingOptions, FileSubmitOptions {
  file?: string;
  batch?: string;
  timeout: number;
  desk?: string;
  leaseSecs: number;
  gatewayTimeoutSecs: number;
}

/** The batch ids this run waits for: the one named or submitted, else every batch running now. */
async function waitedFor(desk: TeamDesk, batchId: string | undefined): Promise<string[]> {
  if (batchId) return [batchId];
  return (await desk.journal.batchesIn(['RUNNING'])).map((b) => b.id);
}

async function settled(desk: TeamDesk, ids: readonly string[]): Promise<{ done: boolean; lines: string[] }> {
  const lines: string[] = [];
  let done = true;
  for (const id of ids) {
    const batch = await desk.journal.getBatch(id);
    const counts = await desk.journal.batchCounts(id);
    if (!batch || batch.state === 'RUNNING' || counts.final < counts.total - counts.byState.CANCELLED) done = false;
    lines.push(`${id}: ${batch?.state ?? 'not in the team journal'}, ${counts.sent}/${counts.total} sent, ${counts.final} final, ${counts.failed} failed`);
  }
  return { done, lines };
}

/**
 * What `team send` prints of its batches while it waits and when it stops: their lines at most every `everyMs`, and
 * only when they changed; the closing report leaves out the lines it printed last, so none is said twice in a row.
 */
export class SettledLines {
  private printed: string | null = null;
  private at: number;

  constructor(private readonly now: () => number = Date.now, private readonly everyMs = 5_000) {
    this.at = now();
  }

  /** The lines to print while waiting, or none (too soon since the last, or the same as those). */
  progress(lines: readonly string[]): string[] {
    const text = lines.join('\n');
    if (this.now() - this.at <= this.everyMs || text === this.printed) return [];
    this.at = this.now();
    this.printed = text;
    return [...lines];
  }

  /** The closing report: the batches' lines unless they were just printed, then the last word. */
  closing(lines: readonly string[], last: string): string[] {
    return [...(lines.join('\n') === this.printed ? [] : lines), last];
  }
}

/**
 * Submits the file as `batch submit` would, on this team desk, or joins the batch of that id when another
 * desk of the team stored it first (the same file: its SHA-256 must match). Returns the batch id.
 */
async function submitOrJoin(deps: CliDeps, desk: TeamDesk, file: string, o: SendOptions): Promise<string> {
  const path = resolve(file);
  const joined = async (sha256: string): Promise<string | null> => {
    const existing = o.batch ? await desk.journal.getBatch(o.batch) : null;
    if (!existing) return null;
    if (existing.sha256 !== sha256) {
      throw new CliUsageError(`Batch ${existing.id} is already in the team journal with another file (SHA-256 ${existing.sha256}, not ${sha256}); nothing was stored`);
    }
    if (!deps.json()) deps.io.stdout(`Batch ${existing.id} is already in the team journal (another desk submitted it): sending it with them.\n`);
    return existing.id;
  };
  // The desk that stored it checked the file; a desk joining (or this desk after a restart) only makes sure it is the
  // same file, and is not refused for ids already in the journal or as "already submitted".
  const already = o.batch && (await desk.journal.getBatch(o.batch)) ? await joined(createHash('sha256').update(await readFile(path)).digest('hex')) : null;
  if (already) return already;
  const { openCliDesk } = await import('./desk');
  const cliDesk = openCliDesk(desk.ctx, desk.runtime, deps.profile());
  const checked = await validateFile(deps, cliDesk, path, o);
  try {
    // With dual control on, the file is prepared by the unlocked person (--as), who then cannot approve it.
    const { view, lines } = await submitValidated(deps, cliDesk, checked, o, o.batch);
    if (!deps.json()) deps.io.stdout(`${lines.join('\n')}\n`);
    return view.id;
  } catch (error) {
    // Two desks submitting one batch id at once: the first stores it, the other sends it with it.
    const other = await joined(checked.sha256).catch(() => null);
    if (other) return other;
    throw error;
  }
}

export function registerTeamDeskCommands(program: Command, deps: CliDeps): void {
  const team = program.command('team').description("this desk as one of a team's desks on the profile's team database");
  actingOptions(fileSubmitOptions(team
    .command('send')
    .description("send and track the team's running batches with the other desks until they are final (with --file, submit it first; with dual control on, --as names the preparer)")))
    .option('--file <csv>', 'a payout CSV to submit as a batch first, checked as "batch submit" checks it (all rows valid, warnings confirmed, or nothing is stored)')
    .option('--batch <id>', 'the batch id: of the file submitted, or of the running batch to wait for')
    .option('--desk <name>', "this desk's name in the team (default: the host name)")
    .option('--timeout <secs>', 'stop after this many seconds (sends on the wire finish; the others carry on)', intOption('timeout'), 3600)
    .option('--lease-secs <secs>', "how long the other desks wait before taking over this desk's sends if it stops answering", intOption('lease-secs'), 60)
    .option('--gateway-timeout-secs <secs>', 'how long a gateway request may take (a claim and a budget slot outlive it)', intOption('gateway-timeout-secs'), 15)
    .action(async (o: SendOptions) => {
      const ctx = deps.context();
      const profile = deps.profile();
      const teamDb = profile.teamDatabase;
      if (!teamDb) throw new CliUsageError(`Profile ${profile.id} has no team database: point it at one with "profiles team set ${profile.id} --url …"`);
      // Loaded here, not at the top: the team desk brings PostgreSQL and the engine, which no other command needs.
      const { openTeamDesk } = await import('../compose/team-desk');
      const desk = await openTeamDesk({
        home: ctx.home,
        keyStore: ctx.keyStore,
        logger: ctx.logger,
        profileId: profile.id,
        deskName: o.desk ?? hostname(),
        leaseMs: o.leaseSecs * 1000,
        fetchTimeoutMs: o.gatewayTimeoutSecs * 1000,
      });
      // Said, not hidden: a desk that lost the team database (or the gateway) sends nothing and tells why.
      let lastWarning = { text: '', at: 0 };
      desk.engine.on('background-error', (error) => {
        if (error.message === lastWarning.text && Date.now() - lastWarning.at < 10_000) return;
        lastWarning = { text: error.message, at: Date.now() };
        deps.io.stderr(`warning: ${error.message}\n`);
      });
      const stop = interrupted();
      try {
        if (!desk.engine.sends) throw new CliUsageError(`Nothing can be sent from here: ${NOT_SENDER_MESSAGE}`);
        if (o.as) desk.runtime.setSession(profile.id, await unlockAs(deps, dualControlService(desk.runtime), o));
        let batchId = o.batch;
        if (o.file) batchId = await submitOrJoin(deps, desk, o.file, o);
        if (batchId) {
          const batch = await desk.journal.getBatch(batchId);
          if (!batch) throw new CliUsageError(`No batch ${batchId} in the team journal`);
          if (batch.state === 'SCHEDULED') {
            // Not now: a sender desk of the team releases it at its time (its release loop), so nothing waits here.
            deps.print(`Batch ${batchId} is ${batch.pauseReason ?? 'scheduled'}; a sender desk of the team (the app, or "team send" running then) releases it at that time`, { desk: desk.deskId, batches: [batchId], scheduled: true });
            return;
          }
          if (batch.state === 'RUNNING') await desk.engine.resumeBatch(batchId);
        }
        const ids = await waitedFor(desk, batchId);
        if (!deps.json()) deps.io.stdout(`Desk ${desk.deskId} sending with the team: ${ids.length > 0 ? ids.join(', ') : 'no batch running'}\n`);
        const until = Date.now() + o.timeout * 1000;
        let report = await settled(desk, ids);
        const said = new SettledLines();
        while (!report.done && !stop.stop && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 200));
          report = await settled(desk, ids);
          const lines = deps.json() ? [] : said.progress(report.lines);
          if (lines.length > 0) deps.io.stdout(`${lines.join('\n')}\n`);
        }
        if (!report.done) deps.setExitCode(3);
        const last = report.done ? 'All sent and final.' : 'Stopped before all were final; the other desks of the team carry on.';
        deps.print(said.closing(report.lines, last), { desk: desk.deskId, batches: ids, done: report.done });
      } finally {
        stop.done();
        await desk.close();
      }
    });
}

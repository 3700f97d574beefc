// CLI: `team send [--file <csv>] [--batch <id>]`: this desk as one sender of a team (issue 15, "Team desk").
// It opens the profile's team database (profiles team set), submits a CSV as a batch if one is given (or
// joins it if another desk already did), and sends and tracks the team's running batches with the other
// desks until the batch named (or every running one) is sent and final. Exactly one desk sends a payout (a
// claim in the database), and the merchant's requests per second are shared (a budget in the database).
// A desk that dies leaves its sends to the others after its lease, as of unknown outcome. It is the app's
// engine (main/team/team-desk.ts): with dual control on, nothing leaves without its approvals, and a file is
// submitted only by an unlocked preparer (--as).
import { hostname } from 'node:os';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { importPayoutCsvFile } from '../csv/import';
import { dualControlService, preparedByFor } from '../desk/dual-control';
import { NOT_SENDER_MESSAGE } from '../engine/payout-engine';
import { openTeamDesk, type TeamDesk } from '../team/team-desk';
import { CliUsageError, type CliDeps } from './deps';
import { actingOptions, unlockAs, type ActingOptions } from './dual-control';
import { intOption, interrupted } from './shared';

interface SendOptions extends ActingOptions {
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

export function registerTeamDeskCommands(program: Command, deps: CliDeps): void {
  const team = program.command('team').description("this desk as one of a team's desks on the profile's team database");
  actingOptions(team
    .command('send')
    .description("send and track the team's running batches with the other desks until they are final (with --file, submit it first; with dual control on, --as names the preparer)"))
    .option('--file <csv>', 'a payout CSV to submit as a batch first (all rows valid, or nothing is stored)')
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
      const file = o.file ? await importPayoutCsvFile(resolve(o.file), { fileName: basename(o.file), ...(profile.maxAmountMinor ? { maxAmountMinor: profile.maxAmountMinor } : {}) }) : null;
      if (file && file.errors.length > 0) {
        throw new CliUsageError(`${file.fileName}: ${file.counts.invalid} of ${file.counts.rows} rows are invalid (first: row ${file.errors[0]!.rowNumber}: ${file.errors[0]!.message}); nothing was stored`);
      }
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
        if (file) {
          const rows = file.rows.map((r) => ({ ...r.payout, rowNumber: r.rowNumber, extra: r.extra }));
          if (batchId && (await desk.journal.getBatch(batchId))) {
            if (!deps.json()) deps.io.stdout(`Batch ${batchId} is already in the team journal (another desk submitted it): sending it with them.\n`);
          } else {
            try {
              // With dual control on, the file is prepared by the unlocked person (--as), who then cannot approve it.
              const preparedBy = await preparedByFor(desk.runtime, profile.id);
              batchId = (await desk.engine.submitBatch({ ...(batchId ? { id: batchId } : {}), fileName: file.fileName, sha256: file.sha256, rows, ...(preparedBy ? { preparedBy } : {}) })).id;
            } catch (error) {
              // Two desks submitting one batch id: the first stores it, the other sends it with it.
              if (!batchId || !(await desk.journal.getBatch(batchId))) throw error;
            }
          }
        }
        if (batchId) {
          const batch = await desk.journal.getBatch(batchId);
          if (!batch) throw new CliUsageError(`No batch ${batchId} in the team journal`);
          if (batch.state === 'RUNNING') await desk.engine.resumeBatch(batchId);
        }
        const ids = await waitedFor(desk, batchId);
        if (!deps.json()) deps.io.stdout(`Desk ${desk.deskId} sending with the team: ${ids.length > 0 ? ids.join(', ') : 'no batch running'}\n`);
        const until = Date.now() + o.timeout * 1000;
        let report = await settled(desk, ids);
        let lastPrint = Date.now();
        while (!report.done && !stop.stop && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 200));
          report = await settled(desk, ids);
          if (!deps.json() && Date.now() - lastPrint > 5_000) {
            lastPrint = Date.now();
            deps.io.stdout(`${report.lines.join('\n')}\n`);
          }
        }
        if (!report.done) deps.setExitCode(3);
        deps.print([...report.lines, report.done ? 'All sent and final.' : 'Stopped before all were final; the other desks of the team carry on.'], { desk: desk.deskId, batches: ids, done: report.done });
      } finally {
        stop.done();
        await desk.close();
      }
    });
}

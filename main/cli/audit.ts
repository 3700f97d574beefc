// CLI: `audit verify|list` over the UI's audit service (main/desk/audit.ts). The audit log is sealed
// with a key from the OS keychain and its newest entry anchored there (main/audit/chain.ts,
// main/store/sqlite/audit-seal.ts): verify names the first bad entry and exits 1; a log that cannot be checked
// on this desk (key or anchor not in this keychain) also exits 1 and says so.
import type { Command } from 'commander';
import type { AuditEntryView } from '../../contract/api';
import type { CliDeps } from './deps';
import { intOption, plural, table } from './shared';

const entryText = (e: AuditEntryView) => `#${e.seq} ${e.action}${e.subject ? ` ${e.subject}` : ''} at ${e.at}`;

export function registerAuditCommands(program: Command, deps: CliDeps): void {
  const audit = program.command('audit').description('the append-only, hash-chained audit log of this profile');

  audit
    .command('verify')
    .description('check the sealed chain of the audit log against the keychain; exits 1 and names the first bad entry when it was changed')
    .action(async () => {
      const desk = deps.desk();
      const result = await desk.call('audit', 'verify', undefined);
      if (result.ok) {
        deps.print(`Audit log intact: ${result.message}`, result);
        return;
      }
      deps.setExitCode(1);
      // Approvals whose signature does not verify, each named (the chain itself may be intact).
      const badApprovals = [
        ...result.approvals.bad.map((b) => `  BAD APPROVAL ${b.approvalId} (${b.subject}, signer ${b.signerName ?? b.signerId}): ${b.problem}`),
        ...result.policies.bad.map((b) => `  BAD POLICY version ${b.version}: ${b.problem}`),
      ];
      if (badApprovals.length > 0 && result.firstBrokenSeq === null && !/Cannot check/.test(result.message)) {
        const what = [result.approvals.bad.length > 0 ? plural(result.approvals.bad.length, 'approval') : '', result.policies.bad.length > 0 ? plural(result.policies.bad.length, 'policy version') : ''].filter(Boolean);
        const one = result.approvals.bad.length + result.policies.bad.length === 1;
        deps.print([`Audit log intact, but ${what.join(' and ')} ${one ? 'does' : 'do'} not verify`, ...badApprovals], result);
        return;
      }
      if (result.firstBrokenSeq === null) {
        // Nothing found changed, but the keychain lacks what checking needs (key or anchor): not "tampered".
        deps.print([`Audit log CANNOT BE CHECKED on this desk`, `  ${result.message}`, ...badApprovals], result);
        return;
      }
      // The entry as it reads now (it may be the edited one); absent when it was deleted.
      const seq = result.firstBrokenSeq;
      const newest = (await desk.call('audit', 'list', { limit: 1 })).total;
      const page = seq === null || seq > newest ? null : await desk.call('audit', 'list', { offset: newest - seq, limit: 1 });
      const entry = page?.items.find((e) => e.seq === seq) ?? null;
      const first = seq === null ? 'the head of the chain' : entry ? `entry ${entryText(entry)}` : `entry #${seq}`;
      deps.print([`Audit log BROKEN: first bad ${first}`, `  ${result.message}`, ...badApprovals], { ...result, firstBrokenEntry: entry });
    });

  audit
    .command('list')
    .description('the newest audit entries')
    .option('--limit <n>', 'at most this many (1-1000)', intOption('limit'), 50)
    .action(async (o: { limit: number }) => {
      const page = await deps.desk().call('audit', 'list', { limit: o.limit });
      const rows = page.items.map((e) => [String(e.seq), e.at, e.action, e.subject ?? '-', JSON.stringify(e.details)]);
      deps.print(page.items.length === 0 ? ['The audit log is empty.'] : table([['SEQ', 'AT', 'ACTION', 'SUBJECT', 'DETAILS'], ...rows]), page);
    });
}

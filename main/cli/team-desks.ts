// CLI: `team desks` and `team register-desk <keyId>`: the desks whose keys sign the team's audit log
// (main/store/postgres/audit-seal.ts). Each desk adds its own key to audit_signers when it first opens the team
// database, which anyone who can write that database can do too; so with dual control on, a desk's entries
// are the team's only once an admin registered its key in the control chain. The admin compares the key's
// fingerprint with what `team desks` shows at that desk itself, out of band, then registers it.
import type { Command } from 'commander';
import { dualControlService } from '../desk/dual-control';
import { TeamAuditSeal, type TeamSignerView } from '../store/postgres/audit-seal';
import { CliUsageError, type CliDeps } from './deps';
import { unlockAs } from './dual-control';
import { actingOptions, type ActingOptions } from './acting';
import { table } from './shared';

/** The `team` command, made by whichever module registers first (team-desk.ts registers `team send`). */
function teamCommand(program: Command): Command {
  return program.commands.find((c) => c.name() === 'team') ?? program.command('team').description("this desk as one of a team's desks on the profile's team database");
}

/** This desk's seal of the profile's team audit log (opening it adds this desk's own key the first time). */
async function teamSeal(deps: CliDeps): Promise<TeamAuditSeal> {
  const profile = deps.profile();
  if (!profile.teamDatabase) throw new CliUsageError(`Profile ${profile.id} has no team database: point it at one with "profiles team set ${profile.id} --url …"`);
  const seal = await deps.runtime().auditSeal(profile.id);
  if (!(seal instanceof TeamAuditSeal)) throw new CliUsageError(`Profile ${profile.id} does not keep its audit log in a team database`);
  return seal;
}

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

function statusText(d: TeamSignerView): string {
  if (!d.keyValid) return 'REPLACED (its public key is not the key its id names)';
  if (d.registered === null) return 'listed (dual control off)';
  if (!d.registered) return 'UNREGISTERED';
  const as = d.registration && d.registration.deskName !== d.deskName ? ` as ${d.registration.deskName}` : '';
  return `registered${as} by ${d.registration?.by ?? '?'} at ${when(d.registration?.at ?? null)}${d.publicKey === null ? ' (not in audit_signers)' : ''}`;
}

/** Accepts a fingerprint as `team desks` prints it, or the bare key id. */
const bareKeyId = (text: string) => text.trim().toLowerCase().replace(/[\s:]/g, '');

export function registerTeamDesksCommands(program: Command, deps: CliDeps): void {
  const team = teamCommand(program);

  team
    .command('desks')
    .description("the keys that sign the team's audit log: each desk's name and key fingerprint, and (dual control on) whether an admin registered it")
    .action(async () => {
      const seal = await teamSeal(deps);
      const desks = await seal.desks();
      const on = desks.some((d) => d.registered !== null);
      const rows = desks.map((d) => [d.keyId, d.fingerprint, d.deskName ?? d.registration?.deskName ?? '-', statusText(d), when(d.addedAt), d.thisDesk ? 'this desk' : '']);
      deps.print([
        ...table([['KEY ID', 'FINGERPRINT', 'DESK', 'STATUS', 'ADDED', ''], ...rows]),
        on
          ? "Entries signed by an UNREGISTERED key are not the team's: an admin compares its fingerprint with that desk, then runs: team register-desk <keyId> --as <admin> --passphrase-env <VAR>"
          : 'Dual control is off on this profile: the keys are taken as the team database lists them',
      ], { dualControl: on, desks });
    });

  actingOptions(team
    .command('register-desk <keyId>')
    .description("register a desk's audit key as the team's (an admin, --as), after comparing its fingerprint with that desk (team desks there)"))
    .option('--fingerprint <fingerprint>', 'the fingerprint read at that desk: refused when the key listed here differs')
    .action(async (given: string, o: ActingOptions & { fingerprint?: string }) => {
      const profileId = deps.profile().id;
      const seal = await teamSeal(deps);
      if (!(await deps.runtime().controlFor(profileId)).enforced) {
        throw new CliUsageError(`Dual control is off on profile ${profileId}: there is no admin to register desks (people add sets it up); the team's audit log takes the keys as the database lists them`);
      }
      const keyId = bareKeyId(given);
      const desk = (await seal.desks()).find((d) => d.keyId === keyId);
      if (!desk || desk.publicKey === null || desk.deskName === null) {
        if (desk?.registered) throw new CliUsageError(`Key ${keyId} is registered already (as desk ${desk.registration?.deskName ?? '?'})`);
        throw new CliUsageError(`No desk of the team added audit key ${keyId} to the team database (team desks lists them)`);
      }
      if (!desk.keyValid) throw new CliUsageError(`The public key listed under ${keyId} is not the key that id names: its row in audit_signers was replaced. Do not register it`);
      if (desk.registered) {
        deps.print(`Desk ${desk.registration?.deskName ?? desk.deskName}'s key ${keyId} is registered already (fingerprint ${desk.fingerprint})`, { registered: false, desk });
        return;
      }
      if (o.fingerprint !== undefined && bareKeyId(o.fingerprint) !== keyId) {
        throw new CliUsageError(`Desk ${desk.deskName}'s key listed here has fingerprint ${desk.fingerprint}, not ${o.fingerprint}: nothing was registered. Read the fingerprint again at that desk (team desks)`);
      }
      const svc = dualControlService(deps.runtime());
      const session = await unlockAs(deps, svc, o);
      try {
        await svc.registerDesk(profileId, { keyId, publicKey: desk.publicKey, deskName: desk.deskName }, session);
      } finally {
        session.lock();
      }
      const after = (await seal.desks()).find((d) => d.keyId === keyId) ?? desk;
      deps.print([
        `Registered desk ${desk.deskName}'s audit key ${keyId} as the team's`,
        `  fingerprint ${desk.fingerprint}${o.fingerprint === undefined ? ': compare it with what "team desks" shows at that desk; if it differs, the key is not that desk\'s' : ' (as read at that desk)'}`,
      ], { registered: true, desk: after });
    });
}

// The heavy half of the CLI: the desk's composition (journals, engines, services) and the CLI's view of
// the desk. main/cli/index.ts loads it with import() when a command that uses the desk is about to run, so
// --help, --version, usage errors and the light profile and key commands start without it (issue 26:
// a bundled CLI spends most of its start-up loading and evaluating modules).
export { createDeskEvents } from '../desk/events';
export { composeDesk } from '../compose/desk';
export { openCliDesk } from './desk';

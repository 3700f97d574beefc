// The heavy half of the CLI: the app context (gateway client, profile store), the desk's composition
// (journals, engines, services) and the CLI's view of the desk. main/cli/index.ts loads it with import()
// when a command is about to run, so --help, --version and usage errors start without it (issue 26:
// a bundled CLI spends most of its start-up loading and evaluating modules).
export { createAppContext } from '../context';
export { createDeskEvents } from '../desk/events';
export { composeDesk } from '../compose/desk';
export { openCliDesk } from './desk';

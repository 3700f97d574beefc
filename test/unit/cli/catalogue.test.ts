import { describe, expect, it } from 'vitest';
import { CLI_AREAS, commandWord } from '../../../main/cli/catalogue';
import { buildProgram } from '../../../main/cli/index';

const quiet = { io: { stdout: () => undefined, stderr: () => undefined } };

describe('the CLI loads only the command it runs', () => {
  it('the catalogue lists every top-level command with the description its module registers', async () => {
    const { program } = await buildProgram(quiet);
    const registered = Object.fromEntries(program.commands.map((c) => [c.name(), c.description()]));
    const listed = Object.assign({}, ...CLI_AREAS.map((a) => a.commands)) as Record<string, string>;
    expect(listed).toEqual(registered);
  });

  it('finds the command word past the global options, and after "help"', () => {
    expect(commandWord(['--home', '/tmp/x', '--json', 'profiles', 'list'])).toBe('profiles');
    expect(commandWord(['--profile', 'batch', 'payouts', 'list'])).toBe('payouts');
    expect(commandWord(['help', 'batch'])).toBe('batch');
    expect(commandWord(['--help'])).toBeUndefined();
    expect(commandWord(['-V'])).toBeUndefined();
  });

  it('a command line registers its own command in full and the others by name only', async () => {
    const { program } = await buildProgram(quiet, ['batch', 'submit', 'x.csv']);
    expect(program.commands.find((c) => c.name() === 'batch')!.commands.map((c) => c.name())).toContain('submit');
    expect(program.commands.find((c) => c.name() === 'payouts')!.commands).toEqual([]);
    expect(program.commands.map((c) => c.name()).sort()).toEqual(CLI_AREAS.flatMap((a) => Object.keys(a.commands)).sort());
  });
});

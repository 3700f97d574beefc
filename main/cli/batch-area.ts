// `batch …`: the CSV commands (template, validate) and the batch commands (submit, resume, status, export…)
// under one top-level command. With a profile (named or current), `batch validate` runs the batches service
// exactly as `batch submit` does.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliDeps } from './deps';
import { registerBatchCommands } from './batch';
import { registerBatchCsvCommands } from './batch-csv';

export function registerBatchArea(program: Command, deps: CliDeps): void {
  const batch = program.command('batch').description('CSV batches: template, validate, submit, resume, status, export');
  registerBatchCsvCommands(batch, {
    stdout: deps.io.stdout,
    stderr: deps.io.stderr,
    setExitCode: deps.setExitCode,
    async profileValidation(file, decimalComma) {
      if (!program.opts<{ profile?: string }>().profile && !deps.context().profiles.currentId()) return null;
      const desk = deps.desk();
      // Handed over like a dropped file: validation reads only files main granted.
      const granted = await desk.call('app', 'fileDropped', { purpose: 'csv', path: resolve(file) });
      const view = await desk.call('batches', 'validateFile', { source: { kind: 'granted', token: granted.token }, ...(decimalComma !== undefined ? { decimalComma } : {}) });
      return { profile: desk.profile, view };
    },
  });
  registerBatchCommands(batch, deps);
}

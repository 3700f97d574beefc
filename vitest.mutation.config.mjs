// The tests Stryker runs against each mutant (stryker.config.mjs): the unit project of vitest.config.ts and a fixed
// list of simulated histories (test/simulation/fixed-seeds.mutation.ts). The histories run after the unit tests:
// with Stryker's bail, a mutant a unit test kills costs no simulation.
import { defineConfig } from 'vitest/config';
import { BaseSequencer } from 'vitest/node';
import unitAndMore from './vitest.config.ts';

const unit = unitAndMore.test.projects.find((p) => p.test.name === 'unit').test;
const SIMULATION = 'test/simulation/fixed-seeds.mutation.ts';

class UnitFirst extends BaseSequencer {
  async sort(files) {
    const sorted = await super.sort(files);
    const last = (spec) => (spec.moduleId.endsWith(SIMULATION) ? 1 : 0);
    return sorted.sort((a, b) => last(a) - last(b));
  }
}

export default defineConfig({
  test: {
    include: [...unit.include, SIMULATION],
    exclude: [...unit.exclude, 'node_modules/**', '.tmp/**'],
    environment: 'node',
    sequence: { sequencer: UnitFirst },
  },
});

// Vitest global setup of the `postgres` project: one throwaway cluster for all its files, stopped after.
import type { TestProject } from 'vitest/node';
import { startCluster } from './cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}

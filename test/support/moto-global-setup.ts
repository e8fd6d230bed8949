// Vitest global setup of the integration project: one AWS emulator (moto server) for the cloud tests,
// on a free 127.0.0.1 port, stopped after the run.
import type { TestProject } from 'vitest/node';
import { startMoto, type MotoServer } from './moto.js';
import { ensurePythonTools } from './python-tools.js';
import './provided-context.js';

let moto: MotoServer | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensurePythonTools();
  const started = Date.now();
  moto = await startMoto();
  process.stderr.write(`The AWS emulator (moto) for the integration suite: ${moto.endpoint}, ready in ${Date.now() - started} ms.\n`);
  project.provide('motoEndpoint', moto.endpoint);
  return async () => {
    await moto?.stop();
    moto = undefined;
  };
}

#!/usr/bin/env node
// Launcher of the edge-events command line: registers tsx's loader in this process and runs the TypeScript CLI.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));

#!/usr/bin/env node
// Launcher of the edge-events command line: runs the compiled CLI in dist/ (built by `npm ci` and `npm start`).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('edge-events is not built yet: run `npm run build` (npm ci and npm start build it too).\n');
  process.exit(2);
}
const { runCli } = await import(cli.href);
process.exitCode = await runCli(process.argv.slice(2));

// Entry point of the edge-events command line: picks the subcommand and maps usage errors to exit code 2.
import { readFileSync } from 'node:fs';
import { EXIT_OK, EXIT_USAGE, UsageError, type CliIO, type Command } from './command.js';
import { filterCommand } from './filter-command.js';
import { produceCommand } from './produce-command.js';
import { replayCommand } from './replay-command.js';
import { tapCommand } from './tap-command.js';

const COMMANDS: readonly Command[] = [filterCommand, produceCommand, replayCommand, tapCommand];

function overview(): string {
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`);
  return ['Usage: edge-events <command> [options]', '', 'Commands:', ...lines, '', 'Run "edge-events <command> --help" for its options, "edge-events --version" for the version.', ''].join('\n');
}

/** The package's version, from the package.json beside src/ and dist/. */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

export async function runCli(argv: readonly string[], io: CliIO = process): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout.write(`edge-events ${cliVersion()}\n`);
    return EXIT_OK;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(overview());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr.write(`edge-events: unknown command "${name}".\n\n${overview()}`);
    return EXIT_USAGE;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(command.usage);
    return EXIT_OK;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`edge-events ${command.name}: ${err.message}\n\n${command.usage}`);
    return EXIT_USAGE;
  }
}

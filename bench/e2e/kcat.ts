// The kcat copy baseline: librdkafka's own consumer and producer (Debian's kcat) copying the raw topics to
// one output topic, idempotent with acks=all, as a pipe between two kcat processes on the same broker.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { childOf, type BenchChild } from './child.js';

/**
 * Separates records in the pipe. The raw records are binary Avro, so a newline cannot be the separator;
 * a record holding this string would be split in two, which the drain's exact count would catch.
 */
export const KCAT_DELIMITER = '\\xff\\xfeEDGE-EVENTS-RECORD-END\\xfe\\xff';

/** "kcat 1.7.1, librdkafka 2.0.2" from `kcat -V`, or undefined when kcat is not installed. */
function installed(): string | undefined {
  let out: string;
  try {
    out = execFileSync('kcat', ['-V'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
  const m = /Version (\S+) .*librdkafka (\S+)/.exec(out);
  return m === null ? 'kcat' : `kcat ${m[1]}, librdkafka ${m[2]}`;
}

/** kcat's and librdkafka's versions; installs Debian's kcat package first when it is missing (as root, like the broker's jars are fetched). */
export function ensureKcat(progress: (m: string) => void): string {
  const version = installed();
  if (version !== undefined) return version;
  progress('kcat is missing: installing Debian\'s kcat package (apt-get install -y kcat)');
  const apt = (args: string[]): void => void execFileSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  try {
    apt(['install', '-y', 'kcat']);
  } catch {
    // A fresh machine may not have read the package lists yet.
    apt(['update']);
    apt(['install', '-y', 'kcat']);
  }
  const after = installed();
  if (after === undefined) throw new Error('kcat could not be installed: the e2e benchmark needs it for its baseline (apt-get install -y kcat).');
  return after;
}

/** The processes `pid` started (Linux keeps the list per thread; a shell has one). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Starts `kcat -G` (a consumer group over `inputs`, from the beginning, exiting at their end) piped
 * into `kcat -P` (idempotent, acks=all) writing to `output`, in a shell that ends once the copy is done.
 * The kcat processes are the ones sampled for CPU and memory.
 */
export async function startKcatCopy(brokers: string, inputs: readonly string[], output: string, group: string): Promise<BenchChild> {
  const pipeline =
    'kcat -b "$B" -G "$G" -X auto.offset.reset=earliest -e -q -D "$D" $INPUTS | ' +
    'kcat -b "$B" -P -t "$OUT" -D "$D" -X enable.idempotence=true -X acks=all';
  const sh = spawn('sh', ['-c', pipeline], {
    env: { ...process.env, B: brokers, G: group, D: KCAT_DELIMITER, INPUTS: inputs.join(' '), OUT: output },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const shell = childOf('kcat copy', sh, { mayExit: true });
  const started = Date.now();
  let kcats = childrenOf(sh.pid as number);
  while (kcats.length < 2 && sh.exitCode === null && Date.now() - started < 5_000) {
    await new Promise((r) => setTimeout(r, 20));
    kcats = childrenOf(sh.pid as number);
  }
  if (kcats.length < 2) {
    await shell.stop(1_000);
    throw new Error(`the kcat copy did not start:\n${shell.tail()}`);
  }
  return { ...shell, pids: kcats };
}

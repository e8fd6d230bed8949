// A real single-node OpenSearch for the elasticsearch destination's tests: its jars (pom.xml here) fetched
// by Maven into .local/opensearch/<version>/libs like the Kafka broker's, the launcher beside this file
// compiled there with javac, and a node started per test file on a free 127.0.0.1 port in a fresh
// temporary folder that stop() deletes (nothing else is touched). `npm run opensearch:fetch` (.ci/run)
// fetches and compiles ahead of the suite.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killOnExit, stopProcess } from '../../../src/kafka/process-guard.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(HERE, '..', '..', '..');
const POM = join(HERE, 'pom.xml');
const LAUNCHER = join(HERE, 'OpenSearchLauncher.java');
const VERSION = /<opensearch\.version>([^<]+)</.exec(readFileSync(POM, 'utf8'))?.[1] ?? 'unknown';
const DIR = join(ROOT, '.local', 'opensearch', VERSION);
const LIBS = join(DIR, 'libs');
const CLASSES = join(DIR, 'classes');
const READY_TIMEOUT_MS = 120_000;

function java(tool: 'java' | 'javac'): string {
  return process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', tool) : tool;
}

/** The jars and the compiled launcher, fetched and compiled first when missing (or when the launcher changed). */
export function ensureOpenSearch(): { readonly libs: string; readonly classes: string } {
  if (!existsSync(join(LIBS, '.complete'))) {
    const staging = `${LIBS}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    const r = spawnSync('mvn', ['-B', '-q', '-Dstyle.color=never', '-f', POM, 'dependency:copy-dependencies', `-DoutputDirectory=${staging}`], { encoding: 'utf8' });
    if (r.error !== undefined || r.status !== 0) throw new Error(`Maven could not fetch OpenSearch ${VERSION} (Java 17+ and Maven are needed): ${r.error?.message ?? `${r.stdout}${r.stderr}`.slice(-2000)}`);
    writeFileSync(join(staging, '.complete'), '');
    rmSync(LIBS, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
    renameSync(staging, LIBS);
  }
  const source = readFileSync(LAUNCHER, 'utf8');
  const stamp = join(CLASSES, 'source.java');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== source) {
    rmSync(CLASSES, { recursive: true, force: true });
    mkdirSync(CLASSES, { recursive: true });
    const r = spawnSync(java('javac'), ['-d', CLASSES, '-cp', join(LIBS, '*'), LAUNCHER], { encoding: 'utf8' });
    if (r.error !== undefined || r.status !== 0) throw new Error(`javac could not compile the OpenSearch launcher: ${r.error?.message ?? `${r.stdout}${r.stderr}`.slice(-2000)}`);
    writeFileSync(stamp, source);
  }
  return { libs: LIBS, classes: CLASSES };
}

export interface OpenSearchNode {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly version: string;
  /** SIGTERM, then SIGKILL after 15 s; deletes the node's folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Starts a node and resolves once it answers HTTP. */
export async function startOpenSearch(): Promise<OpenSearchNode> {
  const { libs, classes } = ensureOpenSearch();
  const home = await mkdtemp(join(tmpdir(), 'edge-opensearch-'));
  const args = ['-Xms256m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData', '-Djava.awt.headless=true', '-cp', `${classes}:${join(libs, '*')}`, 'OpenSearchLauncher', home, '0'];
  const child = spawn(java('java'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const unguard = killOnExit(child);
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`OpenSearch did not start within ${READY_TIMEOUT_MS} ms:\n${output.slice(-3000)}`)), READY_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.length > 200_000) output = output.slice(-100_000);
      const m = /^HTTP (\d+)$/m.exec(output);
      if (m !== null) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`OpenSearch exited (${code ?? signal}) before it served:\n${output.slice(-3000)}`));
    });
  }).catch(async (err: unknown) => {
    await stopProcess(child, 5000);
    unguard();
    await rm(home, { recursive: true, force: true });
    throw err;
  });
  let stopped = false;
  return {
    url: `http://127.0.0.1:${port}`,
    version: VERSION,
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopProcess(child, 15_000);
      unguard();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The parts of the node's answers the tests read. */
export interface SearchAnswer {
  readonly hits: { readonly hits: { _id: string; _index: string; _source: Record<string, unknown> }[] };
  readonly [key: string]: unknown;
}

/** A JSON call to the node, for the tests' own setup and read-back. */
export async function openSearchCall(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: SearchAnswer }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: (text === '' ? {} : JSON.parse(text)) as SearchAnswer };
}

/** Every document of `index` (a pattern may name several), by search after a refresh. */
export async function searchAll(url: string, index: string): Promise<{ _id: string; _index: string; _source: Record<string, unknown> }[]> {
  await openSearchCall(url, 'POST', `/${index}/_refresh`);
  const r = await openSearchCall(url, 'POST', `/${index}/_search`, { size: 10_000, query: { match_all: {} } });
  if (r.status === 404) return [];
  if (r.status !== 200) throw new Error(`search of ${index} answered ${r.status}: ${JSON.stringify(r.json)}`);
  return r.json.hits.hits;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { libs } = ensureOpenSearch();
  process.stdout.write(`OpenSearch ${VERSION}: ${libs}\n`);
}

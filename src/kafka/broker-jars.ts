// Fetches and caches the pinned Kafka broker's jars with Maven (local-kafka/pom.xml is the one pin).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KafkaSetupError } from './errors.js';

/** The repository root: this file sits in src/kafka (or dist/kafka after a build). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const LOCAL_KAFKA_DIR = join(PROJECT_ROOT, 'local-kafka');
const POM = join(LOCAL_KAFKA_DIR, 'pom.xml');
/** Written last, so a fetch cut short is never mistaken for a complete jar set. */
const COMPLETE_MARKER = '.complete';

/** The Kafka version pinned by local-kafka/pom.xml's kafka.version property. */
export function pinnedKafkaVersion(): string {
  const match = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(POM, 'utf8'));
  if (!match?.[1]) throw new Error('local-kafka/pom.xml has no <kafka.version> property.');
  return match[1].trim();
}

/** Where the jars of one Kafka version are cached; EDGE_KAFKA_CACHE moves the cache off the tree. */
export function brokerCacheDir(version = pinnedKafkaVersion()): string {
  return join(process.env.EDGE_KAFKA_CACHE ?? join(PROJECT_ROOT, '.local', 'kafka'), version);
}

export function brokerLibsDir(version = pinnedKafkaVersion()): string {
  return join(brokerCacheDir(version), 'libs');
}

export function brokerJarsCached(version = pinnedKafkaVersion()): boolean {
  return existsSync(join(brokerLibsDir(version), COMPLETE_MARKER));
}

export interface EnsureJarsOptions {
  /** Receives Maven's output line by line while it downloads; default: standard error. */
  onProgress?: (line: string) => void;
}

/**
 * Returns the folder holding the pinned broker's jars, running Maven first when they are not cached.
 * Maven copies into a private folder that is renamed into place, so two processes fetching at once
 * (a test run and `npm start`) cannot see each other's half-written folder.
 */
export async function ensureBrokerJars(options: EnsureJarsOptions = {}): Promise<string> {
  const version = pinnedKafkaVersion();
  const libs = brokerLibsDir(version);
  if (brokerJarsCached(version)) return libs;

  const progress = options.onProgress ?? ((line: string) => process.stderr.write(`[kafka:fetch] ${line}\n`));
  const staging = `${libs}.tmp-${process.pid}-${Date.now()}`;
  await mkdir(brokerCacheDir(version), { recursive: true });
  progress(`Fetching the Apache Kafka ${version} broker jars with Maven (first run only).`);
  try {
    await runMaven(['dependency:copy-dependencies', `-DoutputDirectory=${staging}`], progress);
    const jars = (await readdir(staging)).filter((name) => name.endsWith('.jar'));
    if (!jars.some((name) => name.startsWith(`kafka_2.13-${version}`))) {
      throw new KafkaSetupError('MAVEN_FAILED', `Maven finished but copied no kafka_2.13-${version} jar.`);
    }
    await writeFile(join(staging, COMPLETE_MARKER), `${jars.length} jars\n`);
    if (brokerJarsCached(version)) return libs; // another process won the race; its copy is as good
    await rm(libs, { recursive: true, force: true });
    await rename(staging, libs);
    progress(`Cached ${jars.length} jars for Kafka ${version}.`);
    return libs;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function runMaven(goals: string[], progress: (line: string) => void): Promise<void> {
  // Batch mode keeps the output line-based (no progress bars); colour codes would litter the lines.
  const args = ['-B', '-Dstyle.color=never', '-f', POM, ...goals];
  return new Promise((resolve, reject) => {
    const child = spawn('mvn', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const onLine = (line: string): void => {
      tail.push(line);
      if (tail.length > 30) tail.shift();
      if (/Downloaded from .*\.jar|Copying|ERROR|BUILD/.test(line)) progress(line);
    };
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    child.on('error', (err) =>
      reject(new KafkaSetupError('MAVEN_FAILED', `Could not run mvn to fetch the Kafka broker: ${err.message}`, { cause: err })),
    );
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new KafkaSetupError('MAVEN_FAILED', `mvn exited with ${code}; its last lines:\n${tail.join('\n')}`, { retryable: true }));
    });
  });
}

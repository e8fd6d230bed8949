// Fetches and caches the pinned Kafka broker's jars with Maven (local-kafka/pom.xml is the one pin).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
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

/** Maven's own log of the last fetch of `version`: a failure's message points to it. */
export function mavenLogFile(version = pinnedKafkaVersion()): string {
  return join(brokerCacheDir(version), 'maven.log');
}

export interface EnsureJarsOptions {
  /**
   * Receives two sentences on a first run: that the fetch starts (and where Maven's log goes), and what
   * it fetched. Default: standard error.
   */
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
  const logFile = mavenLogFile(version);
  await mkdir(brokerCacheDir(version), { recursive: true });
  const started = Date.now();
  progress(`Fetching the Apache Kafka ${version} broker jars with Maven, first run only (Maven's log: ${logFile}).`);
  try {
    await runMaven(['dependency:copy-dependencies', `-DoutputDirectory=${staging}`], logFile);
    const jars = (await readdir(staging)).filter((name) => name.endsWith('.jar'));
    if (!jars.some((name) => name.startsWith(`kafka_2.13-${version}`))) {
      throw new KafkaSetupError('MAVEN_FAILED', `Maven finished but copied no kafka_2.13-${version} jar.`);
    }
    await writeFile(join(staging, COMPLETE_MARKER), `${jars.length} jars\n`);
    if (brokerJarsCached(version)) return libs; // another process won the race; its copy is as good
    await rm(libs, { recursive: true, force: true });
    await rename(staging, libs);
    progress(`Fetched ${jars.length} jars for Kafka ${version} in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
    return libs;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Runs Maven with its whole output in `logFile`; a failure names the file and quotes Maven's errors. */
function runMaven(goals: string[], logFile: string): Promise<void> {
  // Batch mode keeps the output line-based (no progress bars); colour codes would litter the lines.
  const args = ['-B', '-Dstyle.color=never', '-f', POM, ...goals];
  return new Promise((resolve, reject) => {
    const log = createWriteStream(logFile);
    const child = spawn('mvn', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const errors: string[] = [];
    const onLine = (line: string): void => {
      log.write(`${line}\n`);
      if (line.startsWith('[ERROR]') && errors.length < 10) errors.push(line);
    };
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    child.on('error', (err) => {
      log.end();
      reject(new KafkaSetupError('MAVEN_FAILED', `Could not run mvn to fetch the Kafka broker (Java 17+ and Maven are needed): ${err.message}`, { cause: err }));
    });
    child.on('close', (code) => {
      log.end();
      if (code === 0) resolve();
      else {
        const quoted = errors.length > 0 ? `\n${errors.join('\n')}` : '';
        reject(new KafkaSetupError('MAVEN_FAILED', `mvn exited with ${code} while fetching the Kafka broker; its log is ${logFile}.${quoted}`, { retryable: true }));
      }
    });
  });
}

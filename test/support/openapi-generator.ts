// OpenAPI Generator (a Java jar from Maven Central, pinned here) for the generated-client tests: cached
// under .local/openapi-generator/<version>/ like the Kafka broker's jars, fetched with Maven on first use
// or ahead of time with `npm run clients:fetch` (.ci/run does).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const OPENAPI_GENERATOR_VERSION = '7.17.0';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = join(ROOT, '.local', 'openapi-generator', OPENAPI_GENERATOR_VERSION);
const JAR = join(DIR, `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`);

/** The jar's path, fetched with Maven first when it is not cached. */
export function openapiGeneratorJar(): string {
  if (existsSync(JAR)) return JAR;
  const staging = `${DIR}.tmp-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  try {
    const artifact = `org.openapitools:openapi-generator-cli:${OPENAPI_GENERATOR_VERSION}`;
    const r = spawnSync('mvn', ['-B', '-q', '-Dstyle.color=never', 'dependency:copy', `-Dartifact=${artifact}`, `-DoutputDirectory=${staging}`, '-Dtransitive=false'], { encoding: 'utf8', cwd: staging });
    if (r.error !== undefined || r.status !== 0) throw new Error(`Maven could not fetch ${artifact} (Java and Maven are needed): ${r.error?.message ?? `${r.stdout}${r.stderr}`.slice(-2000)}`);
    mkdirSync(DIR, { recursive: true });
    renameSync(join(staging, `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`), JAR);
    return JAR;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Runs the generator with `args`; resolves to its whole output, and throws with it when it fails. */
export function openapiGenerator(args: readonly string[]): string {
  const r = spawnSync('java', ['-jar', openapiGeneratorJar(), ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${r.stdout}${r.stderr}`;
  if (r.error !== undefined || r.status !== 0) throw new Error(`openapi-generator ${args[0]} failed (${r.error?.message ?? `exit ${r.status}`}):\n${output.slice(-4000)}`);
  return output;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`OpenAPI Generator ${OPENAPI_GENERATOR_VERSION}: ${openapiGeneratorJar()}\n`);
}

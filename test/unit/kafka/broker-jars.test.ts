// Unit tests of the broker jar fetch's output: two sentences for a person, Maven's whole log in a file,
// and a failure that names that file. Maven is replaced by a script on PATH that talks like it.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { brokerJarsCached, ensureBrokerJars, mavenLogFile, pinnedKafkaVersion } from '../../../src/kafka/broker-jars.js';

const saved = { PATH: process.env.PATH, EDGE_KAFKA_CACHE: process.env.EDGE_KAFKA_CACHE };
let dir: string;

/** A stand-in for mvn: a hundred lines of download log, then jars in -DoutputDirectory, or a failure. */
function fakeMaven(outcome: 'ok' | 'fail'): void {
  const version = pinnedKafkaVersion();
  const script = `#!/bin/sh
for i in $(seq 1 100); do echo "[INFO] Downloaded from central: https://repo.example/lib$i.jar (10 kB at 1 MB/s)"; done
${
  outcome === 'ok'
    ? `for a in "$@"; do case "$a" in -DoutputDirectory=*) out="\${a#-DoutputDirectory=}";; esac; done
mkdir -p "$out" && touch "$out/kafka_2.13-${version}.jar" "$out/kafka-clients-${version}.jar"
echo "[INFO] BUILD SUCCESS"`
    : `echo "[ERROR] Failed to execute goal on project local-kafka: Could not resolve dependencies" >&2
echo "[INFO] BUILD FAILURE"
exit 1`
}
`;
  writeFileSync(join(dir, 'mvn'), script);
  chmodSync(join(dir, 'mvn'), 0o755);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'broker-jars-'));
  process.env.EDGE_KAFKA_CACHE = join(dir, 'cache');
  process.env.PATH = `${dir}${delimiter}${saved.PATH}`;
});

afterEach(() => {
  process.env.PATH = saved.PATH;
  if (saved.EDGE_KAFKA_CACHE === undefined) delete process.env.EDGE_KAFKA_CACHE;
  else process.env.EDGE_KAFKA_CACHE = saved.EDGE_KAFKA_CACHE;
  rmSync(dir, { recursive: true, force: true });
});

describe('broker jar fetch', () => {
  it("should tell a person two sentences, keep Maven's hundred lines in its log file, and cache the jars", async () => {
    fakeMaven('ok');
    const said: string[] = [];
    await ensureBrokerJars({ onProgress: (line) => said.push(line) });
    expect(said).toHaveLength(2);
    expect(said[0]).toContain(`Maven's log: ${mavenLogFile()}`);
    expect(said[1]).toMatch(/^Fetched 2 jars for Kafka .+ in \d+ s\.$/);
    expect(readFileSync(mavenLogFile(), 'utf8').match(/Downloaded from central/g)).toHaveLength(100);
    expect(brokerJarsCached()).toBe(true);
  });

  it("should fail with MAVEN_FAILED naming Maven's log file and quoting its errors", async () => {
    fakeMaven('fail');
    const said: string[] = [];
    const failure = ensureBrokerJars({ onProgress: (line) => said.push(line) });
    await expect(failure).rejects.toMatchObject({ code: 'MAVEN_FAILED' });
    const message = ((await failure.catch((err: unknown) => err)) as Error).message;
    expect(message).toContain(`its log is ${mavenLogFile()}`);
    expect(message).toContain('[ERROR] Failed to execute goal on project local-kafka: Could not resolve dependencies');
    expect(message).not.toContain('Downloaded from');
    expect(said).toHaveLength(1);
    expect(readFileSync(mavenLogFile(), 'utf8')).toContain('BUILD FAILURE');
    expect(brokerJarsCached()).toBe(false);
    expect(existsSync(mavenLogFile())).toBe(true);
  });
});

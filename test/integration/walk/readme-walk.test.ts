// The README's walk, run exactly as written: the shell block after the `readme-walk` marker in README.md
// runs in bash in a fresh folder laid out as a clone of this checkout, against a service started with
// `npm start` there, so the README cannot drift from what works.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { GroupProcess } from '../../support/process-group.js';
import { serviceEnv } from '../../support/service-process.js';
import { readmeWalk } from './readme-walk.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** What a clone holds that `npm start` and `npx edge-events` use; `.local/` is not among them. */
const CLONE_ENTRIES = ['.npmrc', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'bin', 'scripts', 'dist', 'node_modules', 'schemas', 'local-kafka', 'web'];
const EVENTS_FILE = '.local/destinations/tls/events.ndjson';
const WALK_DEADLINE_MS = 30_000;

const clone = mkdtempSync(join(tmpdir(), 'edge-events-walk-'));
const curlHome = mkdtempSync(join(tmpdir(), 'edge-events-walk-curl-'));
let service: GroupProcess | undefined;
let walk: GroupProcess | undefined;

afterAll(async () => {
  await walk?.stop();
  await service?.stop();
  rmSync(clone, { recursive: true, force: true });
  rmSync(curlHome, { recursive: true, force: true });
});

describe('the README walk', () => {
  it('run exactly as written against a fresh service, should show matching events in its tap within 30 s, end by itself, and find them on disk', async () => {
    for (const entry of CLONE_ENTRIES) symlinkSync(join(ROOT, entry), join(clone, entry));
    const block = readmeWalk(readFileSync(join(ROOT, 'README.md'), 'utf8'));

    // The service as `npm start` starts it, on the suite's broker with topics of its own; no token is
    // given, so it generates one and writes it to .local/api-token as on a first start.
    const env: NodeJS.ProcessEnv = { ...process.env, ...serviceEnv(uniqueName('walk'), testBrokers()), PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH}` };
    // The egress settings too: the walk works with the service's defaults (https only, no internal address).
    for (const name of ['API_TOKEN_FILE', 'API_BOOTSTRAP_TOKEN', 'FILE_DESTINATION_ROOT', 'LOG_FORMAT', 'EGRESS_ALLOW_HTTP', 'EGRESS_ALLOW_CIDRS']) delete env[name];
    service = new GroupProcess('npm', ['start'], clone, env);
    const ready = JSON.parse(await service.lineMatching((l) => l.includes('"The service is ready."'), 120_000)) as { api: string; tokenFile?: string };
    expect(ready.tokenFile).toBe('.local/api-token');

    // The README's commands name localhost:8080; the service under test listens on a free port, and
    // curl's own config file sends localhost:8080 there, as KAFKA_BROKERS sends `produce` to the broker
    // and EDGE_EVENTS_URL sends `tap` to the API.
    mkdirSync(curlHome, { recursive: true });
    writeFileSync(join(curlHome, '.curlrc'), `connect-to = "localhost:8080:127.0.0.1:${new URL(ready.api).port}"\n`);
    const started = Date.now();
    walk = new GroupProcess('bash', ['-c', block], clone, { ...env, CURL_HOME: curlHome, EDGE_EVENTS_URL: ready.api });
    const isEvent = (line: string): boolean => line.startsWith('{"event_id"');
    await walk.lineMatching(isEvent, WALK_DEADLINE_MS);
    const firstEventMs = Date.now() - started;
    // The tap ends by itself at its limit, and the walk with it.
    expect(await walk.exit()).toBe(0);
    const tapped = walk.lines.filter(isEvent);
    expect(tapped).toHaveLength(5);
    // No client library's warning in the middle of the walk's output, nor in the service's (kafkajs, the
    // first client, printed Node's TimeoutNegativeWarning in both).
    expect(walk.lines.filter((line) => /Warning\b/.test(line))).toEqual([]);
    expect(service.lines.filter((line) => /Warning\b/.test(line))).toEqual([]);

    // What the tap printed is what the file destination receives, once it has written it.
    let written: string[] = [];
    for (const until = Date.now() + WALK_DEADLINE_MS; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      written = readFileSync(join(clone, EVENTS_FILE), 'utf8').trim().split('\n');
      if (tapped.every((line) => written.includes(line))) break;
    }
    const events = written.map((line) => JSON.parse(line) as { event_type: string; object: { conn: Record<string, unknown> } });
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(event.event_type).toBe('tcp_connection_closed.v0');
      expect(Object.keys(event.object.conn).sort()).toEqual(['bytes_in', 'client_ip', 'server_name']);
      expect(String(event.object.conn.client_ip)).toMatch(/^10\.\d+\.\d+\.\d+$/);
    }
    expect(tapped.every((line) => written.includes(line))).toBe(true);
    process.stderr.write(`README walk: the tap printed its first event ${firstEventMs} ms after the walk started; ${events.length} events on disk so far.\n`);
  });
});

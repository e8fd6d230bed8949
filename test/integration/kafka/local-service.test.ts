// `npm start` with its own broker, stopped and restarted as a person does: Ctrl-C at the terminal (SIGINT
// to the whole process group), a second Ctrl-C, a broker that dies, and a service killed with kill -9.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { localSetup, startLocalService, waitGone, processAlive, type LocalService, type LocalSetup } from '../../support/local-service.js';
import { withLibraryAdmin } from '../../support/kafka.js';
import { GroupProcess } from '../../support/process-group.js';

const setups: LocalSetup[] = [];
const services: LocalService[] = [];
const brokerPids = new Set<number>();

async function setup(extra?: Record<string, string>): Promise<LocalSetup> {
  const s = await localSetup(extra);
  setups.push(s);
  return s;
}

async function start(s: LocalSetup): Promise<LocalService> {
  const service = await startLocalService(s);
  services.push(service);
  brokerPids.add(service.brokerPid);
  return service;
}

const indexOf = (service: LocalService, text: string): number => service.npm.lines.findIndex((l) => l.includes(text));

afterAll(async () => {
  for (const s of services) await s.npm.stop();
  for (const pid of brokerPids) {
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const s of setups) rmSync(s.dir, { recursive: true, force: true });
});

// Each wait below is bounded on its own and fails with the service's last lines; the tests' timeout is longer
// than their sum, so a slow start or stop says where it stuck.
describe('the local service (npm start)', { timeout: 300_000 }, () => {
  it('should drain, stop the service, then stop the broker and exit 0 on one Ctrl-C', async () => {
    const service = await start(await setup());
    const signalled = Date.now();
    service.npm.signalGroup('SIGINT');
    expect(await service.npm.exit(30_000)).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(15_000);
    expect(await waitGone(service.brokerPid, 5_000)).toBe(true);
    const stopping = indexOf(service, 'A stop signal arrived');
    const stopped = indexOf(service, '"The service stopped."');
    const brokerStopped = indexOf(service, '"The local Kafka broker stopped."');
    expect(stopping).toBeGreaterThan(-1);
    expect(stopped).toBeGreaterThan(stopping);
    expect(brokerStopped).toBeGreaterThan(stopped);
    // One keypress reaches the service twice (from the terminal and from npm): it is one stop, not two.
    expect(indexOf(service, 'A second stop signal arrived')).toBe(-1);
    // The broker outlived the drain: no connection to it was refused while the service stopped.
    expect(service.npm.lines.slice(stopping, stopped).filter((l) => l.includes('ECONNREFUSED'))).toEqual([]);
  });

  it('should exit at once on a second Ctrl-C while the drain waits on an unresponsive broker, and still stop the broker', async () => {
    const service = await start(await setup({ DRAIN_TIMEOUT_MS: '60000' }));
    // A frozen broker: every Kafka call of the drain waits for its timeout.
    process.kill(service.brokerPid, 'SIGSTOP');
    try {
      service.npm.signalGroup('SIGINT');
      await service.npm.lineMatching((l) => l.includes('A stop signal arrived'), 10_000);
      await new Promise((r) => setTimeout(r, 1_500));
      const second = Date.now();
      process.kill(service.pid, 'SIGINT');
      expect(await waitGone(service.pid, 3_000)).toBe(true);
      expect(Date.now() - second).toBeLessThan(3_000);
      expect(indexOf(service, 'A second stop signal arrived')).toBeGreaterThan(-1);
    } finally {
      process.kill(service.brokerPid, 'SIGCONT');
    }
    // The exit hook sent the broker SIGTERM on the way out; thawed, it shuts down.
    expect(await waitGone(service.brokerPid, 30_000)).toBe(true);
  });

  it('should say so and exit within 15 s when its broker dies, not retry it for minutes', async () => {
    const service = await start(await setup());
    const killed = Date.now();
    process.kill(service.brokerPid, 'SIGKILL');
    expect(await waitGone(service.pid, 15_000)).toBe(true);
    expect(Date.now() - killed).toBeLessThan(15_000);
    // Written before the process exited, the line may still be in the pipe when its pid is gone: wait for it
    // (this rejects with the service's last lines).
    await service.npm.lineMatching((l) => l.includes('The local Kafka broker exited unexpectedly'), 5_000);
    expect(await service.npm.exit(30_000)).not.toBe(0);
  });

  it('should reuse the broker a service killed with kill -9 left running, and consume with it', async () => {
    const s = await setup();
    const first = await start(s);
    process.kill(first.pid, 'SIGKILL');
    await first.npm.exit(30_000);
    expect(processAlive(first.brokerPid)).toBe(true);

    const second = await start(s);
    expect(second.brokerPid).toBe(first.brokerPid);
    expect(indexOf(second, 'left running is reused')).toBeGreaterThan(-1);
    const group = await withLibraryAdmin(`127.0.0.1:${s.brokerPort}`, async (admin) => (await admin.describeGroups({ groups: ['edge-events-ingest'] })).get('edge-events-ingest'));
    expect(group?.state).toMatch(/^stable$/i);
    second.npm.signalGroup('SIGINT');
    expect(await second.npm.exit(30_000)).toBe(0);
    expect(await waitGone(first.brokerPid, 10_000)).toBe(true);
  });

  it('should refuse a second start on the same broker folder while the first service runs, and leave that one alone', async () => {
    const s = await setup();
    const first = await start(s);
    const second = new GroupProcess('npm', ['start'], process.cwd(), s.env);
    try {
      expect(await second.exit(30_000)).not.toBe(0);
    } finally {
      await second.stop();
    }
    expect(second.lines.join('\n')).toContain(`belongs to a service that is running (pid ${first.pid})`);
    expect(processAlive(first.brokerPid)).toBe(true);
    expect(first.npm.running).toBe(true);
    first.npm.signalGroup('SIGINT');
    expect(await first.npm.exit(30_000)).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { AssumedRoleCredentials, roleSessionName, type AssumeRole } from './credentials.js';

const MIN = 60_000;

function fakeSts(lifetimeMs: number, now: () => number) {
  const calls: number[] = [];
  let fail = false;
  const assume: AssumeRole = async () => {
    calls.push(now());
    if (fail) throw new Error('sts down');
    return { accessKeyId: `ASIA${calls.length}`, secretAccessKey: 's', sessionToken: 't', expiration: new Date(now() + lifetimeMs) };
  };
  return { assume, calls, setFail: (f: boolean) => (fail = f) };
}

/** A role whose STS hands out credentials of `lifetimeMs`, on a clock the test moves with `at`. */
function clockedRole(lifetimeMs: number) {
  let t = 0;
  const sts = fakeSts(lifetimeMs, () => t);
  const role = new AssumedRoleCredentials({ roleArn: 'r', externalId: 'acct_x', sessionName: 's', assume: sts.assume, now: () => t });
  return { sts, role, at: (ms: number) => (t = ms) };
}

describe('assumed-role credentials', () => {
  it('should assume the role once and share the cached credentials', async () => {
    const { sts, role, at } = clockedRole(60 * MIN);
    const got = await Promise.all([role.provide(), role.provide(), role.provide()]);
    at(50 * MIN);
    await role.provide();
    expect(sts.calls).toEqual([0]);
    expect(new Set(got.map((c) => c.accessKeyId))).toEqual(new Set(['ASIA1']));
  });

  it('should refresh in the background within five minutes of expiry, serving the old set meanwhile', async () => {
    const { sts, role, at } = clockedRole(60 * MIN);
    await role.provide();
    at(56 * MIN);
    expect((await role.provide()).accessKeyId).toBe('ASIA1');
    await new Promise((r) => setImmediate(r));
    expect((await role.provide()).accessKeyId).toBe('ASIA2');
    expect(sts.calls).toEqual([0, 56 * MIN]);
  });

  it('should refresh short sessions at half their lifetime', async () => {
    const { sts, role, at } = clockedRole(8 * MIN);
    await role.provide();
    at(3 * MIN);
    await role.provide();
    expect(sts.calls).toHaveLength(1);
    at(4 * MIN);
    await role.provide();
    await new Promise((r) => setImmediate(r));
    expect(sts.calls).toHaveLength(2);
  });

  it('should wait for the refresh when the old set is about to expire, and fail when STS fails then', async () => {
    const { sts, role, at } = clockedRole(60 * MIN);
    await role.provide();
    at(59.5 * MIN);
    expect((await role.provide()).accessKeyId).toBe('ASIA2');
    sts.setFail(true);
    at(119.5 * MIN);
    await expect(role.provide()).rejects.toThrow('sts down');
    sts.setFail(false);
    expect((await role.provide()).accessKeyId).toBe('ASIA4');
  });

  it('should make a legal RoleSessionName', () => {
    expect(roleSessionName('host:1/2')).toBe('edge-events-host-1-2');
    expect(roleSessionName('x'.repeat(100))).toHaveLength(64);
  });
});

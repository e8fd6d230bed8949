// Every reader of the config log drops the resources of an account that no longer exists (SECURITY.md
// "Accounts and tenancy"), whatever order the records landed in: one written before the account's
// tombstone that its deletion missed, and one written after it (a replica that raced past its check).
// A write for a deleted account is refused.
import { afterEach, describe, expect, it } from 'vitest';
import { OPERATOR_ACCOUNT_ID } from '../../../src/accounts/account.js';
import { AccountGoneError, ConfigLog, type ConfigChange } from '../../../src/configlog/config-log.js';
import { encodeConfigValue } from '../../../src/configlog/format.js';
import { newId } from '../../../src/ids.js';
import { createTopics, produce, testClient, uniqueName } from '../../support/kafka.js';

const logs: ConfigLog[] = [];
afterEach(async () => {
  await Promise.allSettled(logs.splice(0).map((l) => l.stop()));
});

async function started(topic: string): Promise<ConfigLog> {
  const log = new ConfigLog({ kafka: testClient(), topic });
  logs.push(log);
  await log.start();
  return log;
}

const policy = (accountId: string, description: string) => ({ id: newId('ip_policy'), account_id: accountId, created_at: new Date().toISOString(), description, metadata: '' });

describe('the config log and deleted accounts', () => {
  it("should drop an account's resources with the account, and refuse or drop whatever of it comes after", async () => {
    const topic = `${uniqueName('cfgacct')}.config`;
    await createTopics(testClient(), [{ topic, partitions: 1, compacted: true }]);
    const writer = await started(topic);
    const follower = await started(topic);
    const changes: ConfigChange[] = [];
    follower.onChange((c) => changes.push(c));

    const account = { id: newId('account'), created_at: new Date().toISOString(), description: 'gone', metadata: '' };
    const missed = policy(account.id, 'missed by the deletion');
    const operators = policy(OPERATOR_ACCOUNT_ID, 'the operator keeps its own');
    await writer.write([
      { kind: 'account', id: account.id, data: account },
      { kind: 'ip_policy', id: missed.id, data: missed },
      { kind: 'ip_policy', id: operators.id, data: operators },
    ]);
    await follower.sync();
    expect(follower.get(missed.id)?.data).toEqual(missed);

    // The account's tombstone without the policy's (a deletion that missed it), then a change of the policy
    // and a new one written after the tombstone, as a replica that had not applied the deletion would.
    const late = policy(account.id, 'written after the deletion');
    await produce(testClient(), topic, [
      { key: account.id, value: null, partition: 0 },
      { key: missed.id, value: encodeConfigValue('ip_policy', { ...missed, description: 'changed after' }), partition: 0 },
      { key: late.id, value: encodeConfigValue('ip_policy', late), partition: 0 },
    ]);
    await Promise.all([writer.sync(), follower.sync()]);
    const fresh = await started(topic);
    for (const log of [writer, follower, fresh]) {
      expect([log.get(account.id), log.get(missed.id), log.get(late.id)]).toEqual([undefined, undefined, undefined]);
      expect(log.get(operators.id)?.data).toEqual(operators);
    }
    // The follower was told the policy came and went, as if it had been deleted, and never saw the late one.
    expect(changes.filter((c) => c.id === missed.id || c.id === late.id).map((c) => [c.id, c.before !== undefined, c.after !== undefined])).toEqual([
      [missed.id, false, true],
      [missed.id, true, false],
    ]);

    const refused = await writer.write([{ kind: 'ip_policy', id: late.id, data: late }]).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AccountGoneError);
    expect(refused).toMatchObject({ accountId: account.id, made: false });
  });
});

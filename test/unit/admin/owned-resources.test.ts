// What an account owns: every kind of resource the config log holds but accounts themselves, so deleting an
// account leaves nothing of it behind; and the deletes split into transactions of a size the broker takes.
import { describe, expect, it } from 'vitest';
import { inChunks, ownedResources, type Removal } from '../../../src/admin/accounts/owned-resources.js';
import type { AdminContext } from '../../../src/admin/context.js';
import { CONFIG_KINDS } from '../../../src/configlog/format.js';

const ctx = { uri: (p: string) => `https://api.example${p}` } as unknown as AdminContext;

const removal = (id: string, objectBytes: number): Removal => ({
  write: { kind: 'ip_policy', id, data: null },
  audits: [{ kind: 'ip_policy', action: 'deleted', key: id, object: { id, metadata: 'x'.repeat(objectBytes) } }],
});

describe('owned resources', () => {
  it('should list every kind of resource the config log holds but accounts, each once', () => {
    const kinds = ownedResources(ctx).map((o) => o.resource.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect([...kinds].sort()).toEqual(CONFIG_KINDS.filter((k) => k !== 'account').sort());
  });

  it('should delete the keys first and the subscriptions next, so the account stops acting and receiving at once', () => {
    expect(ownedResources(ctx).map((o) => o.resource.kind).slice(0, 2)).toEqual(['api_key', 'event_subscription']);
  });

  it('should split the deletes in order into transactions of at most 200 resources and about 256 KiB of audit objects', () => {
    const many = Array.from({ length: 450 }, (_, i) => removal(`ipp_${i}`, 10));
    const chunks = inChunks(many);
    expect(chunks.map((c) => c.length)).toEqual([200, 200, 50]);
    expect(chunks.flat()).toEqual(many);
    const large = Array.from({ length: 10 }, (_, i) => removal(`ipp_${i}`, 100_000));
    expect(inChunks(large).map((c) => c.length)).toEqual([2, 2, 2, 2, 2]);
    expect(inChunks([removal('ipp_big', 1_000_000)]).map((c) => c.length)).toEqual([1]);
    expect(inChunks([])).toEqual([]);
  });
});

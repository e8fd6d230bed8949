// The contract every destination kind keeps, run by each kind's own test: its schemas and parse() agree,
// its view matches its response schema and never shows a secret, unknown fields are refused, and its
// writer is of its kind with its limits.
import { randomBytes } from 'node:crypto';
import type { KafkaClient } from '../../src/kafka/seam.js';
import { describe, expect, it } from 'vitest';
import { compileValidator } from '../../src/admin/validation.js';
import type { DestinationKind, WriterDeps } from '../../src/delivery/destination-kind.js';
import { acceptTarget } from '../../src/delivery/destination-target.js';
import { createWriter } from '../../src/delivery/writer-registry.js';
import { openSecrets } from '../../src/delivery/build-writer.js';
import { SecretBox } from '../../src/secrets/secret-box.js';
import { OPERATOR } from '../../src/accounts/account.js';
import { TEST_EGRESS, writerDeps } from './writer-deps.js';

const DEPS: WriterDeps = writerDeps({
  kafkaClient: () => ({ idempotentProducer: () => ({}), admin: () => ({}) }) as unknown as KafkaClient,
  cloud: { assumeRole: () => Promise.reject(new Error('no STS in this test')) },
});

export interface KindExamples {
  /** Objects of the kind as a request sends them (secrets in clear), each valid. */
  readonly valid: readonly Record<string, unknown>[];
  /** Objects the kind refuses, with the problem code and field (relative to the kind's object) of the first problem. */
  readonly invalid: readonly { readonly object: Record<string, unknown>; readonly code: string; readonly field: string }[];
}

function at(root: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown> | undefined)?.[p], root);
}

export function describeKindContract(kind: DestinationKind, examples: KindExamples): void {
  const box = new SecretBox(randomBytes(32));
  const request = compileValidator({ schema: kind.schema.request, httpPart: 'body' });
  const response = compileValidator({ schema: kind.schema.response, httpPart: 'body' });
  const prefix = `target.${kind.name}`;

  describe(`the ${kind.name} kind's contract`, () => {
    it('should accept every valid example in its request schema and in parse()', () => {
      for (const object of examples.valid) {
        expect(request(object), JSON.stringify(request.errors)).toBe(true);
        expect(kind.parse(object, prefix, OPERATOR)).toMatchObject({ ok: true });
      }
    });

    it('should refuse every invalid example with the code and field given, first', () => {
      for (const { object, code, field } of examples.invalid) {
        const r = acceptTarget({ [kind.name]: object }, { seal: (s) => box.seal(s), account: OPERATOR, egress: TEST_EGRESS });
        expect(r.ok ? undefined : [r.problem.code, r.problem.field], JSON.stringify(object)).toEqual([code, `${prefix}.${field}`]);
      }
    });

    it('should refuse in its request schema every invalid example but those of a rule it states beyond the schema', () => {
      // What parse() refuses and the schema takes would be a schema-valid request refused for no stated rule.
      const beyond = new Set((kind.rules ?? []).map((r) => r.code));
      for (const { object, code } of examples.invalid) {
        if (!beyond.has(code as never)) expect(request(object), JSON.stringify(object)).toBe(false);
      }
    });

    it('should refuse an unknown field in its request schema and in parse()', () => {
      const object = { ...examples.valid[0], no_such_field: 1 };
      expect(request(object)).toBe(false);
      const r = kind.parse(object, prefix, OPERATOR);
      expect(r.ok ? [] : r.problems.map((p) => [p.code, p.field])).toContainEqual(['unknown_field', `${prefix}.no_such_field`]);
    });

    it('should answer a view that fits its response schema and holds no secret', () => {
      for (const object of examples.valid) {
        const accepted = acceptTarget({ [kind.name]: object }, { seal: (s) => box.seal(s), account: OPERATOR, egress: TEST_EGRESS });
        if (!accepted.ok) throw new Error(accepted.problem.message);
        const view = kind.view(accepted.target[kind.name] as Record<string, unknown>, { ...DEPS, account: OPERATOR });
        expect(response(view), JSON.stringify(response.errors)).toBe(true);
        const text = JSON.stringify(view);
        expect(text).not.toContain('_enc');
        for (const secret of kind.secrets) {
          const clear = at(object, secret.path);
          // Where the view shows the secret's object, the secret itself is null.
          if (typeof clear === 'string') expect(at(view, secret.path), secret.path).toBeNull();
          if (typeof clear === 'string' && clear !== '') {
            expect(text).not.toContain(clear);
            expect(JSON.stringify(accepted.target)).not.toContain(clear);
          }
        }
      }
    });

    it('should build a writer of its kind, with its limits, from the stored target', async () => {
      for (const object of examples.valid) {
        const accepted = acceptTarget({ [kind.name]: object }, { seal: (s) => box.seal(s), account: OPERATOR, egress: TEST_EGRESS });
        if (!accepted.ok) throw new Error(accepted.problem.message);
        const writer = createWriter(openSecrets(accepted.target, box) as Record<string, unknown>, DEPS, OPERATOR);
        expect(writer.kind).toBe(kind.name);
        // A destination may set smaller batches of its own (object_store's upload limits), never larger ones.
        const { maxRecords, maxBytes, maxRecordBytes, recordOverheadBytes } = writer.limits;
        expect(recordOverheadBytes).toBe(kind.limits.recordOverheadBytes);
        for (const [name, value] of Object.entries({ maxRecords, maxBytes, maxRecordBytes })) expect(value, name).toBeLessThanOrEqual(kind.limits[name as 'maxRecords']);
        await writer.close();
      }
    });
  });
}

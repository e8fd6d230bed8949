// What holds across the registry of destination kinds: unique names, and every secret field redacted
// from logs wherever a target is logged.
import { describe, expect, it } from 'vitest';
import { DESTINATION_KINDS } from '../../../src/delivery/destinations/kinds.js';
import { REDACTED_PATHS } from '../../../src/telemetry/logger.js';

describe('destination kinds', () => {
  it('should have unique names that are target keys', () => {
    const names = DESTINATION_KINDS.map((k) => k.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z][a-z_]*$/);
  });

  it('should have every secret field redacted by the logger, alone and inside a logged target', () => {
    for (const kind of DESTINATION_KINDS) {
      for (const secret of kind.secrets) {
        const leaf = secret.path.split('.').pop() as string;
        expect(REDACTED_PATHS, `${kind.name}.${secret.path}`).toContain(leaf);
        expect(REDACTED_PATHS, `${kind.name}.${secret.path}`).toContain(`*.${leaf}`);
      }
    }
  });
});

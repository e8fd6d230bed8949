import { describe, expect, it } from 'vitest';
import { baseFields, resourceSchemas } from '../../../src/admin/resource-fields.js';

describe('resource field tables', () => {
  const schemas = resourceSchemas({
    ...baseFields('ip_policy_rule'),
    cidr: { request: { type: 'string', minLength: 1 }, response: { type: 'string' }, required: true },
    action: { request: { type: 'string', enum: ['allow', 'deny'] }, response: { type: 'string' }, required: true, immutable: true },
    secret: { request: { type: 'string' }, update: { type: ['string', 'null'] }, response: { type: 'null' } },
    flag: { request: { type: 'boolean' } },
    status: { response: { type: 'string' } },
  });
  const props = (s: Record<string, unknown>) => s.properties as Record<string, Record<string, unknown>>;

  it('should give a create body with every field a request sends, the required ones required, and nothing else', () => {
    expect(Object.keys(props(schemas.create))).toEqual(['description', 'metadata', 'cidr', 'action', 'secret', 'flag']);
    expect(schemas.create).toMatchObject({ additionalProperties: false, required: ['cidr', 'action'] });
  });

  it('should leave a field fixed at creation out of the update body, and list it as immutable', () => {
    expect(Object.keys(props(schemas.update))).toEqual(['description', 'metadata', 'cidr', 'secret', 'flag']);
    expect(schemas.update).not.toHaveProperty('required');
    expect(props(schemas.update).secret).toEqual({ type: ['string', 'null'] });
    expect(schemas.immutable).toEqual(['action']);
  });

  it('should answer every response field, in the table order, the ones only the service sets marked read-only', () => {
    expect(Object.keys(props(schemas.response))).toEqual(['id', 'uri', 'account_id', 'created_at', 'description', 'metadata', 'cidr', 'action', 'secret', 'status']);
    expect(schemas.response.required).toEqual(Object.keys(props(schemas.response)));
    expect(props(schemas.response).id).toMatchObject({ readOnly: true, pattern: '^ipr_[0-9A-HJKMNP-TV-Z]{26}$' });
    expect(props(schemas.response).status).toMatchObject({ readOnly: true });
    expect(props(schemas.response).account_id).toMatchObject({ readOnly: true, pattern: '^acct_[0-9A-HJKMNP-TV-Z]{26}$' });
    expect(props(schemas.response).cidr).not.toHaveProperty('readOnly');
  });
});

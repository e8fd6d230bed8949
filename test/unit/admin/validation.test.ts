import { describe, expect, it } from 'vitest';
import { compileValidator, fieldPath, validationError } from '../../../src/admin/validation.js';

const body = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', maxLength: 3 },
    ids: { type: 'array', maxItems: 2, items: { type: 'string' } },
    target: { type: 'object', additionalProperties: false, properties: { url: { type: 'string' } } },
  },
};

function errorFor(value: unknown, part = 'body') {
  const validate = compileValidator({ schema: part === 'body' ? body : { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1 } } }, httpPart: part });
  expect(validate(value)).toBe(false);
  return validationError(validate.errors ?? [], part).toBody();
}

describe('admin request validation', () => {
  it('fieldPath should write nested fields with dots and array indices with brackets', () => {
    expect(fieldPath('/target/http/url')).toBe('target.http.url');
    expect(fieldPath('/ip_policy_ids/2')).toBe('ip_policy_ids[2]');
    expect(fieldPath('/sources/0', 'filter')).toBe('sources[0].filter');
    expect(fieldPath('')).toBe('');
  });

  it('an unknown body field should be rejected as unknown_field naming its path, not dropped', () => {
    const value = { name: 'a', target: { url: 'x', extra: 1 } };
    expect(errorFor(value)).toMatchObject({ error_code: 'unknown_field', status_code: 400, details: { field: 'target.extra' } });
    expect(value.target).toHaveProperty('extra', 1);
  });

  it('a missing required field should be invalid_body naming the field', () => {
    expect(errorFor({})).toMatchObject({ error_code: 'invalid_body', details: { field: 'name', reason: 'is required' } });
  });

  it('a body of the wrong type should not be coerced', () => {
    expect(errorFor({ name: 5 })).toMatchObject({ error_code: 'invalid_body', details: { field: 'name' } });
  });

  it('a string over maxLength should be field_too_long in characters', () => {
    expect(errorFor({ name: 'abcd' })).toMatchObject({ error_code: 'field_too_long', details: { field: 'name', limit: 3, actual: 4, unit: 'characters' } });
  });

  it('a list over maxItems should be too_many_items', () => {
    expect(errorFor({ name: 'a', ids: ['1', '2', '3'] })).toMatchObject({ error_code: 'too_many_items', details: { field: 'ids', limit: 2, actual: 3 } });
  });

  it('a bad query parameter should be invalid_parameter with its location', () => {
    expect(errorFor({ limit: '0' }, 'querystring')).toMatchObject({
      error_code: 'invalid_parameter',
      details: { location: 'querystring', field: 'limit' },
    });
  });

  it('query parameters should be coerced from text', () => {
    const validate = compileValidator({ schema: { type: 'object', properties: { limit: { type: 'integer' } } }, httpPart: 'querystring' });
    const q: Record<string, unknown> = { limit: '7' };
    expect(validate(q)).toBe(true);
    expect(q.limit).toBe(7);
  });
});

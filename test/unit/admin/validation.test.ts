import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../../../src/accounts/account.js';
import { ApiError } from '../../../src/admin/errors.js';
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

describe('admin request validation: naming the problem', () => {
  const idKind = { type: 'string', pattern: '^ipp_[0-9]{3}$', 'x-error': { code: 'invalid_id', kind: 'IP policy' } };
  const schema = {
    type: 'object',
    additionalProperties: false,
    properties: {
      policy: idKind,
      url: { type: 'string', pattern: '^https://', 'x-error': { code: 'invalid_body', reason: 'must be an https URL' } },
      colour: { type: 'string', enum: ['red', 'green'] },
      size: { type: 'string', enum: Array.from({ length: 20 }, (_, i) => `s${i}`) },
      tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
      shape: {
        oneOf: [
          { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string' }, round: { type: 'boolean' } } },
          { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string' }, sides: { type: 'integer' } } },
        ],
      },
    },
  };
  const validate = compileValidator({ schema, httpPart: 'body' });
  const errorOf = (value: unknown, hints = {}) => {
    expect(validate(value)).toBe(false);
    return validationError(validate.errors ?? [], 'body', { body: value, ...hints }).toBody();
  };

  it('a value that breaks a schema marked x-error should get that code, with the value where the code names it', () => {
    expect(errorOf({ policy: 'ipp_x' })).toMatchObject({ error_code: 'invalid_id', details: { field: 'policy', kind: 'IP policy', value: 'ipp_x' } });
  });

  it('an x-error with a reason should not echo the value, which may hold a credential', () => {
    const body = errorOf({ url: 'http://user:pw@example.com' });
    expect(body).toMatchObject({ error_code: 'invalid_body', details: { field: 'url', reason: 'must be an https URL' } });
    expect(JSON.stringify(body)).not.toContain('pw@');
  });

  it('a value outside an enum should name the allowed values, in the message when they are few', () => {
    expect(errorOf({ colour: 'blue' })).toMatchObject({ msg: 'The field colour must be one of red, green.', details: { allowed: ['red', 'green'] } });
    const many = errorOf({ size: 'huge' });
    expect(many.msg).toBe('The field size must be one of the 20 values listed in details.allowed.');
    expect(many.details.allowed).toHaveLength(20);
  });

  it('a repeated list entry should be duplicate_value naming the repeat', () => {
    expect(errorOf({ tags: ['a', 'b', 'a'] })).toMatchObject({ error_code: 'duplicate_value', details: { field: 'tags[2]', value: 'a' } });
  });

  it('a field fixed at creation should be immutable_field on an update, not unknown_field', () => {
    const update = compileValidator({ schema: { type: 'object', additionalProperties: false, properties: { description: { type: 'string' } } }, httpPart: 'body' });
    expect(update({ action: 'deny' })).toBe(false);
    const e = validationError(update.errors ?? [], 'body', { immutable: { fields: ['action'], resource: 'IP policy rule' } }).toBody();
    expect(e).toMatchObject({ error_code: 'immutable_field', details: { field: 'action', resource: 'IP policy rule' } });
    expect(e.msg).toContain('delete the IP policy rule');
  });

  it('a oneOf every branch of which fails alike should name that problem; one whose branches fail in different ways, the oneOf', () => {
    expect(errorOf({ shape: {} })).toMatchObject({ error_code: 'invalid_body', details: { field: 'shape.name', reason: 'is required' } });
    expect(errorOf({ shape: { name: 'x', corners: 3 } })).toMatchObject({ error_code: 'unknown_field', details: { field: 'shape.corners' } });
    expect(errorOf({ shape: { name: 'x', round: 'yes' } })).toMatchObject({ error_code: 'invalid_body', details: { field: 'shape' } });
  });

  it("a route's explanation should name the problem when it sees one, and be passed over when it sees none or fails", () => {
    const explain = (body: unknown, at: string) => (at.startsWith('/shape') ? new ApiError('invalid_target_kind', { field: 'shape', kinds: 'round, sides', reason: 'it sets both' }) : undefined);
    expect(errorOf({ shape: { name: 'x', corners: 3 } }, { explain, account: OPERATOR })).toMatchObject({ error_code: 'invalid_target_kind' });
    expect(errorOf({ colour: 'blue' }, { explain, account: OPERATOR })).toMatchObject({ error_code: 'invalid_body', details: { field: 'colour' } });
    const throws = () => {
      throw new Error('the explanation tripped over the body');
    };
    expect(errorOf({ shape: {} }, { explain: throws, account: OPERATOR })).toMatchObject({ error_code: 'invalid_body', details: { field: 'shape.name' } });
  });

  it('a body with several problems should answer the first as before and list every one in details.problems, each with its path, code and message', () => {
    const got = errorOf({ policy: 'nope', colour: 'blue', tags: ['a', 'a'], shape: { name: 'x', round: 'yes' }, extra: 1 });
    // The first, as the API answered before it listed them all.
    expect(got).toMatchObject({ error_code: 'unknown_field', details: { field: 'extra' } });
    const problems = got.details.problems as { path: string; code: string; message: string }[];
    expect(problems.map((p) => [p.path, p.code])).toEqual([
      ['extra', 'unknown_field'],
      ['policy', 'invalid_id'],
      ['colour', 'invalid_body'],
      ['tags[1]', 'duplicate_value'],
      ['shape', 'invalid_body'],
    ]);
    expect(problems[0]?.message).toBe(got.msg);
    expect(problems[2]?.message).toBe('The field colour must be one of red, green.');
  });

  it("a route's explanation of a part should list that part's problems in place of its schema errors", () => {
    const both = ApiError.all([
      new ApiError('invalid_body', { field: 'shape.name', reason: 'is too plain' }),
      new ApiError('invalid_body', { field: 'shape.round', reason: 'must be yes or no' }),
    ]);
    const explain = (_body: unknown, at: string) => (at.startsWith('/shape') ? both : undefined);
    const got = errorOf({ colour: 'blue', shape: { name: 'x', round: 'yes', corners: 3 } }, { explain, account: OPERATOR });
    expect(got).toMatchObject({ error_code: 'invalid_body', details: { field: 'colour' } });
    expect((got.details.problems as { path: string }[]).map((p) => p.path)).toEqual(['colour', 'shape.name', 'shape.round']);
  });

  it('a malformed id in a path should be not_found naming the resource and the id, as an unknown one is', () => {
    const params = compileValidator({ schema: { type: 'object', properties: { id: { ...idKind, 'x-error': { code: 'not_found', resource: 'IP policy' } } } }, httpPart: 'params' });
    expect(params({ id: 'nope' })).toBe(false);
    expect(validationError(params.errors ?? [], 'params').toBody()).toMatchObject({ error_code: 'not_found', status_code: 404, details: { resource: 'IP policy', id: 'nope' } });
  });
});

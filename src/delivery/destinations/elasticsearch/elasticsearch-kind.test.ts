import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../../../accounts/account.js';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { indexFor } from './config.js';
import { elasticsearchKind } from './elasticsearch-kind.js';
import { authorizationOf } from './elasticsearch-writer.js';

describe('elasticsearch kind', () => {
  describeKindContract(elasticsearchKind, {
    valid: [
      { url: 'https://search.example:9243', index: 'edge-{event_type}-{date}' },
      { url: 'https://search.example', index: 'logs-edge', data_stream: true, pipeline: 'geoip', auth: { basic: { username: 'edge', password: 'a-password' } } },
      { url: 'https://search.example', index: 'events', auth: { api_key: { id: 'VuaCfGcBCdbkQm-e5aOx', api_key: 'ui2lp2axTNmsyakw9tvNnw' } } },
    ],
    invalid: [
      { object: { index: 'x' }, code: 'invalid_body', field: 'url' },
      { object: { url: 'ftp://search.example', index: 'x' }, code: 'invalid_body', field: 'url' },
      { object: { url: 'https://search.example' }, code: 'invalid_body', field: 'index' },
      { object: { url: 'https://search.example', index: 'Upper' }, code: 'invalid_body', field: 'index' },
      { object: { url: 'https://search.example', index: 'a{hour}' }, code: 'invalid_body', field: 'index' },
      { object: { url: 'https://search.example', index: '_hidden' }, code: 'invalid_body', field: 'index' },
      { object: { url: 'https://search.example', index: 'x', pipeline: 'a b' }, code: 'invalid_body', field: 'pipeline' },
      { object: { url: 'https://search.example', index: 'x', ca_pem: '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----' }, code: 'invalid_body', field: 'ca_pem' },
      { object: { url: 'https://search.example', index: 'x', auth: { basic: { username: 'u', password: 'p' }, api_key: { id: 'i', api_key: 'k' } } }, code: 'invalid_body', field: 'auth' },
    ],
  });

  it('should answer the auth without its secret and unset options as null', () => {
    const view = elasticsearchKind.view({ url: 'https://s.example', index: 'x', auth: { basic: { username: 'edge', password_enc: 'v1.x' } } }, { fileRoot: '.', account: OPERATOR });
    expect(view).toEqual({ url: 'https://s.example', auth: { basic: { username: 'edge', password: null } }, index: 'x', pipeline: null, data_stream: null, ca_pem: null });
  });

  it('should fill {date} with the event day as YYYY.MM.DD and {event_type} with its type', () => {
    expect(indexFor('e-{event_type}-{date}', 'http_request_complete.v0', Date.UTC(2026, 0, 9, 23, 59))).toBe('e-http_request_complete.v0-2026.01.09');
  });

  it('should sign in with Basic or with ApiKey base64(id:api_key), as Elasticsearch documents', () => {
    expect(authorizationOf({ url: 'https://s', index: 'x', dataStream: false, auth: { basic: { username: 'u', password: 'p' } } })).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(authorizationOf({ url: 'https://s', index: 'x', dataStream: false, auth: { api_key: { id: 'i', api_key: 'k' } } })).toBe(`ApiKey ${Buffer.from('i:k').toString('base64')}`);
  });
});

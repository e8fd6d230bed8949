import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../../../accounts/account.js';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { splitConcatenated } from '../../../../test/support/splunk-hec-receiver.js';
import { splunkHecKind } from './splunk-hec-kind.js';
import { HEC_CODES } from './hec-codes.js';

describe('splunk_hec kind', () => {
  describeKindContract(splunkHecKind, {
    valid: [
      { url: 'https://http-inputs-acme.splunkcloud.com', token: '11111111-2222-3333-4444-555555555555' },
      { url: 'https://splunk.example:8088', token: 'a-token-of-the-collector', index: 'edge_events', source: 'edge', sourcetype: '_json', host: 'edge-1', ack: true, channel: '0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba' },
    ],
    invalid: [
      { object: { token: 't' }, code: 'invalid_body', field: 'url' },
      { object: { url: 'https://splunk.example' }, code: 'secret_required', field: 'token' },
      { object: { url: 'https://splunk.example', token: 't', index: 'Main' }, code: 'invalid_body', field: 'index' },
      { object: { url: 'https://splunk.example', token: 't', channel: 'not-a-guid' }, code: 'invalid_body', field: 'channel' },
      { object: { url: 'https://splunk.example', token: 't', ack: 'yes' }, code: 'invalid_body', field: 'ack' },
      { object: { url: 'https://splunk.example', token: 't', source: '' }, code: 'invalid_body', field: 'source' },
    ],
  });

  it('should answer the token as null and unset options as null', () => {
    expect(splunkHecKind.view({ url: 'https://s.example', token_enc: 'v1.x' }, { fileRoot: '.', account: OPERATOR })).toEqual({
      url: 'https://s.example', token: null, index: null, source: null, sourcetype: null, host: null, ack: null, channel: null, ca_pem: null,
    });
  });

  it('should count 0 and the health endpoint\'s 17 as success and every other documented code as a failure', () => {
    const successes = Object.entries(HEC_CODES).filter(([, c]) => c.error === undefined).map(([n]) => Number(n));
    expect(successes).toEqual([0, 17]);
    expect(HEC_CODES[4]?.error).toBe('DESTINATION_AUTH_FAILED');
    expect(HEC_CODES[6]?.error).toBe('DESTINATION_REJECTED');
    expect(HEC_CODES[9]?.error).toBe('DESTINATION_THROTTLED');
  });

  it('should have a contract receiver that reads concatenated objects and names the first unreadable one', () => {
    expect(splitConcatenated('{"event":"a}"} {"event":{"b":1}}\n')).toEqual([{ event: 'a}' }, { event: { b: 1 } }]);
    expect(() => splitConcatenated('{"event":1}{"event":')).toThrow(expect.objectContaining({ eventNumber: 1 }));
  });
});

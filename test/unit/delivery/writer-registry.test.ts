import type { KafkaClient } from '../../../src/kafka/seam.js';
import { describe, expect, it } from 'vitest';
import { DESTINATION_KINDS, createWriter, validateTarget } from '../../../src/delivery/writer-registry.js';
import type { WriterDeps } from '../../../src/delivery/destination-kind.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import { writerDeps } from '../../support/writer-deps.js';

const deps: WriterDeps = writerDeps({ kafkaClient: () => ({ idempotentProducer: () => ({}) }) as unknown as KafkaClient });

describe('writer registry', () => {
  it('should know every kind this build lists: kafka, http, file, the object stores, the vendors\' and the three cloud kinds', () => {
    expect([...DESTINATION_KINDS].sort()).toEqual(['azure_blob', 'azure_logs_ingestion', 'data_stream', 'datadog', 'delivery_stream', 'elasticsearch', 'file', 'gcs', 'http', 'kafka', 'log_service', 'object_store', 'splunk_hec']);
    expect(createWriter({ kafka: { topic: 't' } }, deps, OPERATOR).kind).toBe('kafka');
    expect(createWriter({ http: { url: 'http://127.0.0.1:1/' } }, deps, OPERATOR).kind).toBe('http');
    expect(createWriter({ file: { path: 'e.ndjson' } }, deps, OPERATOR).kind).toBe('file');
    const auth = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01', cloud_secret_access_key: 's' } };
    expect(createWriter({ data_stream: { auth, stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/s' } }, deps, OPERATOR).kind).toBe('data_stream');
    expect(createWriter({ object_store: { auth, bucket: 'logs' } }, deps, OPERATOR).kind).toBe('object_store');
    expect(createWriter({ elasticsearch: { url: 'https://search.example', index: 'events' } }, deps, OPERATOR).kind).toBe('elasticsearch');
    expect(createWriter({ splunk_hec: { url: 'https://splunk.example', token: 't' } }, deps, OPERATOR).kind).toBe('splunk_hec');
    expect(createWriter({ datadog: { api_key: '0123456789abcdef0123456789abcdef' } }, deps, OPERATOR).kind).toBe('datadog');
  });

  it('should hand a kafka target its own brokers, or none for the service cluster', () => {
    const asked: Array<readonly string[] | undefined> = [];
    const recording: WriterDeps = { ...deps, kafkaClient: (b) => (asked.push(b), deps.kafkaClient(b)) };
    createWriter({ kafka: { topic: 't' } }, recording, OPERATOR);
    createWriter({ kafka: { topic: 't', brokers: ['other:9092'] } }, recording, OPERATOR);
    expect(asked).toEqual([undefined, ['other:9092']]);
  });

  it('should require exactly one known kind', () => {
    expect(validateTarget({}, OPERATOR)).toHaveLength(1);
    expect(validateTarget({ http: { url: 'http://x/' }, file: { path: 'a' } }, OPERATOR)).toHaveLength(1);
    expect(validateTarget({ carrier_pigeon: {} }, OPERATOR)[0]?.field).toBe('target.carrier_pigeon');
    expect(() => createWriter({ carrier_pigeon: {} }, deps, OPERATOR)).toThrow(expect.objectContaining({ code: 'UNKNOWN_DESTINATION_KIND' }));
    expect(() => createWriter({ http: { url: 'http://x/' }, file: { path: 'a' } }, deps, OPERATOR)).toThrow(expect.objectContaining({ code: 'INVALID_DESTINATION_CONFIG' }));
  });

  it('should collect every problem of a target before refusing it', () => {
    expect(validateTarget({ file: { path: '../escape', mode: 'x' } }, OPERATOR).map((p) => p.field)).toEqual(['target.file.mode', 'target.file.path']);
    expect(() => createWriter({ file: { path: '/abs' } }, deps, OPERATOR)).toThrow(expect.objectContaining({ code: 'INVALID_DESTINATION_CONFIG' }));
    expect(() => createWriter({ kafka: { topic: 'bad topic', key: '..' } }, deps, OPERATOR)).toThrow(/target\.kafka\.topic .*target\.kafka\.key/);
  });
});

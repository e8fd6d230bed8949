// A config log writer that gets stuck inside a transaction, for the writer tests to kill: it writes a
// resource together with a record for a topic that does not exist, so the transaction stays open
// (the resource appended, not committed) while the client waits for that topic.
// Environment: BROKERS, CONFIG_TOPIC, WRITER_ID, MISSING_TOPIC.
import { ConfigLog } from '../../../src/configlog/config-log.js';
import { createClient, isKafkaClientName } from '../../../src/kafka/client.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is not set`);
  return v;
};
const name = process.env.KAFKA_CLIENT ?? '';
const kafka = createClient({ clientId: 'stuck-writer', brokers: env('BROKERS'), ...(isKafkaClientName(name) && { name }) });
const log = new ConfigLog({ kafka, topic: env('CONFIG_TOPIC'), writerId: env('WRITER_ID') });
await log.start();
process.stdout.write('started\n');
const stuck = { id: 'ed_01JSTUCK000000000000000000', created_at: new Date().toISOString(), description: 'stuck', metadata: '', format: 'json', target: { http: { url: 'https://example.com/' } } };
await log.write([{ id: stuck.id, kind: 'event_destination', data: stuck }], [{ topic: env('MISSING_TOPIC'), messages: [{ key: 'k', value: 'v' }] }]);
process.stdout.write('the write ended\n');

// Where a worker's or a copy's time goes along the Kafka client's path, from a .cpuprofile:
// `npx tsx bench/profile/client-path.ts <file.cpuprofile>...` (profile-worker.ts prints it for its own run).
import { fileURLToPath } from 'node:url';
import { partShares, partsTable, type PartRule } from './top-frames.js';

/**
 * The parts of a record's way through @platformatic/kafka, the service's adapter of it and the service
 * (partShares: the innermost frame a rule names takes the sample). Helpers are named by no rule, so
 * their time counts for their caller: the client's byte buffers, readers and writers, and the service's
 * decoders, matchers and projections (under the route).
 */
export const CLIENT_PATH: readonly PartRule[] = [
  { part: 'adapter: consumer (records into partition batches)', file: 'src/kafka/platformatic/platformatic-consumer' },
  { part: 'adapter: consumer (fetch answers parsed into messages)', file: 'src/kafka/platformatic/fetch-response' },
  { part: 'adapter: consumer (records into partition batches)', file: 'src/kafka/platformatic/fetched-records' },
  { part: 'adapter: read-committed filter of fetch answers', file: 'src/kafka/platformatic/read-committed' },
  { part: 'adapter: partitioner', file: 'src/kafka/platformatic/java-partitioner' },
  { part: 'adapter: producer (Produce requests encoded)', file: 'src/kafka/platformatic/produce-request' },
  { part: 'adapter: producer', file: 'src/kafka/platformatic/' },
  { part: 'client consume: per message a spread record, diagnostics, a bound commit, headers, a stream push', file: 'clients/consumer/messages-stream.js', fn: /pushRecords/ },
  { part: 'client consume: record batches parsed', file: 'protocol/records.js', fn: /^read/ },
  { part: 'client consume: fetch answers parsed', file: 'apis/consumer/fetch' },
  { part: 'client consume: fetch loop and offsets', file: 'clients/consumer/' },
  { part: 'client produce: records encoded (a Writer per record, CRC, copies)', file: 'protocol/records.js' },
  { part: 'client produce: records encoded (a Writer per record, CRC, copies)', file: 'protocol/crc32c.js' },
  { part: 'client produce: records encoded (a Writer per record, CRC, copies)', file: 'apis/producer/produce' },
  { part: 'client produce: option validation', file: 'clients/base/base.js', fn: /validateOptions/ },
  { part: 'client produce: send (per message two maps, partition, sequences, grouping)', file: 'clients/producer/' },
  { part: 'client: socket data gathered into answers', file: 'network/connection.js', fn: /onData/ },
  { part: 'client: requests framed and written', file: 'network/connection.js' },
  { part: 'client: other (metadata, retries, diagnostics)', file: '@platformatic/kafka/dist/clients/' },
  { part: 'client: other (metadata, retries, diagnostics)', file: '@platformatic/kafka/dist/diagnostic' },
  { part: 'client: other (metadata, retries, diagnostics)', file: '@platformatic/kafka/dist/network/' },
  { part: 'service: route (decode, match, project, ids)', file: 'src/ingest/record-router' },
  { part: 'service: ingest worker, tracker', file: 'src/ingest/' },
  { part: 'service: delivery (runners, kafka writer)', file: 'src/delivery/' },
  { part: 'service: kafka seam (commit timer, lazy producer)', file: 'src/kafka/' },
  { part: 'passthrough script', file: '/bench/e2e/' },
  { part: 'start-up (loading modules, compiling schemas and filters)', file: 'node:internal/modules/' },
  { part: 'start-up (loading modules, compiling schemas and filters)', file: '/tsx/dist/' },
  { part: 'start-up (loading modules, compiling schemas and filters)', file: '/ajv/dist/' },
  { part: 'start-up (loading modules, compiling schemas and filters)', file: '/@bufbuild/cel/' },
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const file of process.argv.slice(2)) process.stdout.write(`${file}\n\n${partsTable(partShares(file, CLIENT_PATH))}\n\n`);
}

// The destination kinds this build knows, in the order the API lists them: the one place that names
// them all. Each kind is its own folder here; to add one, see ARCHITECTURE.md "Add a destination kind".
import type { DestinationKind } from '../destination-kind.js';
import { azureBlobKind } from './azure-blob/azure-blob-kind.js';
import { azureLogsIngestionKind } from './azure-logs-ingestion/azure-logs-ingestion-kind.js';
import { dataStreamKind } from './data-stream/data-stream-kind.js';
import { datadogKind } from './datadog/datadog-kind.js';
import { deliveryStreamKind } from './delivery-stream/delivery-stream-kind.js';
import { elasticsearchKind } from './elasticsearch/elasticsearch-kind.js';
import { fileKind } from './file/file-kind.js';
import { gcsKind } from './gcs/gcs-kind.js';
import { httpKind } from './http/http-kind.js';
import { kafkaKind } from './kafka/kafka-kind.js';
import { logServiceKind } from './log-service/log-service-kind.js';
import { objectStoreKind } from './object-store/object-store-kind.js';
import { splunkHecKind } from './splunk-hec/splunk-hec-kind.js';

export const DESTINATION_KINDS: readonly DestinationKind[] = [
  deliveryStreamKind,
  dataStreamKind,
  logServiceKind,
  datadogKind,
  azureLogsIngestionKind,
  objectStoreKind,
  azureBlobKind,
  gcsKind,
  splunkHecKind,
  elasticsearchKind,
  kafkaKind,
  httpKind,
  fileKind,
];

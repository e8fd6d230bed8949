// The azure_logs_ingestion destination kind: each event one row of a data collection rule's stream in Azure
// Monitor Logs, through the Logs Ingestion API, as an app registration (README.md here).
import { problem, type ConfigProblem } from '../../destination-config.js';
import type { DestinationKind } from '../../destination-kind.js';
import { hostRefusal } from '../../egress-guard.js';
import { toDeliveryError, type DeliveryError } from '../../errors.js';
import { AZURE_LOGS_INGESTION_RULES, AZURE_LOGS_INGESTION_SCHEMA, parseAzureLogsIngestion, type AzureLogsIngestionConfig } from './config.js';
import type { EntraRefusal } from '../azure/entra-token.js';
import { AZURE_LOGS_INGESTION_LIMITS, AzureLogsIngestionWriter, type AzureRefusal } from './azure-logs-ingestion-writer.js';

const P = 'target.azure_logs_ingestion';

export const azureLogsIngestionKind: DestinationKind<AzureLogsIngestionConfig> = {
  name: 'azure_logs_ingestion',
  schema: AZURE_LOGS_INGESTION_SCHEMA,
  rules: AZURE_LOGS_INGESTION_RULES,
  // A new secret replaces the stored one; an update that leaves it out keeps it while client_id stays.
  secrets: [{ path: 'client_secret', required: true, removable: false, keptWhileSame: 'client_id' }],
  limits: AZURE_LOGS_INGESTION_LIMITS,
  parse: parseAzureLogsIngestion,
  view: (stored) => ({
    tenant_id: stored.tenant_id,
    client_id: stored.client_id,
    client_secret: null,
    logs_ingestion_uri: stored.logs_ingestion_uri,
    data_collection_rule_id: stored.data_collection_rule_id,
    data_collection_stream_name: stored.data_collection_stream_name,
  }),
  createWriter: (config, deps) => new AzureLogsIngestionWriter(config, { egress: deps.egress, resolveHost: deps.resolveHost, authorityUrl: deps.azure?.authorityUrl }),
  async verify(config, deps) {
    const writer = new AzureLogsIngestionWriter(config, { egress: deps.egress, resolveHost: deps.resolveHost, authorityUrl: deps.azure?.authorityUrl });
    try {
      try {
        await writer.connect();
      } catch (err) {
        return [tokenProblem(toDeliveryError(err))];
      }
      await writer.healthcheck();
      return [];
    } catch (err) {
      return [ingestionProblem(toDeliveryError(err))];
    } finally {
      await writer.close();
    }
  },
  // guard: a host name is refused when any of its addresses is (an IP literal was judged by parse()).
  async guard(config, deps) {
    const host = new URL(config.endpoint).hostname;
    const why = await hostRefusal(host, deps);
    return why === undefined ? [] : [problem.egress('internal_address', `${P}.logs_ingestion_uri`, `its host ${host} resolves to an address destinations may not reach: ${why}`, { host })];
  },
};

/** Entra ID gave no token: the field at fault from its AADSTS code, Entra ID's error as the error. */
function tokenProblem(e: DeliveryError): ConfigProblem {
  const refusal = e.cause as Partial<EntraRefusal> | undefined;
  const aadsts = refusal?.aadsts;
  const field = aadsts === 90002 ? 'tenant_id' : aadsts === 700016 ? 'client_id' : e.code === 'DESTINATION_AUTH_FAILED' ? 'client_secret' : 'tenant_id';
  const error = refusal?.error === undefined ? e.code : aadsts === undefined ? refusal.error : `${refusal.error} (AADSTS${aadsts})`;
  return problem.checkFailed(`${P}.${field}`, error, e.message, e.code);
}

/** The upload refused: the field at fault from the answer, Azure's error code as the error. */
function ingestionProblem(e: DeliveryError): ConfigProblem {
  if (e.code === 'DESTINATION_ADDRESS_REFUSED') return problem.egress('internal_address', `${P}.logs_ingestion_uri`, e.message.replace(/\.$/, ''));
  const code = (e.cause as Partial<AzureRefusal> | undefined)?.error;
  const field = code === 'InvalidStream' ? 'data_collection_stream_name' : e.status === 404 ? 'data_collection_rule_id' : e.status === 401 || e.status === 403 ? 'client_id' : 'logs_ingestion_uri';
  return problem.checkFailed(`${P}.${field}`, code ?? e.code, e.message, e.code);
}

// The azure_blob destination kind: batches of events as block blobs in an Azure Storage container
// (README.md here). The batching, names and check object are every object store kind's (../objects/).
import type { DestinationKind } from '../../destination-kind.js';
import { hostRefusal } from '../../egress-guard.js';
import { problem } from '../../destination-config.js';
import { OBJECT_LIMITS } from '../objects/object-batches.js';
import { layoutView } from '../objects/object-layout.js';
import { checkStore } from '../objects/store-writer.js';
import { AZURE_BLOB_SCHEMA, parseAzureBlobTarget, type AzureBlobConfig } from './config.js';
import { AzureBlobWriter } from './azure-blob-writer.js';

const P = 'target.azure_blob';

/** The stored auth as answered: the one given, its secret null. */
function authView(stored: unknown): Record<string, unknown> {
  const auth = (stored ?? {}) as Record<string, unknown>;
  if (auth.shared_key !== undefined && auth.shared_key !== null) return { shared_key: { account_key: null } };
  if (auth.sas !== undefined && auth.sas !== null) return { sas: { sas_token: null } };
  return {};
}

export const azureBlobKind: DestinationKind<AzureBlobConfig> = {
  name: 'azure_blob',
  schema: AZURE_BLOB_SCHEMA,
  rules: [
    { code: 'invalid_body', rule: `${P} sets account_name or account_url (one naming the account); its container holds no two hyphens in a row` },
    { code: 'invalid_target_kind', rule: `${P}.auth sets exactly one of shared_key and sas` },
    { code: 'secret_required', rule: `${P}.auth.shared_key.account_key or ${P}.auth.sas.sas_token is sent unless the stored target has the same choice of auth`, updateOnly: true },
    { code: 'insecure_url', rule: `for every account but the operator's, ${P}.account_url uses https, unless the operator allows http` },
    {
      code: 'internal_address',
      rule: `for every account but the operator's, ${P}.account_url's host is not, and does not resolve to, an internal address (loopback, link-local, private, ...), unless the operator opens its range; checked when the target is set, "verify": false or not, and again at every connect`,
    },
    {
      code: 'destination_check_failed',
      rule: `unless "verify" is false, the container is checked with the destination's own key or SAS: Get Container Properties, then a small check object written under the prefix (its name begins with _); a failure is answered 422 with the service's error code`,
    },
  ],
  secrets: [
    { path: 'auth.shared_key.account_key', required: true, removable: false },
    { path: 'auth.sas.sas_token', required: true, removable: false },
  ],
  limits: OBJECT_LIMITS,
  parse: parseAzureBlobTarget,
  view: (stored) => ({
    auth: authView(stored.auth),
    container: stored.container,
    account_name: stored.account_name ?? null,
    account_url: stored.account_url ?? null,
    ...layoutView(stored),
  }),
  createWriter: (config, deps) => new AzureBlobWriter(config, deps),
  verify: (config, deps) =>
    checkStore(new AzureBlobWriter(config, deps), { resource: `${P}.container`, auth: `${P}.auth.${config.auth.kind === 'sas' ? 'sas.sas_token' : 'shared_key.account_key'}`, host: `${P}.account_url` }, config.customerHost === true),
  guard: async (config, deps) => {
    if (config.customerHost !== true || config.accountUrl === undefined) return [];
    const host = new URL(config.accountUrl).hostname;
    const why = await hostRefusal(host, deps);
    return why === undefined ? [] : [problem.egress('internal_address', `${P}.account_url`, `its host ${host} resolves to an address destinations may not reach: ${why}`, { host })];
  },
};

// Config of the azure_blob destination: block blobs in a container of an Azure Storage account, named by
// its account (or the account's blob endpoint URL), authorized by the account key or a SAS token
// (../azure/storage-auth.ts), and the object layout every object store kind shares (../objects/).
import type { AccountContext } from '../../../accounts/account.js';
import { isHttpUrl } from '../../../net/http-url.js';
import { isIP } from 'node:net';
import { ConfigReader, isPlainObject, problem, type ConfigProblem, type ParseResult } from '../../destination-config.js';
import type { JsonSchema } from '../../destination-kind.js';
import type { EgressRules } from '../../egress-rules.js';
import { normalSasToken, type StorageAuth } from '../azure/storage-auth.js';
import { LAYOUT_FIELDS, layoutSchema, matching, parseLayout, type ObjectLayout, type StoreKeys } from '../objects/object-layout.js';
import { exactlyOne, named, nullable, obj, patterned, secretRequest, secretResponse, str } from '../target-schema.js';
import { httpUrlSchema } from '../../../net/http-url.js';

export interface AzureBlobConfig extends ObjectLayout {
  readonly auth: StorageAuth;
  /** The storage account's name, signed into shared key requests. */
  readonly account: string;
  /** The account_url sent, without a trailing "/"; absent: the operator's AZURE_BLOB_ENDPOINT_URL, else https://<account>.blob.core.windows.net (blobUrlOf). */
  readonly accountUrl?: string;
  /** The account URL is a customer's (a normal account's): judged at every connect, answered in our words (SECURITY.md "Egress"). */
  readonly customerHost?: true;
  readonly container: string;
}

/** A blob's name is at most 1,024 characters ("Naming and referencing containers, blobs, and metadata"); the prefix is ASCII. */
const BLOB_KEYS: StoreKeys = { store: 'Azure Blob Storage', keyMaxBytes: 1024 };

// "Storage account name": 3 to 24 lowercase letters and digits.
const ACCOUNT = '^[a-z0-9]{3,24}$';
// "Container names": 3 to 63 lowercase letters, digits and hyphens, beginning and ending with a letter or
// digit, no two hyphens in a row (that one in the parse: the schemas' patterns avoid look-around).
const CONTAINER = '^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$';
// An account key is 64 bytes in base64 (88 characters: a key that is not one fails the check); a SAS token is a query string.
const ACCOUNT_KEY = '^[\\s\\S]{20,1024}$';
const SAS_TOKEN = "^[?]?[A-Za-z0-9%&=_.~:+/-]{8,4096}$";

export const OPTIONS = ['account_name', 'account_url', ...LAYOUT_FIELDS];
const FIELDS = ['auth', 'container', ...OPTIONS];

const about = {
  account_name: 'The storage account (3 to 24 lowercase letters and digits); its blob endpoint is https://<account_name>.blob.core.windows.net unless account_url names it. One of account_name and account_url is set.',
  account_url: "The account's blob endpoint, e.g. https://myaccount.blob.core.windows.net (another cloud's, a private endpoint, or an emulator's, whose path names the account: http://127.0.0.1:10000/devstoreaccount1). The account name is its host's first label, or for an IP address or localhost its path's first segment, unless account_name says.",
  container: 'The container the blobs are written to (3 to 63 lowercase letters, digits and hyphens, no two hyphens in a row).',
  account_key: 'The storage account key (base64), which signs every request (Shared Key).',
  sas_token: 'A shared access signature for the container (the query string the portal gives, with or without its leading ?), with create and write permission (and read, for the check of the container).',
};

function authSchema(use: 'request' | 'response'): JsonSchema {
  const view = use === 'response' ? 'View' : '';
  const request = use === 'request';
  const sharedKey = obj({ account_key: request ? secretRequest(about.account_key, { min: 20, max: 1024 }) : secretResponse(about.account_key) }, ['account_key']);
  const sas = obj({ sas_token: request ? { ...secretRequest(about.sas_token, { min: 8, max: 4097 }), pattern: SAS_TOKEN } : secretResponse(about.sas_token) }, ['sas_token']);
  const choices = { shared_key: named(`AzureSharedKeyAuth${view}`, sharedKey), sas: named(`AzureSasAuth${view}`, sas) };
  const text = 'How requests are authorized: the account key (Shared Key), or a SAS token.';
  return named(`AzureBlobAuth${view}`, request ? exactlyOne(choices, text) : obj(choices, [], `${text} Exactly one is set.`));
}

function schema(use: 'request' | 'response'): JsonSchema {
  const request = use === 'request';
  return named(request ? 'AzureBlobTarget' : 'AzureBlobTargetView', obj(
    {
      auth: authSchema(use),
      container: request ? patterned(CONTAINER, about.container, { examples: ['edge-events'] }) : str(about.container),
      account_name: request ? nullable(patterned(ACCOUNT, about.account_name, { examples: ['myaccount'] })) : { type: ['string', 'null'], description: about.account_name },
      account_url: request ? nullable({ ...httpUrlSchema(about.account_url), examples: ['https://myaccount.blob.core.windows.net'] }) : { type: ['string', 'null'], description: about.account_url },
      ...layoutSchema(use, BLOB_KEYS),
    },
    request ? ['auth', 'container'] : FIELDS,
    'Block blobs in an Azure Storage container: batches of events, gzipped NDJSON or CSV.',
  ));
}

export const AZURE_BLOB_SCHEMA = { request: schema('request'), response: schema('response') };

/** Where a destination's blobs go: its account_url, or the operator's endpoint for every destination with the account as its path, or Azure's public endpoint of the account. */
export function blobUrlOf(config: Pick<AzureBlobConfig, 'account' | 'accountUrl'>, operatorEndpoint: string | undefined): string {
  if (config.accountUrl !== undefined) return config.accountUrl;
  return operatorEndpoint === undefined ? `https://${config.account}.blob.core.windows.net` : `${operatorEndpoint.replace(/\/+$/, '')}/${config.account}`;
}

/** The account an account URL names: its host's first label (<account>.blob.<suffix>), or for an IP address or localhost its path's first segment (the emulator's). */
export function accountOfUrl(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const pathStyle = isIP(host) !== 0 || host === 'localhost';
  const name = pathStyle ? url.pathname.split('/')[1] : host.split('.')[0];
  return name !== undefined && new RegExp(ACCOUNT).test(name) ? name : undefined;
}

function parseAuth(raw: unknown, field: string, problems: ConfigProblem[]): StorageAuth | undefined {
  if (!isPlainObject(raw)) {
    problems.push(problem.targetKind(field, 'shared_key, sas', 'neither is set'));
    return undefined;
  }
  const r = new ConfigReader(raw, field, ['shared_key', 'sas']);
  problems.push(...r.problems);
  const given = ['shared_key', 'sas'].filter((k) => r.has(k));
  if (given.length !== 1) {
    problems.push(problem.targetKind(field, 'shared_key, sas', given.length === 0 ? 'neither is set' : 'both are set'));
    return undefined;
  }
  const [choice, secretField, pattern] = given[0] === 'shared_key' ? (['shared_key', 'account_key', ACCOUNT_KEY] as const) : (['sas', 'sas_token', SAS_TOKEN] as const);
  const inner = new ConfigReader(raw[choice], `${field}.${choice}`, [secretField]);
  const secret = inner.obj[secretField];
  // The problem never echoes the secret.
  if (secret === undefined || secret === null) inner.add(problem.secretRequired(inner.path(secretField), `with ${choice}`));
  else if (typeof secret !== 'string' || !new RegExp(pattern).test(secret)) inner.invalid(secretField, choice === 'sas' ? 'must be a SAS token: a query string of 8 to 4,096 characters' : 'must be a storage account key: 20 to 1,024 characters of base64');
  problems.push(...inner.problems);
  if (inner.problems.length > 0) return undefined;
  return choice === 'shared_key' ? { kind: 'shared_key', accountKey: secret as string } : { kind: 'sas', sasToken: normalSasToken(secret as string) };
}

/** Validates an azure_blob target of a destination of `account`, every problem at once: fields, container, account, layout, auth. */
export function parseAzureBlobTarget(raw: unknown, prefix: string, account: AccountContext, egress?: EgressRules): ParseResult<AzureBlobConfig> {
  const r = new ConfigReader(raw, prefix, FIELDS);
  if (!isPlainObject(raw)) return { ok: false, problems: r.problems };
  if (!r.has('container')) r.invalid('container', 'is required');
  const container = matching(r, 'container', CONTAINER, 'must be 3 to 63 lowercase letters, digits and hyphens, beginning and ending with a letter or digit', '');
  if (container.includes('--')) r.invalid('container', 'must not hold two hyphens in a row');
  const accountName = r.has('account_name') ? matching(r, 'account_name', ACCOUNT, 'must be 3 to 24 lowercase letters and digits', '') : undefined;
  let accountUrl: URL | undefined;
  if (r.has('account_url')) {
    const text = r.obj.account_url;
    const url = typeof text === 'string' && isHttpUrl(text) ? new URL(text) : undefined;
    if (url === undefined || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') r.invalid('account_url', 'must be an absolute http or https URL without credentials, query or fragment');
    else accountUrl = url;
  }
  if (!r.has('account_name') && !r.has('account_url')) r.invalid('account_name', 'or account_url is required');
  const name = accountName || (accountUrl === undefined ? undefined : accountOfUrl(accountUrl));
  if (accountUrl !== undefined && name === undefined) r.invalid('account_name', 'is required when account_url does not name the account (<account>.blob.<suffix>, or an emulator path /<account>)');
  const refused = accountUrl === undefined || account.isOperator ? undefined : egress?.urlRefusal(accountUrl);
  if (refused !== undefined) r.add(problem.egress(refused.code, r.path('account_url'), refused.reason));
  const layout = parseLayout(r, account.accountId, BLOB_KEYS);
  const auth = parseAuth(raw.auth, r.path('auth'), r.problems);
  if (r.problems.length > 0 || auth === undefined || name === undefined) return { ok: false, problems: r.problems };
  return {
    ok: true,
    config: {
      auth,
      account: name,
      ...(accountUrl !== undefined && { accountUrl: accountUrl.href.replace(/\/+$/, '') }),
      ...(accountUrl !== undefined && !account.isOperator && { customerHost: true as const }),
      container,
      ...layout,
    },
  };
}

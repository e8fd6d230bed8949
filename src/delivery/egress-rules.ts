// What a destination may not point at (SECURITY.md "Egress"): the service's own insides, another
// account's topics and folders, and addresses inside the network. The kinds ask these rules; this is the
// one home of such rules. What the operator configures (cloud endpoints, brokers of the service) is trusted.
import type { AccountContext } from '../accounts/account.js';
import { ACCOUNT_ID_PLACEHOLDER, DEFAULT_ACCOUNT_MAX_PARTITIONS, DEFAULT_ACCOUNT_TOPIC_MAX_PARTITIONS, DEFAULT_ACCOUNT_TOPIC_PREFIX, DEFAULT_AZURE_INGESTION_DOMAINS, type ServiceConfig } from '../config/service-config.js';
import { internalRangeOf, reachedAddress } from '../net/internal-ranges.js';
import { cidrContainsIP, formatIP, parseCIDR, type CIDR } from '../net/ip.js';

/** Why a destination's URL is refused: the code the API answers with and a reason completing "… is refused: …". */
export interface UrlRefusal {
  readonly code: 'insecure_url' | 'internal_address';
  readonly reason: string;
}

export interface EgressRules {
  /**
   * Why a destination may not write to this Kafka topic, completing "The topic … is refused: …", or
   * undefined when it may. Applied whatever cluster the destination names: a topic of another cluster
   * that happens to share a name with one of the service's is refused too, rather than guessing whether
   * two broker lists reach the same cluster.
   */
  topicRefusal(topic: string): string | undefined;
  /** The prefix every topic of this account's kafka destinations starts with; undefined for the operator, who may name any other topic. */
  topicPrefix(account: AccountContext): string | undefined;
  /** The most partitions a topic this account's kafka destination creates on the service's own cluster may have; undefined for the operator. */
  topicPartitionLimit(account: AccountContext): number | undefined;
  /**
   * The most partitions all the topics under this account's prefix on the service's own cluster may have
   * together (ACCOUNT_MAX_PARTITIONS), whichever destination made them; undefined for the operator.
   */
  accountPartitionLimit(account: AccountContext): number | undefined;
  /** Why this account may not have file destinations, or undefined when it may. */
  fileRefusal(account: AccountContext): string | undefined;
  /** Why an azure_logs_ingestion target may not name this host (outside AZURE_LOGS_INGESTION_DOMAINS), completing "… is refused: …", or undefined. */
  azureIngestionHostRefusal(host: string): string | undefined;
  /** Why an http destination may not call this URL as written (its scheme, a host that is an internal address), or undefined. */
  urlRefusal(url: URL): UrlRefusal | undefined;
  /**
   * Why a destination may not connect to this address (text of an IPv4 or IPv6 address, as DNS answers
   * it), completing "… is refused: …", or undefined when it may.
   */
  addressRefusal(address: string): string | undefined;
}

/** Kafka keeps its own internal topics (`__consumer_offsets`, `__transaction_state`, …) under this prefix. */
const KAFKA_INTERNAL_PREFIX = '__';

/** The folder of the file root an account's file destinations live in, relative to the root: the operator's is the root itself. */
export function accountFolder(account: AccountContext): string {
  return account.isOperator ? '' : account.accountId;
}

export type EgressSettings = ServiceConfig['egress'];

/** The service's defaults: https only, no internal address, `<account id>.` topics, file destinations for every account. */
export const DEFAULT_EGRESS_SETTINGS: EgressSettings = {
  allowHttp: false,
  allowCidrs: [],
  onlyCidrs: [],
  kafkaTopicPrefix: DEFAULT_ACCOUNT_TOPIC_PREFIX,
  accountTopicMaxPartitions: DEFAULT_ACCOUNT_TOPIC_MAX_PARTITIONS,
  accountMaxPartitions: DEFAULT_ACCOUNT_MAX_PARTITIONS,
  accountFileDestinations: true,
  azureIngestionDomains: DEFAULT_AZURE_INGESTION_DOMAINS,
};

/** The rules of a service with these topics (its config, audit, dead-letter, status, history, health, tap, replay, raw traffic and retry topics) and egress settings. */
export function egressRules(topics: ServiceConfig['topics'], settings: EgressSettings = DEFAULT_EGRESS_SETTINGS): EgressRules {
  const own = new Map<string, string>([
    [topics.config, 'the config log'],
    [topics.audit, 'the audit topic'],
    [topics.deadLetter, 'the dead-letter topic'],
    [topics.status, 'the destination status topic'],
    [topics.history, 'a delivery history topic'],
    [topics.historyHours, 'a delivery history topic'],
    [topics.health, 'the destination health topic'],
    [topics.tapRequests, 'a live tap topic'],
    [topics.tapEvents, 'a live tap topic'],
    [topics.replayProgress, 'the replay checkpoint topic'],
    [topics.httpRequestComplete, 'a raw traffic topic'],
    [topics.tcpConnectionClosed, 'a raw traffic topic'],
  ]);
  const allowed: readonly CIDR[] = settings.allowCidrs.map((c) => parseCIDR(c)).filter((c): c is CIDR => c !== undefined);
  const only: readonly CIDR[] = settings.onlyCidrs.map((c) => parseCIDR(c)).filter((c): c is CIDR => c !== undefined);
  const addressRefusal = (address: string): string | undefined => {
    const ip = reachedAddress(address);
    if (ip === undefined) return `${address} is not an IP address`;
    if (only.length > 0 && !only.some((c) => cidrContainsIP(c, ip))) return `${address} is outside the ranges this service's destinations may reach`;
    const range = internalRangeOf(ip);
    if (range === undefined || allowed.some((c) => cidrContainsIP(c, ip))) return undefined;
    // IPv6 that carries an IPv4 address (internal-ranges.ts) names the address it reaches.
    const carried = ip.family === 4 && address.includes(':') ? ` (carrying ${formatIP(ip)})` : '';
    return `${address}${carried} is a ${range.what} address (${range.cidr}) inside the network, which destinations of this service may not reach`;
  };
  return {
    topicRefusal(topic) {
      const what = own.get(topic);
      if (what !== undefined) return `it is ${what} of this service`;
      if (topic.startsWith(topics.retryPrefix)) return `it is under the prefix of this service's retry topics (${topics.retryPrefix})`;
      if (topic.startsWith(KAFKA_INTERNAL_PREFIX)) return `topics beginning with "${KAFKA_INTERNAL_PREFIX}" are Kafka's own`;
      return undefined;
    },
    topicPrefix(account) {
      return account.isOperator ? undefined : settings.kafkaTopicPrefix.split(ACCOUNT_ID_PLACEHOLDER).join(account.accountId);
    },
    topicPartitionLimit(account) {
      return account.isOperator ? undefined : settings.accountTopicMaxPartitions;
    },
    accountPartitionLimit(account) {
      return account.isOperator ? undefined : settings.accountMaxPartitions;
    },
    fileRefusal(account) {
      if (account.isOperator || settings.accountFileDestinations) return undefined;
      return 'file destinations are kept for the operator account on this service';
    },
    azureIngestionHostRefusal(host) {
      const name = host.toLowerCase().replace(/^\[|\]$/g, '');
      const domains = settings.azureIngestionDomains;
      if (domains.some((d) => d === '*' || name === d || name.endsWith(`.${d}`))) return undefined;
      return `its host ${name} is not under ${domains.join(', ')}, the Azure Monitor ingestion domain${domains.length === 1 ? '' : 's'} this service sends to`;
    },
    urlRefusal(url) {
      if (url.protocol === 'http:' && !settings.allowHttp) return { code: 'insecure_url', reason: 'it uses http, and this service calls https URLs only' };
      const host = url.hostname.replace(/^\[|\]$/g, '');
      // A name is judged by its addresses: when the destination is created (verify-target.ts) and at every connect.
      if (reachedAddress(host) === undefined) return undefined;
      const why = addressRefusal(host);
      return why === undefined ? undefined : { code: 'internal_address', reason: why };
    },
    addressRefusal,
  };
}

// What a destination kind is: one object per kind folder (destinations/<kind>/) that the rest of the
// service iterates (destinations/kinds.ts lists them). Nothing outside a kind's folder knows its fields.
import type { AccountContext } from '../accounts/account.js';
import type { KafkaClient } from '../kafka/seam.js';
import type { Logger } from '../telemetry/logger.js';
import type { DestinationWriter, WriterLimits } from './contract.js';
import type { ConfigProblem, ConfigProblemCode, ParseResult } from './destination-config.js';
import type { CloudDeps } from './destinations/aws/client-config.js';
import type { EgressRules } from './egress-rules.js';
import type { HostResolver } from '../net/guarded-lookup.js';

/** Everything writers need from the composition root; nothing news up its own dependencies. */
export interface WriterDeps {
  /** A Kafka client (src/kafka/seam.ts) for `brokers`, or for the service's own cluster when `brokers` is undefined. */
  readonly kafkaClient: (brokers?: readonly string[]) => KafkaClient;
  /** The directory file paths of destinations are relative to (FILE_DESTINATION_ROOT). */
  readonly fileRoot: string;
  /** The cloud writers' endpoints, base identity for role auth, timeouts and log stream name. */
  readonly cloud?: CloudDeps;
  /** The datadog kind's intake and API base URL for every site (DATADOG_BASE_URL); absent: each site's own hosts. */
  readonly datadog?: { readonly baseUrl?: string | undefined };
  /** Microsoft Entra ID's authority for azure kinds' tokens (AZURE_AUTHORITY_URL); absent: https://login.microsoftonline.com. */
  readonly azure?: { readonly authorityUrl?: string | undefined };
  /** What a destination may not point at: the service's own topics, another account's, internal addresses (egress-rules.ts). */
  readonly egress: EgressRules;
  /** How destinations' host names are resolved; absent: the system resolver (net/guarded-lookup.ts). */
  readonly resolveHost?: HostResolver;
  /**
   * Partitions and replication factor of the topics the kafka kind creates when a destination does not
   * say (KAFKA_DESTINATION_PARTITIONS, KAFKA_DESTINATION_REPLICATION_FACTOR); absent: the broker's defaults.
   */
  readonly kafkaTopicDefaults?: { readonly partitions?: number; readonly replicationFactor?: number };
  readonly logger?: Logger;
}

/** What a kind's view may read besides the stored object: the service's settings and the account the destination belongs to. */
export type ViewDeps = Pick<WriterDeps, 'fileRoot'> & { readonly account: AccountContext };

/** A JSON schema object, as Fastify validates requests with it and the OpenAPI document shows it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * A write-only field of a kind: sealed at rest (stored as `<name>_enc`), answered as null in every view
 * and audit event, opened only for the writer, and never logged (src/telemetry/logger.ts redacts it).
 */
export interface SecretField {
  /** Dotted path inside the kind's object, e.g. "secret" or "auth.creds.cloud_secret_access_key". */
  readonly path: string;
  /** Required whenever the object holding it is sent (an update may keep the stored one instead). */
  readonly required: boolean;
  /** An empty string removes the stored secret. */
  readonly removable: boolean;
  /**
   * On an update, an omitted (or null) secret keeps the stored one only while this sibling field keeps
   * its value (a new key id needs its own secret). Absent: the stored one is always kept.
   */
  readonly keptWhileSame?: string;
}

/**
 * Secrets a kind keeps inside the value of a field rather than in a field of their own (an http URL's
 * password and query values): the value is stored and answered with REDACTED in their place, and they
 * are sealed apart, as `<sealedField>_enc`, which the writer gets opened as `<sealedField>`.
 */
export interface InlineSecrets {
  /**
   * Before parse(): the sent object with each part sent back as REDACTED taken from the stored object
   * (opened; undefined on a create). A problem when a part has nothing stored to keep.
   */
  keep(sent: Record<string, unknown>, stored: Readonly<Record<string, unknown>> | undefined): ConfigProblem | undefined;
  /** After parse(): the object as stored, its inline secrets taken out and sealed with `seal`. */
  conceal(sent: Record<string, unknown>, seal: (clear: string) => string): void;
}

export interface DestinationKind<C = unknown> {
  /** The target key naming the kind: {"<name>": {…}}. */
  readonly name: string;
  /**
   * The JSON schemas of `target.<name>`: what a create may send and what a response holds (an update's
   * is the create's with its secrets optional). The API validates requests with them and the OpenAPI
   * document shows them; they refuse unknown fields. parse() takes everything the request schema takes
   * (but for `rules`); it may take more, as it also reads targets stored under older rules.
   */
  readonly schema: { readonly request: JsonSchema; readonly response: JsonSchema };
  /**
   * What parse() refuses although the request schema takes it, each with the problem code it gives: the
   * API states them beside the schema (x-rules-beyond-schema), so a client knows every refusal.
   */
  readonly rules?: readonly { readonly code: ConfigProblemCode; readonly rule: string; readonly updateOnly?: boolean }[];
  /** The kind's secret fields; see SecretField. */
  readonly secrets: readonly SecretField[];
  /** Secrets inside a field's value; see InlineSecrets. Absent: none. */
  readonly inlineSecrets?: InlineSecrets;
  /**
   * Fields its view derives (read-only), as dotted paths: a request may send them back, as a response
   * has them, and they are dropped unread. Absent: none.
   */
  readonly readOnly?: readonly string[];
  /** The most a writer of this kind takes in one write, and the largest record (its default limits). */
  readonly limits: WriterLimits;
  /**
   * Validates the kind's object with its secrets in clear, collecting every problem at once, the first
   * one first in the order the API reports. `prefix` names the object in problems: "target.<name>".
   * `egress` refuses what points inside the service; the API and the workers always pass it.
   *
   * `account` is the account the destination belongs to: the one whose key creates or changes it (the
   * admin API), and the stored destination's owner when a writer is built from it (the destination pool,
   * test events). What customers provide may be held to rules the operator's configuration is not
   * (SECURITY.md "Egress"): `account.isOperator` tells the operator account apart, and
   * `account.accountId` names the account (e.g. a topic prefix or a folder of its own).
   */
  parse(raw: unknown, prefix: string, account: AccountContext, egress?: EgressRules): ParseResult<C>;
  /**
   * The object as the API answers it: every known field (null for a default), every secret null, and
   * any read-only field the kind derives from the service's settings (`deps`).
   */
  view(stored: Readonly<Record<string, unknown>>, deps: ViewDeps): Record<string, unknown>;
  /** The writer of a destination of `account` (as in parse()). */
  createWriter(config: C, deps: WriterDeps, account: AccountContext): DestinationWriter;
  /**
   * The check that accepted means deliverable, run when a destination is created or updated (unless the
   * request says `"verify": false`) and when a worker starts with it (src/delivery/verify-target.ts):
   * the target exists, or is created, and takes the destination's own auth. Resolves to its problems
   * (codes answered as 422), none when it passes; it never throws. A kind without one (http: a receiver
   * may be down for a while) is accepted as parse() finds it, and its status tells the rest. `account` is as in
   * parse().
   */
  verify?(config: C, deps: WriterDeps, account: AccountContext): Promise<readonly ConfigProblem[]>;
  /**
   * The egress rules that need the network (SECURITY.md "Egress"): a host name whose addresses are
   * refused. Run where verify() is, but always: `"verify": false` skips the check that the target works,
   * never the rules of where it may point. Resolves to its problems (400s); it never throws. What a name
   * resolves to may change later, so the writer applies the same rule at every connect.
   */
  guard?(config: C, deps: WriterDeps, account: AccountContext): Promise<readonly ConfigProblem[]>;
  /**
   * What a delete may take along on request (`DELETE /event_destinations/{id}?delete_topic=true`): the
   * kafka kind's topic on the service's own cluster, which a delete otherwise leaves. `key` is the same for
   * targets that share it, `name` says it in words. Undefined (or absent): a delete takes nothing along.
   */
  removable?(config: C): { readonly key: string; readonly name: string } | undefined;
  /** Deletes what removable() names; one already gone is no error. */
  remove?(config: C, deps: WriterDeps): Promise<void>;
}

// Credentials of a cloud destination: a static access key pair, or a role assumed through STS whose
// temporary credentials are cached and refreshed before they expire.
import type { STSClient } from '@aws-sdk/client-sts';
import { createLogger, type Logger } from '../../../telemetry/logger.js';
import { DeliveryError } from '../../errors.js';
import { awsClientConfig, type CloudDeps } from './client-config.js';
import type { CloudAuth } from './cloud-config.js';
import { toCloudError } from './aws-errors.js';
import { LazyClient, stsSdk } from './sdk.js';

/** Structurally the SDK's AwsCredentialIdentity. */
export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

export type CredentialProvider = () => Promise<Credentials>;

/**
 * What AssumeRole is asked for; a function so tests can stand in for STS. `externalId` is the id of the
 * account the destination belongs to, so a role that trusts the service answers only that account's
 * destinations (the confused deputy, README.md here "Role auth").
 */
export type AssumeRole = (roleArn: string, sessionName: string, durationSeconds: number, externalId: string, signal?: AbortSignal) => Promise<Credentials>;

// The SDK's own rule for temporary credentials: refresh when fewer than 5 minutes are left.
const REFRESH_BEFORE_MS = 5 * 60_000;
// Below this, a refresh must finish before the credentials are used again: a request signed now
// may still be in flight when they expire.
const MIN_USABLE_MS = 60_000;
/** STS AssumeRole: "DurationSeconds ... minimum value of 900 seconds ... default 3600 seconds". */
export const DEFAULT_ROLE_SESSION_SECONDS = 3600;

export interface AssumedRoleOptions {
  readonly roleArn: string;
  readonly externalId: string;
  readonly sessionName: string;
  readonly durationSeconds?: number;
  readonly assume: AssumeRole;
  readonly now?: () => number;
  readonly logger?: Logger;
}

/**
 * One role's temporary credentials. Callers share one cached set; a refresh starts once fewer than five
 * minutes (or half the lifetime, for short sessions) are left, in the background while the old set is
 * still good, and only one refresh runs at a time.
 */
export class AssumedRoleCredentials {
  private current: Credentials | undefined;
  private issuedAt = 0;
  private refreshing: Promise<Credentials> | undefined;
  private readonly now: () => number;
  private readonly log: Logger;
  /** AssumeRole calls made, for tests and logs. */
  assumeCalls = 0;

  constructor(private readonly opts: AssumedRoleOptions) {
    this.now = opts.now ?? Date.now;
    this.log = opts.logger ?? createLogger('cloud-credentials');
  }

  readonly provide: CredentialProvider = async () => {
    const now = this.now();
    const current = this.current;
    if (current !== undefined && !this.dueForRefresh(current, now)) return current;
    const refresh = this.refresh();
    if (current !== undefined && remainingMs(current, now) > MIN_USABLE_MS) {
      refresh.catch((err: unknown) =>
        this.log.warn({ role: this.opts.roleArn, err }, 'Refreshing assumed-role credentials failed; the current ones are still valid.'),
      );
      return current;
    }
    return refresh;
  };

  private dueForRefresh(c: Credentials, now: number): boolean {
    if (c.expiration === undefined) return false;
    const lifetime = c.expiration.getTime() - this.issuedAt;
    return remainingMs(c, now) <= Math.min(REFRESH_BEFORE_MS, lifetime / 2);
  }

  private refresh(): Promise<Credentials> {
    this.refreshing ??= (async () => {
      const issuedAt = this.now();
      this.assumeCalls++;
      const creds = await this.opts.assume(this.opts.roleArn, this.opts.sessionName, this.opts.durationSeconds ?? DEFAULT_ROLE_SESSION_SECONDS, this.opts.externalId);
      this.current = creds;
      this.issuedAt = issuedAt;
      return creds;
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }
}

function remainingMs(c: Credentials, now: number): number {
  return c.expiration === undefined ? Infinity : c.expiration.getTime() - now;
}

/** AssumeRole through the real STS, in the destination's region (regional STS endpoints). */
export function stsAssumeRole(region: string, deps: CloudDeps): AssumeRole & { destroy(): void } {
  const client = new LazyClient<STSClient>(
    async () =>
      new (await stsSdk()).STSClient(
        await awsClientConfig({ region, endpoint: deps.stsEndpoint ?? deps.endpoint, credentials: deps.baseCredentials, timeoutMs: deps.timeoutMs }),
      ),
  );
  const assume: AssumeRole = async (roleArn, sessionName, durationSeconds, externalId, signal) => {
    try {
      const { AssumeRoleCommand } = await stsSdk();
      const out = await (await client.get()).send(
        new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: sessionName, DurationSeconds: durationSeconds, ExternalId: externalId }),
        signal === undefined ? {} : { abortSignal: signal },
      );
      const c = out.Credentials;
      if (c?.AccessKeyId === undefined || c.SecretAccessKey === undefined) {
        throw new DeliveryError('DESTINATION_AUTH_FAILED', `STS AssumeRole for ${roleArn} returned no credentials.`);
      }
      return {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        ...(c.SessionToken !== undefined && { sessionToken: c.SessionToken }),
        ...(c.Expiration !== undefined && { expiration: c.Expiration }),
      };
    } catch (err) {
      const e = toCloudError(`STS AssumeRole for ${roleArn}`, err);
      // Any refusal to hand out the role's credentials is an auth failure, whatever STS called it.
      if (e.code === 'DESTINATION_REJECTED' || e.code === 'DESTINATION_NOT_FOUND') {
        throw new DeliveryError('DESTINATION_AUTH_FAILED', e.message, { cause: err });
      }
      throw e;
    }
  };
  return Object.assign(assume, { destroy: () => client.destroy() });
}

/** RoleSessionName: "Length 2-64, Pattern [\w+=,.@-]*". */
export function roleSessionName(suffix: string): string {
  return `edge-events-${suffix}`.replace(/[^\w+=,.@-]/g, '-').slice(0, 64);
}

export interface CredentialSource {
  readonly provide: CredentialProvider;
  /** The role's credential cache, for role auth. */
  readonly role?: AssumedRoleCredentials;
  close(): void;
}

/** The credentials of one destination's auth. */
export function credentialsFor(auth: CloudAuth, region: string, deps: CloudDeps): CredentialSource {
  if (auth.kind === 'creds') {
    const creds: Credentials = { accessKeyId: auth.accessKeyId, secretAccessKey: auth.secretAccessKey };
    return { provide: () => Promise.resolve(creds), close: () => undefined };
  }
  const own = deps.assumeRole === undefined ? stsAssumeRole(region, deps) : undefined;
  const assume = deps.assumeRole ?? (own as AssumeRole);
  const role = new AssumedRoleCredentials({
    roleArn: auth.roleArn,
    externalId: auth.externalId,
    sessionName: roleSessionName(String(process.pid)),
    ...(deps.roleSessionSeconds !== undefined && { durationSeconds: deps.roleSessionSeconds }),
    assume,
  });
  return { provide: role.provide, role, close: () => own?.destroy() };
}

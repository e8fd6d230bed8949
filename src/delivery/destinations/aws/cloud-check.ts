// The cloud kinds' create-time check: with the destination's own auth (the role assumed first), describe
// its resource (DescribeDeliveryStream, DescribeStreamSummary, DescribeLogGroups), as its writer's health
// check does. A failure is answered with AWS's own error code and message.
import { problem, type ConfigProblem } from '../../destination-config.js';
import type { WriterDeps } from '../../destination-kind.js';
import { DeliveryError, toDeliveryError } from '../../errors.js';
import type { CloudAuth, CloudKindSpec, CloudTargetConfig } from './cloud-config.js';
import type { CloudWriter } from './cloud-writer.js';

export interface CheckableCloudKind extends CloudKindSpec {
  createWriter(config: CloudTargetConfig, deps: WriterDeps): CloudWriter;
}

export function verifyCloudTarget(kind: CheckableCloudKind, config: CloudTargetConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  return checkWithOwnAuth(kind.name, config, kind.createWriter(config, deps), kind.arnField, (writer) => writer.describeResource());
}

/**
 * A check with a writer of the destination's own auth, closed after: the credentials resolved (the role
 * assumed; a failure names the auth field), then `probe` (a failure names `resourceField`, or the auth
 * field for an auth error). Every kind authenticating as the cloud kinds do checks through it. A
 * customer's endpoint is answered in the service's words only (SECURITY.md "Egress").
 */
export async function checkWithOwnAuth<W extends CloudWriter>(
  kind: string,
  config: { readonly auth: CloudAuth; readonly customerEndpoint?: true },
  writer: W,
  resourceField: string,
  probe: (writer: W) => Promise<void>,
): Promise<readonly ConfigProblem[]> {
  const prefix = `target.${kind}`;
  const authField = config.auth.kind === 'role' ? `${prefix}.auth.role.role_arn` : `${prefix}.auth.creds.cloud_access_key_id`;
  const echo = config.customerEndpoint !== true;
  try {
    await writer.resolveCredentials();
  } catch (err) {
    await writer.close();
    return [failure(authField, err, echo)];
  }
  try {
    await probe(writer);
    return [];
  } catch (err) {
    const e = toDeliveryError(err);
    if (e.code === 'DESTINATION_ADDRESS_REFUSED') return [problem.egress('internal_address', `${prefix}.endpoint`, e.message.replace(/\.$/, ''))];
    return [failure(e.code === 'DESTINATION_AUTH_FAILED' ? authField : `${prefix}.${resourceField}`, e, echo)];
  } finally {
    await writer.close();
  }
}

/** The problem of a failed call: AWS's error code and message (the SDK error behind the delivery error) when `echo`, else the service's. */
function failure(field: string, err: unknown, echo: boolean): ConfigProblem {
  const e = toDeliveryError(err);
  const aws = echo ? awsError(e) : undefined;
  return problem.checkFailed(field, aws?.name ?? e.code, aws?.message ?? e.message, e.code);
}

function awsError(e: DeliveryError): { name: string; message: string } | undefined {
  for (let c: unknown = e.cause, depth = 0; c !== undefined && c !== null && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    if (c instanceof DeliveryError) continue;
    const { name, code, message } = c as { name?: string; code?: string; message?: string };
    // Network errors carry their errno (ECONNREFUSED) in `code`; SDK errors carry AWS's code as `name`.
    const id = name === undefined || name === 'Error' ? code : name;
    if (id !== undefined && message !== undefined) return { name: id, message };
  }
  return undefined;
}

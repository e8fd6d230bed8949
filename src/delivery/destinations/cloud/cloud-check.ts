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
  return checkWithOwnAuth(kind.name, config.auth, kind.createWriter(config, deps), kind.arnField, (writer) => writer.describeResource());
}

/**
 * A check with a writer of the destination's own auth, closed after: the credentials resolved (the role
 * assumed; a failure names the auth field), then `probe` (a failure names `resourceField`, or the auth
 * field for an auth error). Every kind authenticating as the cloud kinds do checks through it.
 */
export async function checkWithOwnAuth<W extends CloudWriter>(kind: string, auth: CloudAuth, writer: W, resourceField: string, probe: (writer: W) => Promise<void>): Promise<readonly ConfigProblem[]> {
  const prefix = `target.${kind}`;
  const authField = auth.kind === 'role' ? `${prefix}.auth.role.role_arn` : `${prefix}.auth.creds.cloud_access_key_id`;
  try {
    await writer.resolveCredentials();
  } catch (err) {
    await writer.close();
    return [checkFailure(authField, err)];
  }
  try {
    await probe(writer);
    return [];
  } catch (err) {
    const e = toDeliveryError(err);
    return [checkFailure(e.code === 'DESTINATION_AUTH_FAILED' ? authField : `${prefix}.${resourceField}`, e)];
  } finally {
    await writer.close();
  }
}

/** The problem of a failed call: AWS's error code and message (the SDK error behind the delivery error). */
function checkFailure(field: string, err: unknown): ConfigProblem {
  const e = toDeliveryError(err);
  const aws = awsError(e);
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

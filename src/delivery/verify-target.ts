// Runs a stored target's create-time check through the kind it names (DestinationKind.verify): the admin
// API before it stores a destination, and each worker for the destinations it finds at start. It knows no
// kind by name; it opens the secrets, parses, and bounds the check in time.
import type { AccountContext } from '../accounts/account.js';
import type { StoredTarget } from '../configlog/resources.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { openSecrets } from './build-writer.js';
import { problem, type ConfigProblem } from './destination-config.js';
import type { WriterDeps } from './destination-kind.js';
import { storedKind } from './destination-target.js';

/** A check answers within this, whatever the destination does: as long as a test event may take. */
export const VERIFY_TIMEOUT_MS = 15_000;

export interface VerifyOptions {
  /** False skips the kind's check (a request's `"verify": false`), never its guard (DestinationKind.guard). */
  readonly check?: boolean;
  readonly timeoutMs?: number;
}

/**
 * Checks a stored target (secrets sealed): its kind's guard, then its check; resolves to the first
 * problem, or undefined when both pass or the kind has neither.
 */
export async function verifyTarget(target: StoredTarget, secrets: SecretBox, deps: WriterDeps, account: AccountContext, opts: VerifyOptions = {}): Promise<ConfigProblem | undefined> {
  const timeoutMs = opts.timeoutMs ?? VERIFY_TIMEOUT_MS;
  const stored = storedKind(target);
  const guard = stored?.kind.guard?.bind(stored.kind);
  const verify = opts.check === false ? undefined : stored?.kind.verify?.bind(stored.kind);
  if (stored === undefined || (guard === undefined && verify === undefined)) return undefined;
  const check = async (config: unknown): Promise<readonly ConfigProblem[]> => {
    const refused = (await guard?.(config, deps, account)) ?? [];
    return refused.length > 0 || verify === undefined ? refused : verify(config, deps, account);
  };
  const { kind } = stored;
  const prefix = `target.${kind.name}`;
  let opened: unknown;
  try {
    opened = (openSecrets(target, secrets) as Record<string, unknown>)[kind.name];
  } catch (err) {
    return problem.checkFailed(prefix, 'SecretUnreadable', err instanceof Error ? err.message : String(err), 'DESTINATION_MISCONFIGURED');
  }
  const parsed = kind.parse(opened, prefix, account, deps.egress);
  if (!parsed.ok) return parsed.problems[0];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<readonly ConfigProblem[]>((resolve) => {
    timer = setTimeout(() => resolve([problem.checkFailed(prefix, 'Timeout', `The check did not finish within ${timeoutMs} ms.`, 'DESTINATION_TIMEOUT')]), timeoutMs);
    // A check still running at a stop must not hold the process open.
    timer.unref();
  });
  try {
    const problems = await Promise.race([
      check(parsed.config).catch((err: unknown) => [problem.checkFailed(prefix, 'Error', err instanceof Error ? err.message : String(err), 'WRITE_FAILED')]),
      deadline,
    ]);
    return problems[0];
  } finally {
    clearTimeout(timer);
  }
}

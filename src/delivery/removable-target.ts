// What deleting a destination may take along on request (DestinationKind.removable: a kafka topic on the
// service's own cluster), read from its stored target through the kind it names; it knows no kind by name.
import type { AccountContext } from '../accounts/account.js';
import type { StoredTarget } from '../configlog/resources.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { openSecrets } from './build-writer.js';
import type { WriterDeps } from './destination-kind.js';
import { storedKind } from './destination-target.js';

export interface Removable {
  /** The same for targets that share what it names. */
  readonly key: string;
  /** What it is, in words: "the topic acct_….orders on the service's cluster". */
  readonly name: string;
  remove(): Promise<void>;
}

/** What a delete of a destination of `account` with this target may take along, or undefined when nothing. */
export function removableOf(target: StoredTarget, secrets: SecretBox, deps: WriterDeps, account: AccountContext): Removable | undefined {
  const stored = storedKind(target);
  const { removable, remove } = stored?.kind ?? {};
  if (stored === undefined || removable === undefined || remove === undefined) return undefined;
  let opened: unknown;
  try {
    opened = (openSecrets(target, secrets) as Record<string, unknown>)[stored.kind.name];
  } catch {
    return undefined;
  }
  const parsed = stored.kind.parse(opened, `target.${stored.kind.name}`, account, deps.egress);
  if (!parsed.ok) return undefined;
  const what = removable.call(stored.kind, parsed.config);
  return what === undefined ? undefined : { ...what, remove: () => remove.call(stored.kind, parsed.config, deps) };
}

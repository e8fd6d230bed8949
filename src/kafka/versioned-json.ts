// The record values of the service's own topics (status, history, health, replay progress, taps): a JSON
// object carrying its format's version in `v`.

/** The object in a value when it is JSON of this version, otherwise undefined: a reader never crashes on input. */
export function versionedObject(value: Buffer | null, version: number): Record<string, unknown> | undefined {
  if (value === null) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(value.toString('utf8'));
  } catch {
    return undefined;
  }
  if (o === null || typeof o !== 'object') return undefined;
  const object = o as Record<string, unknown>;
  return object.v === version ? object : undefined;
}

// What a file destination wrote: every line of its file and of its rotated siblings (<name>.1, .2, ...),
// parsed; none while the folder does not exist yet.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function fileDestinationLines<T>(dir: string, fileName: string): T[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(fileName));
  } catch {
    return [];
  }
  return names.flatMap((n) =>
    readFileSync(join(dir, n), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as T),
  );
}

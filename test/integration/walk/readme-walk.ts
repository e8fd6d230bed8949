// Finds the README's walk: the first ```sh block after the `readme-walk` marker comment.

const MARKER = '<!-- readme-walk';

/** The shell block after the marker, as written; throws when the README lost the marker or the block. */
export function readmeWalk(readme: string): string {
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no "${MARKER}" marker before its walk.`);
  const match = /^```sh\n([\s\S]*?)^```$/m.exec(readme.slice(at));
  if (match?.[1] === undefined) throw new Error('README.md has no ```sh block after its walk marker.');
  return match[1];
}

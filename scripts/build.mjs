// `npm run build` (run by `npm ci` and by every `npm start`): compiles src/ to dist/ and builds the
// console into web/dist, or does nothing when none of their inputs changed since the last build. The
// inputs' hash is kept in dist/.build-inputs; deleting dist/ or web/dist/ forces a build.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What the two builds read: the sources, the console, the compiler settings and the dependencies' versions. */
const INPUTS = ['src', 'web', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
/** Outputs inside the inputs: the console's build and the files its build generates (web/README.md). */
const IGNORED = [/^web\/dist(\/|$)/, /^web\/src\/api\/[^/]*\.gen\.[^/]*$/, /(^|\/)node_modules(\/|$)/];
const STAMP = join(ROOT, 'dist', '.build-inputs');
const OUTPUTS = [join(ROOT, 'dist', 'main.js'), join(ROOT, 'web', 'dist', 'index.html')];

/** The input files under `path` (a file or a folder), as names relative to the root, in a fixed order. */
function inputFiles(path) {
  const name = relative(ROOT, path).split('\\').join('/');
  if (IGNORED.some((pattern) => pattern.test(name)) || !existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [name];
  return readdirSync(path).sort().flatMap((entry) => inputFiles(join(path, entry)));
}

function inputsHash() {
  const hash = createHash('sha256');
  for (const name of INPUTS.flatMap((input) => inputFiles(join(ROOT, input)))) hash.update(`${name}\0`).update(readFileSync(join(ROOT, name))).update('\0');
  return hash.digest('hex');
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const hash = inputsHash();
const upToDate = OUTPUTS.every((file) => existsSync(file)) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash;
if (!upToDate) {
  run('tsc', ['-p', 'tsconfig.build.json']);
  run('npm', ['run', '--silent', 'console:build']);
  writeFileSync(STAMP, hash);
}

// The suite's Python test tools (test/requirements.txt): installed with pip when missing, so `npm test`
// works on a fresh machine without a separate set-up step.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REQUIREMENTS = fileURLToPath(new URL('../requirements.txt', import.meta.url));
const PYTHON = process.env.PYTHON ?? 'python3';

function importable(modules: readonly string[]): boolean {
  const r = spawnSync(PYTHON, ['-c', modules.map((m) => `import ${m}`).join('; ')], { stdio: 'ignore' });
  return r.status === 0;
}

/** Installs test/requirements.txt with pip unless moto, schemathesis and openapi-python-client already import; throws with pip's output on failure. */
export function ensurePythonTools(): void {
  if (importable(['moto.server', 'schemathesis', 'openapi_python_client'])) return;
  process.stderr.write('Installing the Python test tools (test/requirements.txt) with pip…\n');
  const r = spawnSync(PYTHON, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS], {
    encoding: 'utf8',
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  if (r.status !== 0) {
    throw new Error(`pip could not install the Python test tools (exit ${r.status}):\n${r.stderr ?? ''}${r.error?.message ?? ''}`);
  }
  // pyenv puts new console scripts (schemathesis) on PATH only after a rehash.
  spawnSync('pyenv', ['rehash'], { stdio: 'ignore' });
}

// npm runs `prepare` after `npm ci` in a clone, and also when a clone is installed as it is with
// `npm install -g .`, before it has its devDependencies. The build needs them (esbuild, tsc), so
// in that case they are installed first, exactly as the lockfile says, and then dist/ is built.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function run(command, args) {
  // Under `npm install -g .` the settings npm passes down say global; the tools go into this clone.
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^npm_config_(global|prefix|location)$/i.test(key)) delete env[key];
  const result = spawnSync(command, args, {
    cwd: root,
    env,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function canResolve(name) {
  try {
    createRequire(join(root, 'package.json')).resolve(name);
    return true;
  } catch {
    return false;
  }
}

if (!canResolve('esbuild') || !canResolve('typescript')) {
  console.error('memvault: installing the build tools first (npm ci --ignore-scripts), then building dist/');
  run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund']);
}
run(process.execPath, [join(root, 'scripts/build.mjs')]);

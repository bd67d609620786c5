// Where the programs the scale benchmark compares live: memvault's own CLI (package.json "bin.mem"),
// qmd installed by bench/peers/install.sh, and ripgrep on PATH. A missing peer is a notice, not a
// failure.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPO = new URL('../', import.meta.url);
export const PEERS_DIR = fileURLToPath(new URL('./peers/', import.meta.url));

/** The built `mem` CLI script, as package.json's "bin" names it. */
export function memCli() {
  const pkg = JSON.parse(readFileSync(new URL('package.json', REPO), 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.mem;
  if (!bin) throw new Error('package.json has no "bin.mem"');
  const path = fileURLToPath(new URL(bin, REPO));
  if (!existsSync(path)) throw new Error(`${path} is missing: run npm run build`);
  return path;
}

/**
 * qmd's CLI script and version, or why it is absent. The script is run with node directly: the
 * package's bin/qmd launcher would add a second Node process (and a `bun --version` probe) to every
 * call, which `mem` does not have.
 * @returns {{ script: string, version: string } | { missing: string }}
 */
export function findQmd() {
  const dir = new URL('./peers/node_modules/@tobilu/qmd/', import.meta.url);
  const pkgPath = new URL('package.json', dir);
  if (!existsSync(pkgPath))
    return { missing: 'qmd is not installed (bash bench/peers/install.sh installs it into bench/peers/)' };
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const script = fileURLToPath(new URL('dist/cli/qmd.js', dir));
  if (!existsSync(script)) return { missing: `qmd ${pkg.version} has no dist/cli/qmd.js` };
  const probe = spawnSync(process.execPath, [script, '--help'], { encoding: 'utf8' });
  if (probe.status !== 0)
    return {
      missing: `qmd ${pkg.version} does not run (${(probe.stderr || '').trim().split('\n')[0]}); rerun bash bench/peers/install.sh`,
    };
  return { script, version: pkg.version };
}

/** @returns {{ command: string, version: string } | { missing: string }} */
export function findRipgrep() {
  const probe = spawnSync('rg', ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0)
    return {
      missing: 'ripgrep (rg) is not installed (bash bench/peers/install.sh --rg installs it with apt-get)',
    };
  return { command: 'rg', version: probe.stdout.split('\n')[0] ?? 'rg' };
}

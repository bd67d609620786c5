import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// CI once failed in 0 s with exit 141: `.ci/run` ran under `set -o pipefail` and printed
// `haproxy -v | head -1`. head exits after one line; when haproxy wrote its next line after that,
// it died of SIGPIPE, the pipeline's status became 141 and `set -e` ended the run (29 times in 200
// here). Any pipeline that ends in a reader which stops early does the same, so no shell script
// of the repository that sets pipefail may end a pipe in one; `sed -n 1p` reads to the end.
const ROOT = join(import.meta.dirname, '..', '..');
const EARLY_READER =
  /(?<!\|)\|&?(?!\|)\s*(\S*\/)?(head\b|grep\b[^|]*\s(-\w*[qlm]\w*|--quiet|--silent|--max-count\S*|--files-with-matches)\b|sed\s+(-n\s+)?['"]?\d*q\b|read\b)/;

function shellScripts(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  return tracked.filter((path) => {
    if (path === '' || path.includes('node_modules/')) return false;
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (/\.(sh|bash)$/.test(name)) return true;
    // Any other file with an extension is not a script; one without may be (`.ci/run`, hooks).
    if (name.includes('.')) return false;
    try {
      return /^#!.*\b(ba)?sh\b/.test(readFileSync(join(ROOT, path), 'utf8').slice(0, 80));
    } catch {
      return false;
    }
  });
}

function codeLines(text: string): { line: number; code: string }[] {
  return text
    .split('\n')
    .map((code, index) => ({ line: index + 1, code: code.replace(/(^|\s)#.*$/, '') }))
    .filter(({ code }) => code.trim() !== '');
}

describe('shell scripts', () => {
  const scripts = shellScripts();

  it('finds the CI script and the peers installer', () => {
    expect(scripts).toEqual(expect.arrayContaining(['.ci/run', 'bench/peers/install.sh']));
  });

  it.each(scripts)('%s parses', (path) => {
    execFileSync('bash', ['-n', join(ROOT, path)], { stdio: 'pipe' });
  });

  it.each(scripts)('%s does not end a pipe in an early reader under pipefail', (path) => {
    const text = readFileSync(join(ROOT, path), 'utf8');
    if (!/\bpipefail\b/.test(text)) return;
    const offending = codeLines(text)
      .filter(({ code }) => EARLY_READER.test(code))
      .map(({ line, code }) => `${path}:${line}: ${code.trim()}`);
    expect(offending, 'a reader that stops early kills the writer with SIGPIPE (exit 141)').toEqual([]);
  });

  it('the check catches the pipe that failed CI', () => {
    for (const code of [
      'haproxy -v | head -1',
      'rg --version|head -n1',
      'x | grep -q y',
      'x | grep -m1 y',
      'x | grep -E -q y',
      'x | grep --silent y',
      'x | grep -l y',
      'x |& head',
      'x | /usr/bin/head -1',
      'x | sed 1q',
      "x | sed -n '1q'",
    ]) {
      expect(EARLY_READER.test(code), code).toBe(true);
    }
    for (const code of [
      'haproxy -v | sed -n 1p',
      'x | grep y',
      'x || head',
      'x | grep -v y',
      'x | sed -n 1p',
    ]) {
      expect(EARLY_READER.test(code), code).toBe(false);
    }
  });
});

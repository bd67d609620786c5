// The README's quick start: runs memvault on the bundled vault-example/, no API key needed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const mem = (...args) => {
  console.log(`\n$ mem ${args.map((a) => (/\s|[^\x20-\x7e]/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const result = spawnSync(process.execPath, ['dist/cli/main.js', '--vault', 'vault-example', ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

// A fixed moment inside the example's story, so the output is the same on every machine.
const now = '2026-11-30T10:00:00+08:00';
mem('index');
mem('recall', 'where does Rain live now?', '-k', '3', '--now', now);
mem('recall', '上海', '-k', '3', '--now', now);
mem('recall', '上周末去哪了', '-k', '3', '--now', now, '--explain');
mem('compile', '最近睡得怎么样？我还在搬家后的适应期', '--budget', '1200', '--now', now);

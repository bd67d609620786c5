// The index cache at scale, each step in a fresh process (CPU time, peak RSS):
//   npm run build && node bench/cache-scale.mjs --notes 10000 [--dir /tmp/v10k] [--warm 3]
// A vault already generated in --dir is reused. Steps: cold build (rebuild + save), the save alone
// from a loaded index, warm opens. Prints one JSON object.
import { execFile } from 'node:child_process';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { median, mib, round } from './stats.mjs';
import { writeSynthVault } from './synth-vault.mjs';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./cache-child.mjs', import.meta.url));

async function child(step, root, nodeArgs = []) {
  const { stdout } = await run(process.execPath, [...nodeArgs, CHILD, step, root], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout);
}

async function bytesUnder(dir) {
  let total = 0;
  let files = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    total += (await stat(join(entry.parentPath, entry.name))).size;
    files++;
  }
  return { total, files };
}

const { values } = parseArgs({
  options: {
    notes: { type: 'string', default: '10000' },
    dir: { type: 'string' },
    warm: { type: 'string', default: '3' },
    keep: { type: 'boolean' },
    'max-old-space': { type: 'string' },
  },
});
const total = Number(values.notes);
const root = values.dir ?? join(tmpdir(), `memvault-cache-${total}`);
const nodeArgs = values['max-old-space'] ? [`--max-old-space-size=${values['max-old-space']}`] : [];
const log = (line) => process.stderr.write(`${line}\n`);

const exists = await stat(join(root, 'mem.config.json')).then(
  () => true,
  () => false,
);
if (!exists) {
  await mkdir(root, { recursive: true });
  log(`writing ${total} notes to ${root}`);
  await writeSynthVault(root, total);
}
await rm(join(root, '.mem'), { recursive: true, force: true });
const cold = await child('cold', root, nodeArgs);
log(`cold: ${round(cold.cpuMs / 1000, 1)} s CPU, peak ${mib(cold.peakRss)} MiB`);
const cache = await bytesUnder(join(root, '.mem'));
log(`cache: ${mib(cache.total)} MiB in ${cache.files} files`);
const save = await child('save', root, nodeArgs);
log(`save: ${round(save.saveCpuMs)} ms CPU, peak ${mib(save.peakBeforeSave)} -> ${mib(save.peakRss)} MiB`);
const warm = [];
const load = [];
for (let i = 0; i < Number(values.warm); i++) {
  warm.push(await child('warm', root, nodeArgs));
  load.push(await child('load', root, nodeArgs));
}
const pick = (key, runs = warm) => round(median(runs.map((w) => w[key])));
const result = {
  notes: cold.notes,
  cold: { cpuMs: round(cold.cpuMs), wallMs: round(cold.wallMs), peakRssMiB: mib(cold.peakRss) },
  cacheMiB: mib(cache.total),
  cacheFiles: cache.files,
  save: {
    cpuMs: round(save.saveCpuMs),
    wallMs: round(save.saveMs),
    peakBeforeMiB: mib(save.peakBeforeSave),
    peakAfterMiB: mib(save.peakRss),
    rssBeforeMiB: mib(save.rssBeforeSave),
  },
  warm: {
    runs: warm.length,
    loadCpuMs: pick('cpuMs', load),
    openCpuMs: pick('cpuMs'),
    openWallMs: pick('wallMs'),
    processCpuMs: pick('processCpuMs'),
    peakRssMiB: mib(median(warm.map((w) => w.peakRss))),
  },
};
log(
  `warm open: ${result.warm.openCpuMs} ms CPU (load ${result.warm.loadCpuMs}), process ${result.warm.processCpuMs} ms`,
);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
if (!values.keep && !values.dir) await rm(root, { recursive: true, force: true });

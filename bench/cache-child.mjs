// One step of bench/cache-scale.mjs, run in a fresh process so CPU time and peak RSS are its own:
// `node cache-child.mjs cold|warm|save <vault>`. Prints one JSON line.
import { performance } from 'node:perf_hooks';
import { openVault } from '../dist/index.js';
import { loadIndexCache, saveIndexCache } from '../dist/indexing/index-cache.js';

const [step, root] = process.argv.slice(2);
if (!root) throw new Error('usage: node cache-child.mjs <cold|warm|load|save> <vault>');
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const peak = () => process.resourceUsage().maxRSS * 1024;
const out = { step };
const startCpu = cpu();
const start = performance.now();

if (step === 'cold') {
  // Everything a first `mem index` does: read, parse, index every note, then save the cache.
  const vault = await openVault({ path: root, rebuild: true });
  out.notes = vault.noteCount;
} else if (step === 'warm') {
  // A whole warm open (load the cache, then walk and stat every note), as `mem recall` does it.
  const vault = await openVault({ path: root });
  out.notes = vault.noteCount;
  if (vault.lastRefresh.unchanged !== vault.noteCount) throw new Error('warm open re-read notes');
} else if (step === 'load') {
  // The cache load alone.
  const cached = await loadIndexCache(root);
  if (cached.status !== 'loaded') throw new Error(`cache not loaded: ${cached.reason}`);
} else if (step === 'save') {
  // The save alone, from an index loaded from the cache: how much it costs and whether it raises the peak.
  const cached = await loadIndexCache(root);
  if (cached.status !== 'loaded') throw new Error(`cache not loaded: ${cached.reason}`);
  out.peakBeforeSave = peak();
  out.rssBeforeSave = process.memoryUsage().rss;
  const save = performance.now();
  const saveCpu = cpu();
  const saved = await saveIndexCache(root, cached.index);
  if (saved && saved.saved === false) throw new Error(saved.reason);
  out.saveMs = performance.now() - save;
  out.saveCpuMs = cpu() - saveCpu;
} else {
  throw new Error(`unknown step ${step}`);
}
out.wallMs = performance.now() - start;
out.cpuMs = cpu() - startCpu;
out.processCpuMs = cpu();
out.peakRss = peak();
process.stdout.write(`${JSON.stringify(out)}\n`);

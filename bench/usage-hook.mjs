// Loaded with `node --import` into a process the benchmark measures: on exit, it writes that
// process's own CPU time (all threads) and peak RSS as JSON to the file MEM_BENCH_USAGE names.
// A whole process's cost, as `time` would give it, at microsecond resolution and without GNU time.
import { writeFileSync } from 'node:fs';

const target = process.env['MEM_BENCH_USAGE'];
if (target) {
  // Processes this one starts are not measured into the same file.
  delete process.env['MEM_BENCH_USAGE'];
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    const usage = { cpuMs: (user + system) / 1000, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
    writeFileSync(target, JSON.stringify(usage));
  });
}

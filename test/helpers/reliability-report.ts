import { appendFile } from 'node:fs/promises';

/**
 * One row of the Reliability table (docs/reliability.md): a class test says what it tried (cases, kills, …)
 * and what was lost. `node scripts/reliability.mjs` sets MEM_RELIABILITY_REPORT to a file and
 * renders the lines the tests append to it; without it, this does nothing.
 */
export async function reportReliability(
  row: { class: string } & Record<string, string | number>,
): Promise<void> {
  const file = process.env['MEM_RELIABILITY_REPORT'];
  if (file) await appendFile(file, `${JSON.stringify(row)}\n`);
}

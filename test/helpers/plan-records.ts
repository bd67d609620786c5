import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The plan records in `.mem/plans/` (src/git/pending-plan.ts), as written, by file name. */
export async function planRecords(root: string): Promise<Array<Record<string, unknown>>> {
  const dir = join(root, '.mem/plans');
  const names = await readdir(dir).catch(() => [] as string[]);
  const records = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort())
    records.push(JSON.parse(await readFile(join(dir, name), 'utf8')) as Record<string, unknown>);
  return records;
}

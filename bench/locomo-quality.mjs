// LoCoMo evidence recall alone (no scale run, nothing written): node bench/locomo-quality.mjs [--conversations N]
import { parseArgs } from 'node:util';
import { benchLocomo } from './locomo.mjs';

const { values } = parseArgs({ options: { conversations: { type: 'string' } } });
const log = (line) => process.stderr.write(`${line}\n`);
const result = await benchLocomo({
  conversations: values.conversations ? Number(values.conversations) : undefined,
  log,
});
const { memvaultRecall, memvaultCompile, questions, conversations } = result;
process.stdout.write(
  `${JSON.stringify({ conversations, questions, memvaultRecall, memvaultCompile }, null, 2)}\n`,
);

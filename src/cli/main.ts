#!/usr/bin/env node
import { runCli } from './program.js';

// A reader that stops early (`mem recall --batch q.jsonl | head -1`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2));

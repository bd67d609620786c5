import type { Command } from 'commander';
import { findVault } from '../../core/find-vault.js';
import { readServeRecord } from '../../core/serve-record.js';
import { type GlobalOptions, printJson } from '../context.js';
import type { CliIO } from '../io.js';
import { library } from '../library.js';

const rootOf = (command: Command, io: CliIO) =>
  findVault((command.optsWithGlobals() as GlobalOptions).vault, io.cwd, io.env);

/** A value as `mem config` prints it: JSON, so a string and the number or boolean it spells differ. */
const shown = (value: unknown) => (value === undefined ? '(unset)' : JSON.stringify(value));

const commitText = (result: { committed: boolean; sha?: string; reason?: string }) =>
  result.committed
    ? `committed ${result.sha?.slice(0, 7) ?? ''}`.trim()
    : `not committed: ${result.reason ?? 'no git repository'}`;

/**
 * A running `mem serve` read the config when it started and keeps it (the daemon stops by itself
 * when the file changes): the person is told, or the change would seem ignored.
 */
async function noteRunningServer(root: string, io: CliIO): Promise<void> {
  const server = await readServeRecord(root, 'serve');
  if (server)
    io.stderr(
      `mem: note: the mem serve running at ${server.url} (pid ${server.pid}) read mem.config.json when it started; restart it for the change to apply\n`,
    );
}

export function configCommands(program: Command, io: CliIO): void {
  const config = program
    .command('config')
    .description('read and change mem.config.json, one dotted key at a time (checked against its schema)');
  configGet(config, io);
  configSet(config, io);
  configUnset(config, io);
  configAccept(config, io);
  configList(config, io);
}

/** `mem config get <key>`: the effective value, a group as an object. */
function configGet(config: Command, io: CliIO): void {
  config
    .command('get')
    .description('print the effective value of a key (e.g. timezone, llm.model, embeddings.enabled)')
    .argument('<key>', 'dotted key; a group (recall.weights) prints the group')
    .option('--json', 'machine-readable output')
    .action(async (key: string, options: { json?: boolean }, command: Command) => {
      const { getConfig } = await library();
      const value = await getConfig(await rootOf(command, io), key);
      if (options.json) printJson(io, { key, value: value ?? null });
      else io.stdout(`${typeof value === 'string' ? value : shown(value)}\n`);
    });
}

/** `mem config set <key> <value>`: one key written, the value read as JSON when it parses. */
function configSet(config: Command, io: CliIO): void {
  config
    .command('set')
    .description(
      'set a key in mem.config.json: the value is read as JSON when it parses (8, true, ["a"]), else as text',
    )
    .argument('<key>', 'dotted key, e.g. reflect.maxTokensPerDay')
    .argument('<value>', 'the new value')
    .option('--json', 'machine-readable output')
    .action(async (key: string, text: string, options: { json?: boolean }, command: Command) => {
      const { parseConfigValue, setConfig } = await library();
      // The key's form by config set's input schema; its value by the config's own schema, in setConfig.
      const { checkInput, configSetInput } = await import('../../api/inputs/index.js');
      const input = checkInput(configSetInput, { key, value: parseConfigValue(text) });
      const root = await rootOf(command, io);
      const result = await setConfig(root, input.key, input.value);
      if (result.changed) await noteRunningServer(root, io);
      if (options.json) return printJson(io, result);
      if (!result.changed) {
        io.stdout(`${key} is already ${shown(result.value)}; nothing written\n`);
        return;
      }
      io.stdout(`${key}: ${shown(result.previous)} -> ${shown(result.value)} (${commitText(result)})\n`);
    });
}

/** `mem config unset <key>`: the key's default applies again. */
function configUnset(config: Command, io: CliIO): void {
  config
    .command('unset')
    .description('remove a key from mem.config.json: its default applies again')
    .argument('<key>', 'dotted key')
    .option('--json', 'machine-readable output')
    .action(async (key: string, options: { json?: boolean }, command: Command) => {
      const { unsetConfig } = await library();
      const root = await rootOf(command, io);
      const result = await unsetConfig(root, key);
      if (result.changed) await noteRunningServer(root, io);
      if (options.json) return printJson(io, result);
      if (!result.changed) {
        io.stdout(`${key} is not set in mem.config.json; its default ${shown(result.value)} applies\n`);
        return;
      }
      io.stdout(
        `${key}: ${shown(result.previous)} -> ${shown(result.value)} (default; ${commitText(result)})\n`,
      );
    });
}

/** `mem config accept [--refuse]`: the settings a remote proposed at mem sync, applied or dropped. */
function configAccept(config: Command, io: CliIO): void {
  config
    .command('accept')
    .description(
      'apply the model, embeddings and hook settings a remote proposed at mem sync (kept out of the merge until then); --refuse drops them',
    )
    .option('--refuse', "keep this device's values and drop the proposal")
    .option('--json', 'machine-readable output')
    .action(async (options: { refuse?: boolean; json?: boolean }, command: Command) => {
      const { acceptProposedConfig } = await library();
      const root = await rootOf(command, io);
      const result = await acceptProposedConfig(root, { refuse: options.refuse === true });
      if (options.json) return printJson(io, result);
      if (!result.from) {
        io.stdout('no settings from a remote are waiting\n');
        return;
      }
      if (options.refuse) {
        io.stdout(
          `dropped what ${result.from.slice(0, 7)} proposed: ${Object.keys(result.values).join(', ')}\n`,
        );
        return;
      }
      if (result.results.some((r) => r.changed)) await noteRunningServer(root, io);
      for (const r of result.results)
        io.stdout(`${r.key}: ${shown(r.previous)} -> ${shown(r.value)} (${commitText(r)})\n`);
    });
}

/** `mem config list`: every key with its effective value. */
function configList(config: Command, io: CliIO): void {
  config
    .command('list')
    .description('every key with its effective value; (default) marks a value the file does not set')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { listConfig } = await library();
      const entries = await listConfig(await rootOf(command, io));
      if (options.json) return printJson(io, entries);
      const width = Math.max(...entries.map((e) => e.key.length));
      for (const entry of entries)
        io.stdout(
          `${entry.key.padEnd(width)}  ${shown(entry.value)}${entry.isDefault ? '  (default)' : ''}\n`,
        );
    });
}

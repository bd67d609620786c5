import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { type OptionRule, optionRules, refuseConflicts } from '../../src/cli/parse-options.js';
import { buildProgram } from '../../src/cli/program.js';
import { mem } from '../helpers/run-cli.js';

const io: CliIO = {
  stdout: () => {},
  stderr: () => {},
  cwd: process.cwd(),
  env: {},
  isTTY: false,
  readStdin: async () => '',
};

function commandsOf(command: Command): Command[] {
  return [command, ...command.commands.flatMap(commandsOf)];
}

function pathOf(command: Command): string[] {
  return command.parent ? [...pathOf(command.parent), command.name()] : [];
}

/**
 * The argv that gives exactly `tokens` to `command` (and the arguments it cannot run without):
 * options of a parent before the command's name, a value for every option that takes one.
 */
function argvFor(command: Command, tokens: string[]): string[] {
  const global: string[] = [];
  const local: string[] = [];
  for (const token of tokens.filter((t) => t.startsWith('-'))) {
    let owner: Command | null = command;
    while (owner && !owner.options.some((o) => o.long === token)) owner = owner.parent;
    const option = owner?.options.find((o) => o.long === token);
    if (!owner || !option) throw new Error(`no option ${token} on ${command.name()}`);
    const words = option.required || option.optional ? [token, 'x'] : [token];
    (owner === command ? local : global).push(...words);
  }
  const named = new Set(tokens.map((t) => /^[[<](.+?)(\.\.\.)?[\]>]$/.exec(t)?.[1]));
  const positional: string[] = [];
  for (const argument of command.registeredArguments) {
    if (!argument.required && !named.has(argument.name())) break;
    positional.push('x');
  }
  return [...global, ...pathOf(command), ...positional, ...local];
}

/** Every combination a rule refuses, with the message that refuses it. */
function refusals(command: Command, rule: OptionRule): { tokens: string[]; message: string }[] {
  // A flag that needs another is given with it, so what refuses it is the conflict under test.
  const needed = optionRules(command).flatMap((r) =>
    r.flag === rule.flag && r.needs ? r.needs.slice(0, 1) : [],
  );
  if (rule.conflicts)
    return rule.conflicts.map((other) => ({
      tokens: [rule.flag, other, ...needed],
      message: `mem: ${rule.flag} cannot be used with ${other}`,
    }));
  if (rule.needs)
    return [{ tokens: [rule.flag], message: `mem: ${rule.flag} needs ${rule.needs.join(' or ')}` }];
  return [
    {
      tokens: [rule.flag],
      message: `mem: ${rule.flag} does not apply to ${['mem', ...pathOf(command)].join(' ')}`,
    },
  ];
}

const declared = commandsOf(buildProgram(io)).flatMap((command) =>
  optionRules(command).flatMap((rule) => refusals(command, rule).map((refusal) => ({ command, ...refusal }))),
);

describe('a flag that does not apply to a mode', () => {
  it('is declared for every command with modes', () => {
    const commands = new Set(declared.map((d) => pathOf(d.command).join(' ')));
    expect([...commands].sort()).toEqual([
      'compile',
      'daemon start',
      'forget',
      'init',
      'recall',
      'reflect',
      'watch',
    ]);
    expect(declared.length).toBeGreaterThanOrEqual(20);
  });

  // Each refusal comes before the vault is opened: no vault exists where these run.
  it.each(declared.map((d) => [argvFor(d.command, d.tokens).join(' '), d] as const))(
    'mem %s exits 2 and names both',
    async (_argv, { command, tokens, message }) => {
      const result = await mem(argvFor(command, tokens), { cwd: '/nonexistent-mem-test' });
      expect(result.stderr).toContain(message);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
    },
  );

  it('a rule that names a flag the command lacks is a programming error, found when the program is built', () => {
    const command = new Command('x').option('--one');
    expect(() => refuseConflicts(command, [{ flag: '--one', conflicts: ['--two'] }])).toThrow(
      'x: option rule names --two, which the command does not have',
    );
  });

  it('a flag is refused only beside what it conflicts with: alone it reaches the action', async () => {
    let ran = 0;
    const command = new Command('x')
      .exitOverride()
      .argument('[what]')
      .option('--batch <file>')
      .option('--json')
      .action(() => {
        ran += 1;
      });
    refuseConflicts(command, [{ flag: '--batch', conflicts: ['[what]', '--json'] }]);
    await command.parseAsync(['--batch', 'f'], { from: 'user' });
    await command.parseAsync(['--json', 'w'], { from: 'user' });
    expect(ran).toBe(2);
    await expect(command.parseAsync(['--batch', 'f', 'w'], { from: 'user' })).rejects.toThrow(
      '--batch cannot be used with [what]',
    );
    expect(ran).toBe(2);
  });
});

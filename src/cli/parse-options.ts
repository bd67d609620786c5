import type { Command } from 'commander';
import { MemError } from '../core/errors.js';
// The input rules read text only and load no time-zone library: the one module of time/ that the
// edges import directly, so a flag is checked before the library loads (scripts/check-layers.mjs).
import { isMomentText, MOMENT_FORMAT } from '../time/parse-input-time.js';

/** The open ends of a range of days given by one of `--from` and `--to`. */
export const FIRST_DAY = '0000-01-01';
export const LAST_DAY = '9999-12-31';

/**
 * A number typed as a flag, unchecked, for a verb's input schema to check: NaN for text that is no
 * number (Number('') is 0, Number('0x10') 16: neither what a person meant).
 */
export function numberFlag(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  return /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(text.trim()) ? Number(text) : Number.NaN;
}

export function parsePositiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new MemError('USAGE', `${name} must be a positive whole number, got "${value}"`);
  return n;
}

/**
 * Checks a moment given as option `name` (`--now`, `--at`), which the error names, by the rule every
 * edge uses, and returns it as text: the vault reads it in its own time zone when it names no offset
 * (here it would be read in the machine's, and a daemon may run elsewhere).
 */
export function parseNow(value: string | undefined, name = '--now'): string | undefined {
  if (value === undefined || isMomentText(value)) return value;
  throw new MemError('USAGE', `${name} must be ${MOMENT_FORMAT}, got "${value}"`);
}

/**
 * A flag that does not apply to a mode is refused, never silently ignored (`forget --hard --dry-run`
 * once deleted the note). A rule names a flag (`--batch`, a parent's `--vault`, or an argument as
 * `[query]`) and the flags and arguments it cannot be given with, or the flags of which it needs
 * one; a rule with neither refuses the flag on this command outright.
 */
export interface OptionRule {
  flag: string;
  conflicts?: string[];
  needs?: string[];
  /** Why, shown after the refusal: what the flag does in the other mode, or what to do instead. */
  because?: string;
}

const RULES = new WeakMap<Command, OptionRule[]>();

/** The rules declared on `command`, for the test that tries every one. */
export function optionRules(command: Command): readonly OptionRule[] {
  return RULES.get(command) ?? [];
}

/**
 * Declares `rules` on `command` (after its options and arguments) and checks them before its action
 * runs, so a refused combination exits 2 before any vault is opened or written.
 */
export function refuseConflicts(command: Command, rules: OptionRule[]): Command {
  for (const rule of rules)
    for (const token of [rule.flag, ...(rule.conflicts ?? []), ...(rule.needs ?? [])])
      if (!isGiven(command, token, true))
        throw new Error(`${command.name()}: option rule names ${token}, which the command does not have`);
  RULES.set(command, [...optionRules(command), ...rules]);
  command.hook('preAction', (_hooked, action) => {
    if (action !== command) return;
    for (const rule of rules) {
      if (!isGiven(command, rule.flag)) continue;
      const clash = rule.conflicts?.find((token) => isGiven(command, token));
      const why = rule.because ? ` (${rule.because})` : '';
      if (clash !== undefined) throw new MemError('USAGE', `${rule.flag} cannot be used with ${clash}${why}`);
      if (rule.needs && !rule.needs.some((token) => isGiven(command, token)))
        throw new MemError('USAGE', `${rule.flag} needs ${rule.needs.join(' or ')}${why}`);
      if (!rule.conflicts && !rule.needs)
        throw new MemError('USAGE', `${rule.flag} does not apply to ${commandPath(command)}${why}`);
    }
  });
  return command;
}

function commandPath(command: Command): string {
  return command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();
}

/**
 * Whether `token` was given on the command line: an argument (`[query]`, `<text>`) that has a value,
 * or an option of the command or of a parent (`--vault`) whose value did not come from its default.
 * With `declared`, whether the command knows the token at all.
 */
function isGiven(command: Command, token: string, declared = false): boolean {
  const argument = /^[[<](.+?)(\.\.\.)?[\]>]$/.exec(token)?.[1];
  if (argument !== undefined) {
    const index = command.registeredArguments.findIndex((a) => a.name() === argument);
    if (declared) return index >= 0;
    const value: unknown = command.processedArgs[index];
    return value !== undefined && !(Array.isArray(value) && value.length === 0);
  }
  for (let at: Command | null = command; at; at = at.parent) {
    const option = at.options.find((o) => o.long === token);
    if (!option) continue;
    if (declared) return true;
    const source = at.getOptionValueSource(option.attributeName());
    return source !== undefined && source !== 'default';
  }
  return false;
}

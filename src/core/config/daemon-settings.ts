// The background daemon's settings (`daemon` in mem.config.json), read by the command line
// without the config schema: loading zod would cost a command more than asking the daemon does.
// config.ts validates the same keys, with these defaults, whenever the library opens the vault.
import { join } from 'node:path';
import { readRegularText } from '../regular-file.js';
import { CONFIG_FILE } from '../vault-files.js';

export interface DaemonSettings {
  /** Whether recall and compile may start a daemon for this vault */
  enabled: boolean;
  /** A daemon is started only for a vault of at least this many notes */
  minNotes: number;
  /** The daemon exits after this many minutes without a request */
  idleMinutes: number;
}

/**
 * Opening a vault costs about 0.2 ms of CPU per note on top of some 150 ms of loading code, and
 * asking a running daemon some 150 ms in all: below a few thousand notes a daemon saves too
 * little to be worth a process that stays behind.
 */
export const DAEMON_DEFAULTS: DaemonSettings = { enabled: true, minNotes: 2000, idleMinutes: 10 };

/**
 * The vault's daemon settings, or undefined when the command must not start one: no
 * `mem.config.json` (not a vault: nothing is left running for a stray folder), or a config that
 * cannot be read or holds a wrong `daemon` value (the command opens the vault itself, and the
 * library reports the problem in its own words).
 */
export async function readDaemonSettings(root: string): Promise<DaemonSettings | undefined> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readRegularText(join(root, CONFIG_FILE)));
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const given = (raw as { daemon?: unknown }).daemon ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return undefined;
  const { enabled, minNotes, idleMinutes } = given as Partial<Record<keyof DaemonSettings, unknown>>;
  const settings = {
    enabled: enabled ?? DAEMON_DEFAULTS.enabled,
    minNotes: minNotes ?? DAEMON_DEFAULTS.minNotes,
    idleMinutes: idleMinutes ?? DAEMON_DEFAULTS.idleMinutes,
  };
  const valid =
    typeof settings.enabled === 'boolean' &&
    Number.isInteger(settings.minNotes) &&
    (settings.minNotes as number) >= 0 &&
    typeof settings.idleMinutes === 'number' &&
    settings.idleMinutes > 0 &&
    Number.isFinite(settings.idleMinutes);
  return valid ? (settings as DaemonSettings) : undefined;
}

// The one check of a time zone name (`timezone` in mem.config.json, `--tz`, HTTP and MCP fields),
// and the machine's own zone, which `mem init` writes.

/** The zone this machine's runtime is in (UTC when it has none). */
export const systemZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Zone names already checked: building an Intl.DateTimeFormat costs about 0.2 ms. */
const knownZones = new Map<string, boolean>();

/** Whether `zone` is an IANA time zone this runtime knows: the one check of `timezone` everywhere. */
export function isTimeZone(zone: string): boolean {
  let valid = knownZones.get(zone);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      valid = true;
    } catch {
      valid = false;
    }
    knownZones.set(zone, valid);
  }
  return valid;
}

/** What installing the `memvault` entry into a config file's text comes to. */
export type MergeResult =
  /** The file already holds this very entry */
  | { kind: 'unchanged' }
  /** The new text of the file; `replaced` when a different `memvault` entry was there */
  | { kind: 'changed'; text: string; replaced: boolean }
  /** A different `memvault` entry is there and --force was not given; `existing` shows it */
  | { kind: 'conflict'; existing: string };

/** Deep equality of JSON values, object key order aside. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, k) => sameJson(v, b[k]))
    );
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

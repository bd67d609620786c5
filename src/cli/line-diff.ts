/**
 * A small unified-style diff for --dry-run: lines removed (`-`) and added (`+`) with up to two
 * lines of context. Notes are small, so the quadratic LCS table is fine.
 */
export function lineDiff(before: string, after: string): string {
  const a = before === '' ? [] : before.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const b = after.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: Array<[' ' | '-' | '+', string]> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push([' ', a[i++]!]);
      j++;
    }
    // Removals before additions, as diff(1) shows a changed line.
    else if (i < a.length && (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push(['-', a[i++]!]);
    else ops.push(['+', b[j++]!]);
  }
  const keep = ops.map(
    (op, k) => op[0] !== ' ' || ops.slice(Math.max(0, k - 2), k + 3).some((o) => o[0] !== ' '),
  );
  const out: string[] = [];
  ops.forEach((op, k) => {
    if (keep[k]) out.push(`${op[0]}${op[1]}`);
    else if (keep[k - 1]) out.push('  …');
  });
  return out.join('\n');
}

// Exact top-k by dot product over stored vectors: one pass over the typed arrays, a k-sized heap,
// nothing allocated per vector. The stored vectors are unit length, and the query is normalized
// here, so a score is the cosine similarity.
import type { VectorRows } from './vector-store.js';

export interface DotTopK {
  /** The best slots, best first (equal scores: the lower slot first) */
  slots: Int32Array;
  /** Their scores (cosine similarity), in the same order */
  scores: Float64Array;
}

/**
 * The `k` rows closest to `query` by dot product (cosine: rows are unit length and the query is
 * normalized). `allow`, when given, is asked for each slot and a refused one is skipped. A query of
 * another length than the rows', or of norm 0, finds nothing.
 */
export function topKByDot(
  rows: VectorRows,
  query: ArrayLike<number>,
  k: number,
  allow?: (slot: number) => boolean,
): DotTopK {
  const dims = rows.dims;
  const q = unitQuery(query, dims);
  const size = q ? Math.max(0, Math.min(Math.floor(k), rows.count)) : 0;
  // A min-heap of the best so far: heapScores[0] is the worst of them.
  const heapSlots = new Int32Array(size);
  const heapScores = new Float64Array(size);
  let filled = 0;
  if (q && size > 0) {
    const { f32, i8, scales } = rows;
    for (let slot = 0; slot < rows.count; slot++) {
      if (allow && !allow(slot)) continue;
      const base = slot * dims;
      let score = 0;
      if (f32) score = dotF32(q, f32, base, dims);
      else if (i8 && scales) score = dotI8(q, i8, base, dims) * (scales[slot] ?? 0);
      if (filled < size) {
        heapScores[filled] = score;
        heapSlots[filled] = slot;
        siftUp(heapScores, heapSlots, filled++);
      } else if (score > (heapScores[0] ?? 0)) {
        // Strictly better only: at an equal score the lower slot, seen first, stays.
        heapScores[0] = score;
        heapSlots[0] = slot;
        siftDown(heapScores, heapSlots, size);
      }
    }
  }
  // Sorted best first by taking the worst off the heap into the back.
  const slots = new Int32Array(filled);
  const scores = new Float64Array(filled);
  for (let n = filled; n > 0; n--) {
    slots[n - 1] = heapSlots[0] ?? 0;
    scores[n - 1] = heapScores[0] ?? 0;
    heapScores[0] = heapScores[n - 1] ?? 0;
    heapSlots[0] = heapSlots[n - 1] ?? 0;
    siftDown(heapScores, heapSlots, n - 1);
  }
  return { slots, scores };
}

/** The query as a unit vector of `dims`; undefined when it has another length, a non-finite value or norm 0. */
export function unitQuery(query: ArrayLike<number>, dims: number): Float64Array | undefined {
  if (query.length !== dims) return undefined;
  const q = new Float64Array(dims);
  let squares = 0;
  for (let j = 0; j < dims; j++) {
    const x = Number(query[j]);
    if (!Number.isFinite(x)) return undefined;
    q[j] = x;
    squares += x * x;
  }
  if (squares === 0) return undefined;
  const norm = Math.sqrt(squares);
  for (let j = 0; j < dims; j++) q[j] = (q[j] ?? 0) / norm;
  return q;
}

/** The dot product of a unit query (see unitQuery) with one row: their cosine. */
export function dotAt(rows: VectorRows, q: Float64Array, slot: number): number {
  if (rows.f32) return dotF32(q, rows.f32, slot * rows.dims, rows.dims);
  if (rows.i8 && rows.scales)
    return dotI8(q, rows.i8, slot * rows.dims, rows.dims) * (rows.scales[slot] ?? 0);
  return 0;
}

// Four sums in turn: the loop's additions do not wait on each other (about 1.3× faster than one).
// One copy per array type on purpose: a function that sees both Float32Array and Int8Array rows
// becomes polymorphic in V8 and slower on the hot path of every semantic read.
function dotF32(q: Float64Array, v: Float32Array, base: number, dims: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let j = 0;
  for (; j + 3 < dims; j += 4) {
    const at = base + j;
    a += (q[j] as number) * (v[at] as number);
    b += (q[j + 1] as number) * (v[at + 1] as number);
    c += (q[j + 2] as number) * (v[at + 2] as number);
    d += (q[j + 3] as number) * (v[at + 3] as number);
  }
  for (; j < dims; j++) a += (q[j] as number) * (v[base + j] as number);
  return a + b + (c + d);
}

function dotI8(q: Float64Array, v: Int8Array, base: number, dims: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let j = 0;
  for (; j + 3 < dims; j += 4) {
    const at = base + j;
    a += (q[j] as number) * (v[at] as number);
    b += (q[j + 1] as number) * (v[at + 1] as number);
    c += (q[j + 2] as number) * (v[at + 2] as number);
    d += (q[j + 3] as number) * (v[at + 3] as number);
  }
  for (; j < dims; j++) a += (q[j] as number) * (v[base + j] as number);
  return a + b + (c + d);
}

/** Is entry a worse than entry b (lower score; at an equal score, the higher slot)? */
function worse(scores: Float64Array, slots: Int32Array, a: number, b: number): boolean {
  const sa = scores[a] as number;
  const sb = scores[b] as number;
  return sa < sb || (sa === sb && (slots[a] as number) > (slots[b] as number));
}

function swap(scores: Float64Array, slots: Int32Array, a: number, b: number): void {
  const s = scores[a] as number;
  scores[a] = scores[b] as number;
  scores[b] = s;
  const t = slots[a] as number;
  slots[a] = slots[b] as number;
  slots[b] = t;
}

function siftUp(scores: Float64Array, slots: Int32Array, at: number): void {
  let i = at;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!worse(scores, slots, i, parent)) return;
    swap(scores, slots, i, parent);
    i = parent;
  }
}

function siftDown(scores: Float64Array, slots: Int32Array, size: number): void {
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= size) return;
    const right = left + 1;
    const child = right < size && worse(scores, slots, right, left) ? right : left;
    if (!worse(scores, slots, child, i)) return;
    swap(scores, slots, child, i);
    i = child;
  }
}

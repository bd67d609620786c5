// The vector cache's file, `.mem/embeddings-<model>.vec`: a header, the keys and the vectors as
// typed-array bytes, then an sha256 of everything before it. Reading it is one read and a few
// typed-array views of the bytes read (no parse per vector); any file that is not exactly such a
// file (truncated, bytes changed, another model, another version) decodes to undefined.
import { createHash } from 'node:crypto';
import { KEY_WORDS, type StoreArrays, type VectorEncoding, type VectorStore } from './vector-store.js';

/*
 * Layout (every number a 32-bit unsigned integer in the host's byte order, checked by ORDER):
 *   0  magic "MEMVEC\r\n"      8 bytes
 *   8  ORDER 0x01020304         written natively; a file from a host of the other order is foreign
 *  12  version (1)
 *  16  encoding (1 float32, 2 int8)
 *  20  dims
 *  24  count
 *  28  model name length in bytes, then the name in UTF-8, zero-padded to a multiple of 4
 *      keys: count × 32 bytes (the sha256 of each text embedded)
 *      int8 only: count × 4 bytes of Float32 scales
 *      vectors: count × dims × 4 bytes (Float32) or × 1 byte (int8), row after row
 *      sha256 of all the bytes above: 32 bytes
 */
const MAGIC = Buffer.from('MEMVEC\r\n', 'latin1');
const ORDER = 0x01020304;
export const VECTOR_FILE_VERSION = 1;
const FIXED = 32;
const DIGEST = 32;
const MAX_DIMS = 65_536;
const MAX_MODEL_BYTES = 1024;
const ENCODINGS: VectorEncoding[] = ['float32', 'int8'];

const pad4 = (n: number) => (n + 3) & ~3;

/**
 * What a file's first FIXED (32) bytes say: its encoding, dimensions and how many vectors it holds,
 * or undefined when they are no vector file's header. Not checked against the digest: for a report
 * (`mem status`), not for reading the vectors.
 */
export function vectorFileHead(
  bytes: Uint8Array,
): { encoding: VectorEncoding; dims: number; count: number } | undefined {
  if (bytes.byteLength < FIXED || !MAGIC.equals(bytes.subarray(0, MAGIC.length))) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, FIXED);
  const word = (at: number) => view.getUint32(at, true);
  // Written in the host's order; read both ways, the ORDER word says which one this is.
  const little = word(8) === ORDER;
  if (!little && view.getUint32(8, false) !== ORDER) return undefined;
  const at = (offset: number) => view.getUint32(offset, little);
  const encoding = ENCODINGS[at(16) - 1];
  if (at(12) !== VECTOR_FILE_VERSION || !encoding) return undefined;
  return { encoding, dims: at(20), count: at(24) };
}

/** The store's arrays read from a file's bytes, or undefined when the bytes are not a whole file of `model`. */
export function decodeVectorFile(bytes: Uint8Array, model: string): StoreArrays | undefined {
  if (bytes.byteLength < FIXED + DIGEST) return undefined;
  // Typed-array views need 4-byte alignment; a large file read is its own buffer at offset 0.
  const data = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
  if (!MAGIC.equals(data.subarray(0, MAGIC.length))) return undefined;
  const head = new Uint32Array(data.buffer, data.byteOffset + 8, 6);
  const [order, version, encodingCode = 0, dims = 0, count = 0, modelBytes = 0] = head;
  if (order !== ORDER || version !== VECTOR_FILE_VERSION) return undefined;
  const encoding = ENCODINGS[encodingCode - 1];
  if (!encoding || (dims === 0 && count !== 0) || dims > MAX_DIMS || modelBytes > MAX_MODEL_BYTES)
    return undefined;
  const keysAt = FIXED + pad4(modelBytes);
  const scalesAt = keysAt + count * KEY_WORDS * 4;
  const vectorsAt = scalesAt + (encoding === 'int8' ? count * 4 : 0);
  const end = vectorsAt + count * dims * (encoding === 'int8' ? 1 : 4);
  if (data.byteLength !== end + DIGEST) return undefined;
  const digest = createHash('sha256').update(data.subarray(0, end)).digest();
  if (!digest.equals(data.subarray(end))) return undefined;
  if (Buffer.from(data.buffer, data.byteOffset + FIXED, modelBytes).toString('utf8') !== model)
    return undefined;
  const at = data.byteOffset;
  const arrays: StoreArrays = {
    encoding,
    dims,
    count,
    keys: new Int32Array(data.buffer, at + keysAt, count * KEY_WORDS),
  };
  if (encoding === 'int8') {
    arrays.scales = new Float32Array(data.buffer, at + scalesAt, count);
    arrays.i8 = new Int8Array(data.buffer, at + vectorsAt, count * dims);
  } else {
    arrays.f32 = new Float32Array(data.buffer, at + vectorsAt, count * dims);
  }
  return arrays;
}

/** Rows copied per chunk when the slots written are not all of the store's, in order */
const CHUNK_ROWS = 4096;

/**
 * The bytes of a file holding `slots` of the store (ascending), in chunks to write one after the
 * other; the last is the checksum. The chunks are views of the store where they can be.
 */
export function* encodeVectorFile(
  store: VectorStore,
  model: string,
  slots: Int32Array,
): Generator<Uint8Array> {
  const hash = createHash('sha256');
  const emit = (chunk: Uint8Array) => {
    hash.update(chunk);
    return chunk;
  };
  const name = Buffer.from(model, 'utf8');
  if (name.length > MAX_MODEL_BYTES) throw new Error(`model name over ${MAX_MODEL_BYTES} bytes`);
  const count = slots.length;
  const head = new Uint8Array(FIXED + pad4(name.length));
  head.set(MAGIC, 0);
  new Uint32Array(head.buffer, 8, 6).set([
    ORDER,
    VECTOR_FILE_VERSION,
    ENCODINGS.indexOf(store.encoding) + 1,
    store.dims,
    count,
    name.length,
  ]);
  head.set(name, FIXED);
  yield emit(head);
  const dims = store.dims;
  const whole = slots.every((slot, i) => slot === i);
  const bytesOf = (a: Int32Array | Float32Array | Int8Array) =>
    new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const parts: Array<[Int32Array | Float32Array | Int8Array, number]> = [[store.keyRows(), KEY_WORDS]];
  if (store.encoding === 'int8' && store.scales && store.i8) parts.push([store.scales, 1], [store.i8, dims]);
  else if (store.f32) parts.push([store.f32, dims]);
  for (const [array, width] of parts) {
    if (whole) {
      yield emit(bytesOf(array.subarray(0, count * width)));
      continue;
    }
    for (let from = 0; from < count; from += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, count - from);
      const chunk = new (array.constructor as Int32ArrayConstructor)(rows * width) as typeof array;
      for (let r = 0; r < rows; r++) {
        const slot = slots[from + r] ?? 0;
        chunk.set(array.subarray(slot * width, (slot + 1) * width), r * width);
      }
      yield emit(bytesOf(chunk));
    }
  }
  yield hash.digest();
}

// A tiny BERT-shaped sentence-embedding model, built by the test itself (no model can be downloaded
// here): an ONNX graph whose last_hidden_state is a row of a token-embedding table per token, plus
// the config and a WordPiece tokenizer, laid out in a cache folder as Transformers.js stores a
// downloaded model (`<cache>/<model id>/config.json`, `onnx/model_quantized.onnx`, …). With mean
// pooling and normalization on top (the local provider's), a text's vector is the normalized mean
// of its tokens' rows, [CLS] and [SEP] included, which a test can compute by hand.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

// --- a minimal protobuf writer: varints, length-delimited fields, packed floats ---

type Bytes = Uint8Array;

function varint(value: number | bigint): number[] {
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n;
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}

const concat = (parts: Bytes[]): Bytes => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** Field `number` as a varint (wire type 0). */
const int = (number: number, value: number | bigint): Bytes =>
  Uint8Array.from([...varint((number << 3) | 0), ...varint(value)]);

/** Field `number` as length-delimited bytes (wire type 2): a string, bytes or a message. */
const bytes = (number: number, value: Bytes | string): Bytes => {
  const body = typeof value === 'string' ? new TextEncoder().encode(value) : value;
  return concat([Uint8Array.from([...varint((number << 3) | 2), ...varint(body.length)]), body]);
};

const message = (...fields: Bytes[]): Bytes => concat(fields);

// --- ONNX messages (onnx.proto3 field numbers) ---

const FLOAT = 1;
const INT64 = 7;

/** TensorShapeProto.Dimension: a named (symbolic) dimension */
const symbolicDim = (name: string) => bytes(1, bytes(2, name));

/** ValueInfoProto for a tensor of `elemType` with symbolic dimensions */
function valueInfo(name: string, elemType: number, dims: string[]): Bytes {
  const shape = message(...dims.map(symbolicDim));
  const tensorType = message(int(1, elemType), bytes(2, shape));
  return message(bytes(1, name), bytes(2, bytes(1, tensorType)));
}

function floatTensor(name: string, dims: number[], values: Float32Array): Bytes {
  const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  return message(...dims.map((d) => int(1, d)), int(2, FLOAT), bytes(8, name), bytes(9, raw));
}

function node(opType: string, inputs: string[], outputs: string[], name: string): Bytes {
  return message(
    ...inputs.map((i) => bytes(1, i)),
    ...outputs.map((o) => bytes(2, o)),
    bytes(3, name),
    bytes(4, opType),
  );
}

/**
 * An ONNX ModelProto (IR version 8, opset 17): inputs input_ids, attention_mask and
 * token_type_ids (int64 [batch, sequence]); output last_hidden_state = Gather(table, input_ids),
 * float [batch, sequence, dim]. The mask and the token types are inputs the graph does not use, as
 * mean pooling (in Transformers.js) is what must honour the mask.
 */
export function tinyOnnxModel(table: number[][]): Bytes {
  const dim = table[0]?.length ?? 0;
  const flat = Float32Array.from(table.flat());
  const graph = message(
    bytes(1, node('Gather', ['embeddings', 'input_ids'], ['last_hidden_state'], 'lookup')),
    bytes(2, 'tiny-bert'),
    bytes(5, floatTensor('embeddings', [table.length, dim], flat)),
    bytes(11, valueInfo('input_ids', INT64, ['batch', 'sequence'])),
    bytes(11, valueInfo('attention_mask', INT64, ['batch', 'sequence'])),
    bytes(11, valueInfo('token_type_ids', INT64, ['batch', 'sequence'])),
    bytes(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', 'hidden'])),
  );
  return message(
    int(1, 8),
    bytes(2, 'memvault-test'),
    bytes(7, graph),
    bytes(8, message(bytes(1, ''), int(2, 17))),
  );
}

// --- the model's vocabulary, table, tokenizer and config ---

export const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

export interface TinyModel {
  /** Token → id; ids index `table` */
  vocab: Map<string, number>;
  table: number[][];
  dim: number;
}

/**
 * A model over `words` (lower-case words and single CJK characters): each token's row is given by
 * `rowOf`, or by default a one-hot row per token (so texts sharing no token are orthogonal but for
 * [CLS] and [SEP]). [PAD] gets a large row, so pooling that counted padding would show.
 */
export function tinyModel(words: string[], rowOf?: (token: string, id: number) => number[]): TinyModel {
  const tokens = [...SPECIAL, ...words];
  const dim = rowOf ? (rowOf(tokens[0] as string, 0).length as number) : tokens.length;
  const vocab = new Map(tokens.map((t, i) => [t, i]));
  const table = tokens.map((token, id) => {
    if (rowOf) return rowOf(token, id);
    const row = new Array<number>(dim).fill(0);
    row[id] = token === '[PAD]' ? 50 : 1;
    return row;
  });
  return { vocab, table, dim };
}

function tokenizerJson(vocab: Map<string, number>) {
  const special = (content: string) => ({
    id: vocab.get(content),
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [vocab.get('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [vocab.get('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab),
    },
  };
}

/** The files of `model`, relative to its folder, as the Hub serves them. */
export function tinyModelFiles(model: TinyModel): Record<string, Uint8Array | string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    'config.json': json({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: model.dim,
      num_attention_heads: 1,
      num_hidden_layers: 1,
      vocab_size: model.table.length,
      max_position_embeddings: 512,
      type_vocab_size: 2,
      pad_token_id: 0,
    }),
    'tokenizer.json': json(tokenizerJson(model.vocab)),
    'tokenizer_config.json': json({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
    'onnx/model_quantized.onnx': tinyOnnxModel(model.table),
  };
}

/** Writes the model's files under `<cacheDir>/<modelId>/`, where a download would put them. */
export async function writeTinyModel(cacheDir: string, modelId: string, model: TinyModel): Promise<string> {
  const folder = join(cacheDir, ...modelId.split('/'));
  for (const [path, content] of Object.entries(tinyModelFiles(model))) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), content);
  }
  return folder;
}

/** What the provider should return for `tokens` (after [CLS]/[SEP] are added): the normalized mean row. */
export function expectedVector(model: TinyModel, tokens: string[]): number[] {
  const sum = new Array<number>(model.dim).fill(0);
  for (const token of ['[CLS]', ...tokens, '[SEP]']) {
    const row = model.table[model.vocab.get(token) ?? (model.vocab.get('[UNK]') as number)] as number[];
    row.forEach((x, i) => {
      sum[i] = (sum[i] as number) + x;
    });
  }
  const count = tokens.length + 2;
  const mean = sum.map((x) => x / count);
  const norm = Math.hypot(...mean);
  return mean.map((x) => x / norm);
}

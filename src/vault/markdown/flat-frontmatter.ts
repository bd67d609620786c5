// Flat frontmatter (`key: value` lines, no YAML features) read without the YAML parser.
import { ownString } from './own-string.js';
import type { Span } from './spans.js';

export interface FlatFrontmatter {
  data: Record<string, unknown>;
  /** Each string scalar that holds `[[`, with its range in the YAML source (quotes included) and its key */
  linkScalars: { range: Span; property: string }[];
}

// A key mem and Obsidian write: a name, not a YAML word (`true`, `null`) nor an object's own key.
const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const RESERVED_KEY = /^(?:null|true|false|__proto__)$/i;
// Anything YAML might read as other than the characters written: a control character, a BOM,
// a lone surrogate, an escape. Such a value goes to the full parser.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\\\t]|\p{Cs}/u;
// A plain scalar starts with none of YAML's indicators and holds no `: ` nor ` #` (a comment),
// and in a flow list no `,[]{}` either.
const PLAIN_START = /^[^-?:,[\]{}#&*!|>'"%@`\s]/;
const PLAIN_BAD = /: |:$| #|\s$/;
const FLOW_BAD = /[,[\]{}]/;
// What the YAML 1.2 core schema reads as other than a string. Only the plainest of these (a
// decimal integer or fraction without leading zeros) is read here; the rest go to the full parser.
const CORE_SPECIAL =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const SIMPLE_NUMBER = /^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/;

type Scalar = { value: unknown } | undefined;

/**
 * Reads frontmatter made only of `key: value` lines, where a value is a plain, single-quoted or
 * double-quoted scalar without escapes, or a one-line flow list of such scalars (`[a, "b"]`).
 * Returns undefined for anything else (nesting, block lists, comments, anchors, escapes, blank
 * lines, duplicate keys, numbers in other notations …), which the YAML parser then reads. Where
 * it answers, it answers as the YAML parser (core schema) does; a property test holds it to that.
 */
export function readFlatFrontmatter(source: string): FlatFrontmatter | undefined {
  if (source === '' || source.includes('\r')) return undefined;
  const lines = source.endsWith('\n') ? source.slice(0, -1).split('\n') : source.split('\n');
  const data: Record<string, unknown> = {};
  const linkScalars: FlatFrontmatter['linkScalars'] = [];
  let offset = 0;
  for (const line of lines) {
    const colon = line.indexOf(': ');
    const key = colon === -1 ? undefined : line.slice(0, colon);
    if (key === undefined || !KEY.test(key) || RESERVED_KEY.test(key) || Object.hasOwn(data, key))
      return undefined;
    const raw = line.slice(colon + 2);
    const at = offset + colon + 2;
    if (raw === '' || UNSAFE.test(raw) || raw.startsWith(' ')) return undefined;
    if (raw.startsWith('[')) {
      const items = flowItems(raw);
      if (!items) return undefined;
      const values: unknown[] = [];
      for (const item of items) {
        const scalar = readScalar(item.text, true);
        if (!scalar) return undefined;
        values.push(scalar.value);
        if (typeof scalar.value === 'string' && scalar.value.includes('[['))
          linkScalars.push({ range: [at + item.at, at + item.at + item.text.length], property: key });
      }
      data[key] = values;
    } else {
      const scalar = readScalar(raw, false);
      if (!scalar) return undefined;
      data[key] = scalar.value;
      if (typeof scalar.value === 'string' && scalar.value.includes('[['))
        linkScalars.push({ range: [at, at + raw.length], property: key });
    }
    offset += line.length + 1;
  }
  return { data, linkScalars };
}

/** The items of `[a, b, c]` with their offsets in it, or undefined when the list is not that simple. */
function flowItems(raw: string): { text: string; at: number }[] | undefined {
  if (!raw.endsWith(']')) return undefined;
  const inner = raw.slice(1, -1);
  if (inner === '') return [];
  const items: { text: string; at: number }[] = [];
  let at = 1;
  for (const part of inner.split(', ')) {
    // A quoted item holding `, ` was split in two: both halves fail readScalar and the list goes to YAML.
    items.push({ text: part, at });
    at += part.length + 2;
  }
  return items;
}

function readScalar(text: string, inFlow: boolean): Scalar {
  if (text === '') return undefined;
  const first = text[0];
  if (first === '"' || first === "'") {
    const inner = text.slice(1, -1);
    if (text.length < 2 || !text.endsWith(first) || inner.includes(first)) return undefined;
    return { value: ownString(inner) };
  }
  if (!PLAIN_START.test(text) || PLAIN_BAD.test(text)) return undefined;
  if (inFlow && (FLOW_BAD.test(text) || text.includes(':'))) return undefined;
  if (/^(?:true|True|TRUE)$/.test(text)) return { value: true };
  if (/^(?:false|False|FALSE)$/.test(text)) return { value: false };
  if (/^(?:~|null|Null|NULL)$/.test(text)) return { value: null };
  if (CORE_SPECIAL.test(text)) return SIMPLE_NUMBER.test(text) ? { value: Number(text) } : undefined;
  return { value: ownString(text) };
}

// The configuration reference in docs/configuration.md, read from the config schema: one row per
// setting with its type, default and meaning, so the page cannot drift from what mem accepts.
// `node scripts/config-reference.mjs --write` (after `npm run build`) rewrites the table between
// the page's `<!-- config:start -->` and `<!-- config:end -->` markers; test/core/config.test.ts
// fails while the page differs from the schema.
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import * as z from 'zod/v4';

/** The page the table lives in, from the repository's root. */
export const CONFIG_PAGE = 'docs/configuration.md';

/**
 * One row per setting: key, type, default and meaning, all read from the schema.
 * @param {z.ZodType} configSchema
 * @returns {string}
 */
export function configReference(configSchema) {
  /** @type {string[]} */
  const rows = ['| key | type | default | meaning |', '|---|---|---|---|'];
  /** @param {z.ZodType} schema @param {string} key */
  const walk = (schema, key) => {
    /** @type {z.ZodType} */
    let node = schema;
    /** @type {unknown} */
    let fallback;
    let hasDefault = false;
    const meta = schema.meta() ?? {};
    const description = meta.description;
    // A default computed on each load (the time zone) says what it is instead of a value.
    const computed = meta['shownDefault'];
    for (;;) {
      if (node instanceof z.ZodPrefault) node = /** @type {z.ZodType} */ (node.unwrap());
      else if (node instanceof z.ZodDefault) {
        hasDefault = true;
        fallback = node._zod.def.defaultValue;
        node = /** @type {z.ZodType} */ (node.unwrap());
      } else if (node instanceof z.ZodOptional) node = /** @type {z.ZodType} */ (node.unwrap());
      else break;
    }
    if (node instanceof z.ZodObject) {
      for (const [child, value] of Object.entries(node.shape))
        walk(/** @type {z.ZodType} */ (value), key ? `${key}.${child}` : child);
      return;
    }
    const json = /** @type {Record<string, unknown>} */ (z.toJSONSchema(node, { io: 'input' }));
    let type = String(json['type'] ?? '');
    if (Array.isArray(json['enum'])) type = json['enum'].map((v) => JSON.stringify(v)).join(' \\| ');
    else if (type === 'object') type = 'object of strings';
    else if (json['format'] === 'uri') type = 'URL';
    const min =
      json['minimum'] ??
      (json['exclusiveMinimum'] === undefined ? undefined : `>${json['exclusiveMinimum']}`);
    const max = json['maximum'] === Number.MAX_SAFE_INTEGER ? undefined : json['maximum'];
    if (min !== undefined && max !== undefined) type += ` ${min}..${max}`;
    else if (typeof min === 'string') type += ` ${min}`;
    else if (min !== undefined) type += ` ≥${min}`;
    const shown =
      typeof computed === 'string' ? computed : hasDefault ? `\`${JSON.stringify(fallback)}\`` : 'none';
    rows.push(`| \`${key}\` | ${type} | ${shown} | ${description ?? ''} |`);
  };
  walk(configSchema, '');
  return rows.join('\n');
}

/** The text between a page's `<!-- config:start -->` and `<!-- config:end -->`, or undefined. */
export function configTableIn(page) {
  const from = page.indexOf('<!-- config:start -->');
  const to = page.indexOf('<!-- config:end -->');
  return from < 0 || to < from ? undefined : page.slice(from + '<!-- config:start -->'.length, to).trim();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { configSchema } = await import(new URL('../dist/core/config/config.js', import.meta.url).href);
  const table = configReference(configSchema);
  const url = new URL(`../${CONFIG_PAGE}`, import.meta.url);
  const page = await readFile(url, 'utf8');
  if (configTableIn(page) === undefined)
    throw new Error(`${CONFIG_PAGE} has no config:start … config:end markers`);
  if (process.argv.includes('--write')) {
    const from = page.indexOf('<!-- config:start -->') + '<!-- config:start -->'.length;
    await writeFile(
      url,
      `${page.slice(0, from)}\n${table}\n${page.slice(page.indexOf('<!-- config:end -->'))}`,
    );
    process.stdout.write(`written: ${CONFIG_PAGE}\n`);
  } else process.stdout.write(`${table}\n`);
}

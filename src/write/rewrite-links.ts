import { posix } from 'node:path';
import { MemError } from '../core/errors.js';
import type { LinkRef } from '../core/types.js';
import { canLinkTo } from '../vault/links/link-name.js';
import { basenameOf, dirnameOf, type PathIndex, resolveLink } from '../vault/links/resolve-link.js';

/** One link to replace in a file: `text.slice(start, end)` must still be `raw`. */
export interface LinkEdit {
  start: number;
  end: number;
  raw: string;
  replacement: string;
}

/** How the path part of a link was written; a rewritten link is written the same way. */
type Form = 'relative' | 'absolute' | 'path' | 'bare';

function formOf(written: string): Form {
  if (written.startsWith('./') || written.startsWith('../')) return 'relative';
  if (written.startsWith('/')) return 'absolute';
  return written.includes('/') ? 'path' : 'bare';
}

/** The path part to write for each form, in the order they are tried when the preferred one does not resolve. */
function candidates(form: Form, fromPath: string, dest: string): string[] {
  const full = dest;
  const relative = posix.relative(dirnameOf(fromPath) || '.', dest);
  const rel = relative.startsWith('../') ? relative : `./${relative}`;
  const bare = basenameOf(dest);
  switch (form) {
    case 'relative':
      return [rel, full, `/${full}`];
    case 'absolute':
      return [`/${full}`];
    case 'path':
      return [full, `/${full}`];
    case 'bare':
      return [bare, full, `/${full}`];
  }
}

/**
 * The path part that points from `fromPath` to `dest` under `paths`, written in the same form
 * (bare name, vault path, `./` relative, `/` absolute) and with `.md` kept only when `written` had it.
 */
function targetFor(written: string, fromPath: string, dest: string, paths: PathIndex): string {
  const keepExtension = /\.md$/i.test(written) || !/\.md$/i.test(dest);
  const strip = (path: string) => (keepExtension ? path : path.replace(/\.md$/i, ''));
  for (const path of candidates(formOf(written), fromPath, dest)) {
    const target = strip(path);
    if (resolveLink(target, fromPath, paths) === dest) return target;
  }
  throw new MemError(
    'CONFLICT',
    `${fromPath}: no link text resolves to ${dest}; link ${written} left unchanged`,
  );
}

function rewriteWiki(raw: string, fromPath: string, dest: string, paths: PathIndex): string {
  const bang = raw.startsWith('!') ? '!' : '';
  const inner = raw.slice(bang.length + 2, -2);
  const pipe = inner.indexOf('|');
  let pathPart = pipe === -1 ? inner : inner.slice(0, pipe);
  // Inside a table the pipe is written `\|`: the backslash belongs to the divider, not the name.
  const tableEscape = pathPart.endsWith('\\') && pipe !== -1 ? '\\' : '';
  if (tableEscape) pathPart = pathPart.slice(0, -1);
  const hash = pathPart.indexOf('#');
  const written = (hash === -1 ? pathPart : pathPart.slice(0, hash)).trim();
  const rest =
    (hash === -1 ? '' : pathPart.slice(hash)) + tableEscape + (pipe === -1 ? '' : inner.slice(pipe));
  const target = targetFor(written, fromPath, dest, paths);
  if (!canLinkTo(target)) {
    throw new MemError('INVALID_PATH', `${dest}: a wiki link cannot name a file with [ ] # ^ | or %%`);
  }
  return `${bang}[[${target}${rest}]]`;
}

/** Characters a Markdown link destination cannot hold as written; `%` too, so decoding gives the name back. */
const UNSAFE_IN_DESTINATION = /[\s%()<>#\\[\]^|]/g;

function encodeDestination(path: string, encodeAll: boolean): string {
  if (encodeAll) return path.split('/').map(encodeURIComponent).join('/');
  return path.replace(UNSAFE_IN_DESTINATION, (c) => encodeURIComponent(c));
}

/** The destination as written in a Markdown link: `<...>` or without spaces, with balanced parentheses. */
const DESTINATION = /^(<[^<>\r\n]*>|(?:[^\s()\\]|\\[^\s]|\([^\s()]*\))+)/;

function rewriteMarkdown(link: LinkRef, fromPath: string, dest: string, paths: PathIndex): string {
  const raw = link.raw;
  const bang = raw.startsWith('!') ? 1 : 0;
  // The bracket text is the alias exactly as written, so the destination starts right after `](`.
  const open = bang + 1 + (link.alias ?? '').length;
  let at = open + 2;
  while (raw[at] === ' ' || raw[at] === '\t') at++;
  const found = raw.slice(open, open + 2) === '](' ? DESTINATION.exec(raw.slice(at)) : null;
  if (!found) {
    throw new MemError('CONFLICT', `${fromPath}: cannot read the link ${raw}`);
  }
  const destination = found[0];
  const angle = destination.startsWith('<');
  const body = angle ? destination.slice(1, -1) : destination;
  const hash = body.indexOf('#');
  const writtenEncoded = hash === -1 ? body : body.slice(0, hash);
  const subpath = hash === -1 ? '' : body.slice(hash);
  // Decoded, so form and extension are judged on the name (`My%20Note.md` ends in `.md` either way).
  const written = link.target;
  const target = targetFor(written, fromPath, dest, paths);
  let encoded: string;
  if (angle) {
    if (/[<>\r\n]/.test(target))
      throw new MemError('INVALID_PATH', `${dest}: cannot be written inside <...>`);
    encoded = target;
  } else {
    // A link that spelled non-ASCII letters as %XX keeps doing so; otherwise only what must be escaped is.
    const encodedAll = /[^\x00-\x7f]/.test(written) && !/[^\x00-\x7f]/.test(writtenEncoded);
    encoded = encodeDestination(target, encodedAll);
  }
  const replaced = angle ? `<${encoded}${subpath}>` : `${encoded}${subpath}`;
  return raw.slice(0, at) + replaced + raw.slice(at + destination.length);
}

/**
 * New source text for `link` (found in the note at `fromPath`, as it will be named after the move) so
 * that it resolves to `dest` under `paths`, keeping its kind, alias, subpath, embed mark, table escape,
 * form and encoding. Throws CONFLICT when no spelling of the link would resolve to `dest`.
 */
export function retargetLink(link: LinkRef, fromPath: string, dest: string, paths: PathIndex): string {
  const wiki = link.raw.startsWith('[[') || link.raw.startsWith('![[');
  const replacement = wiki
    ? rewriteWiki(link.raw, fromPath, dest, paths)
    : rewriteMarkdown(link, fromPath, dest, paths);
  if (link.kind === 'frontmatter' && /["'\\]/.test(replacement)) {
    // A quote or backslash would need YAML escaping inside the property's quoted string.
    throw new MemError(
      'INVALID_PATH',
      `${dest}: cannot be written into a frontmatter link (quote or backslash)`,
    );
  }
  return replacement;
}

/**
 * Applies link edits to `text`, last first so earlier offsets stay valid. Every edit's offsets must
 * still hold its `raw` text; otherwise the file changed since it was parsed and nothing is applied.
 */
export function spliceLinks(text: string, edits: readonly LinkEdit[], label: string): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    if (text.slice(edit.start, edit.end) !== edit.raw) {
      throw new MemError(
        'CONFLICT',
        `${label} changed on disk since it was read (expected ${edit.raw} at offset ${edit.start}); nothing was written`,
      );
    }
    result = result.slice(0, edit.start) + edit.replacement + result.slice(edit.end);
  }
  return result;
}

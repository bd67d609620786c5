// Templates are not memories. The notes Obsidian makes other notes from (the core Templates
// plugin's folder, Templater's folder, the daily-note template of Daily notes or Periodic Notes)
// are not indexed, and a section of a note whose text is still a template's own, its variables
// filled in ({{date}}, {{title}}, {{time}}, {{date:FORMAT}}, Templater's `<% tp.date.now() %>`),
// is not a memory either: the daily template's `## Plan` with its empty checklist came back as a
// hit from every day, seven copies of it in one compile.
//
// Settings read (all optional, in `.obsidian/`):
// - `templates.json`, the core Templates plugin: `{ folder, dateFormat, timeFormat }`
// - `plugins/templater-obsidian/data.json`, Templater: `{ templates_folder, … }`
// - the daily-note template (obsidian-settings.ts): Daily notes' `template`, Periodic Notes' day template
import { join } from 'node:path';
import { readRegularFile } from '../core/regular-file.js';
import type { Section } from '../core/types.js';
import { DEFAULT_CONFIG_DIR, readDailyNoteSettings } from './links/obsidian-settings.js';
import { parseNote } from './markdown/parse-note.js';
import { readVault } from './read-vault.js';

/** Where a vault keeps its templates: whole folders, and single notes (the daily template). */
export interface TemplatePlaces {
  /** Vault folders, without slashes at either end; never '' (the whole vault) */
  folders: string[];
  /** Vault paths of template notes outside those folders, with `.md` */
  notes: string[];
}

/** A settings file is a few hundred bytes; a larger one names no template folder. */
const MAX_SETTINGS_BYTES = 1 << 20;
/** Templates read for their text: a vault with more is a library of snippets, the first ones suffice */
const MAX_TEMPLATES = 200;
/** Largest template note read for its text */
const MAX_TEMPLATE_BYTES = 64 * 1024;

async function readSetting(root: string, file: string, key: string): Promise<string | undefined> {
  try {
    const bytes = await readRegularFile(join(root, DEFAULT_CONFIG_DIR, file));
    if (bytes.length > MAX_SETTINGS_BYTES) return undefined;
    const data = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) as Record<string, unknown>;
    const value = data?.[key];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // a missing or unreadable settings file names nothing
  }
}

/** A setting's folder or note as a vault path: no `./`, no slashes at either end, never `..`. */
function vaultPath(value: string | undefined): string | undefined {
  const path = (value ?? '')
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(?:\.\/|\/)+|\/+$/g, '');
  if (path === '' || path.split('/').some((part) => part === '..' || part === '.')) return undefined;
  return path.normalize('NFC');
}

const inside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/**
 * The vault's template folders and daily template. `keep` are folders that hold memory (the daily
 * folder, mem's layer folders): a template folder that is one of them, or holds one, is not taken
 * for templates, or a setting pointed at the journal would hide every day. `dailyTemplate` is the
 * layout's (mem.config.json `layout.daily.template`).
 */
export async function readTemplatePlaces(
  root: string,
  options: { dailyTemplate?: string; keep?: string[] } = {},
): Promise<TemplatePlaces> {
  const keep = (options.keep ?? []).map((folder) => folder.replace(/^\/+|\/+$/g, ''));
  const folders = new Set<string>();
  for (const [file, key] of [
    ['templates.json', 'folder'],
    ['plugins/templater-obsidian/data.json', 'templates_folder'],
  ] as const) {
    const folder = vaultPath(await readSetting(root, file, key));
    if (folder === undefined) continue;
    if (keep.some((held) => held !== '' && inside(held, folder))) continue;
    folders.add(folder);
  }
  const daily = await readDailyNoteSettings(root).catch(() => undefined);
  const notes = new Set<string>();
  for (const template of [options.dailyTemplate, daily?.template]) {
    const path = vaultPath(template);
    if (path === undefined) continue;
    const note = path.toLowerCase().endsWith('.md') ? path : `${path}.md`;
    if (![...folders].some((folder) => inside(note, folder))) notes.add(note);
  }
  return { folders: [...folders].sort(), notes: [...notes].sort() };
}

/** Whether a vault path (a note, or a folder on the way to one) is one of the template places. */
export function templatePathTest(places: TemplatePlaces): ((path: string) => boolean) | undefined {
  if (places.folders.length === 0 && places.notes.length === 0) return undefined;
  const notes = new Set(places.notes);
  return (path) => notes.has(path) || places.folders.some((folder) => inside(path, folder));
}

/** The text of every template note (folders first, then the daily template), read from disk. */
export async function readTemplateTexts(
  root: string,
  places: TemplatePlaces,
): Promise<Array<{ path: string; text: string }>> {
  const found: Array<{ path: string; abs: string }> = [];
  for (const folder of places.folders) {
    const files = await readVault(join(root, folder)).catch(() => []);
    for (const file of files) found.push({ path: `${folder}/${file.path}`, abs: file.abs });
  }
  for (const path of places.notes) found.push({ path, abs: join(root, path) });
  const texts: Array<{ path: string; text: string }> = [];
  for (const { path, abs } of found.slice(0, MAX_TEMPLATES)) {
    const bytes = await readRegularFile(abs).catch(() => undefined);
    if (bytes && bytes.length <= MAX_TEMPLATE_BYTES) texts.push({ path, text: bytes.toString('utf8') });
  }
  return texts;
}

/**
 * Obsidian's variables (`{{…}}`) and Templater's commands (`<% … %>`, `<%* … %>`, with their
 * whitespace-control marks), as written in a template.
 */
const VARIABLE = /\{\{[^{}\n]*\}\}|<%[\s\S]*?%>/g;
/**
 * Templater commands that write what the clock or the file name says, as the core variables do.
 * Any other command (a prompt, a suggester, the cursor, an include) writes what the person gives
 * it: a section with one is never taken for the template's own text.
 */
const MECHANICAL = /tp\.date\.|tp\.file\.(?:title|creation_date|last_modified_date)|moment\s*\(/;
/** What a filled-in variable may be: a date, a time, a title; one line */
const FILLED = '[^\\n]{0,120}';
/** Marks a variable's place while the text is split into lines (a character no note holds) */
const MARK = '\u0000';

/** A regular expression source for one line of a template, its variables (MARK) filled in by anything short. */
function linePattern(line: string): string {
  return line
    .split(MARK)
    .map((literal, i) => {
      const escaped = literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[ \t]+/g, '[ \\t]+');
      return i === 0 ? escaped : `${FILLED}${escaped}`;
    })
    .join('');
}

/** Lines as compared: each without trailing whitespace, blank ones left out. */
export const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');

/**
 * A test of whether a text is `template`'s text with its variables filled in; undefined when it
 * cannot tell (a variable the person fills, or nothing but variables, which any text would match).
 */
function textMatcher(template: string): ((text: string) => boolean) | undefined {
  let personal = false;
  const marked = template.replace(VARIABLE, (variable) => {
    if (variable.startsWith('<%') && !variable.startsWith('<%*') && !MECHANICAL.test(variable))
      personal = true;
    return MARK;
  });
  if (personal) return undefined;
  const kept = lines(marked);
  if (kept.length === 0) {
    // Nothing written under the heading: only a section as empty is the template's.
    return marked.includes(MARK) ? undefined : (text) => lines(text).length === 0;
  }
  if (!kept.some((line) => line.replaceAll(MARK, '').trim() !== '')) return undefined;
  // A line of variables alone may have come out empty (a Templater block that writes nothing).
  const source = kept
    .map((line) =>
      line.replaceAll(MARK, '').trim() === '' ? `(?:${linePattern(line)}\\n)?` : `${linePattern(line)}\\n`,
    )
    .join('');
  const pattern = new RegExp(`^${source}$`);
  return (text) => pattern.test(`${lines(text).join('\n')}\n`);
}

interface TemplateSection {
  kind: 'preamble' | 'heading';
  /** Whether a heading is this one, its variables filled in */
  heading?: (heading: string) => boolean;
  text: (text: string) => boolean;
}

/**
 * The sections of a vault's templates, and which sections of its notes are still only a
 * template's text. Asked per section, remembered per parsed section.
 */
export class TemplateSections {
  private readonly sections: TemplateSection[] = [];
  private readonly known = new WeakMap<Section, boolean>();
  /**
   * The most lines (as `lines` counts them) a section may have and still be a template's text:
   * each line of a template matches one line of a note, so a longer section is none.
   */
  mostLines = 0;

  constructor(templates: Array<{ path: string; text: string }>) {
    for (const { path, text } of templates) {
      for (const section of parseNote(path, text).sections) {
        if (section.kind === 'block') continue;
        const matchText = textMatcher(section.text);
        if (!matchText) continue;
        this.mostLines = Math.max(this.mostLines, lines(section.text.replace(VARIABLE, MARK)).length);
        const heading = section.kind === 'heading' ? (section.heading ?? section.anchor) : '';
        const marked = heading.replace(VARIABLE, MARK);
        // Nothing of the template's own in it (`# {{title}}` over nothing): it would take every
        // empty section of the vault for a template's.
        if (marked.replaceAll(MARK, '').trim() === '' && lines(section.text).length === 0) continue;
        if (section.kind === 'preamble') {
          this.sections.push({ kind: 'preamble', text: matchText });
          continue;
        }
        const pattern = new RegExp(`^${linePattern(marked.trim())}$`);
        this.sections.push({ kind: 'heading', heading: (h) => pattern.test(h.trim()), text: matchText });
      }
    }
  }

  /** How many template sections a note's section is compared with */
  get size(): number {
    return this.sections.length;
  }

  /** Whether `section` holds nothing but a template's text (its variables filled in). */
  matches(section: Section): boolean {
    if (section.kind === 'block' || this.sections.length === 0) return false;
    const known = this.known.get(section);
    if (known !== undefined) return known;
    const heading = section.heading ?? section.anchor;
    const found = this.sections.some(
      (template) =>
        template.kind === section.kind &&
        (template.heading === undefined || template.heading(heading)) &&
        template.text(section.text),
    );
    this.known.set(section, found);
    return found;
  }
}

import { stringify } from 'yaml';
import type { MemConfig } from '../../core/config/config.js';
import { MemError } from '../../core/errors.js';
import type { WriteCommit } from '../../git/commit-write.js';
import { isoWithOffset } from '../../time/zoned-date.js';
import { layerOf, layoutOf, type VaultLayout } from '../../vault/layout.js';
import {
  nameLengthProblem,
  newNameProblem,
  PlannedNames,
  twinProblem,
} from '../../vault/links/name-rules.js';
import { PathIndex, resolveLink } from '../../vault/links/resolve-link.js';
import { addLinesUnderHeading } from '../../vault/markdown/add-under-heading.js';
import { escapeComments } from '../../vault/markdown/comments.js';
import { resolveInVault } from '../../vault/paths.js';
import { readForWrite, updateFile } from '../../vault/write-note.js';
import { writeRefusal } from '../../vault/write-policy.js';
import { redactSecrets } from '../redact/redact.js';
import { underPlan } from '../write-plan.js';
import { countSkip, type SkipCounts } from './import-types.js';
import type { GraphEntity, MemoryGraph } from './memory-graph.js';

export interface GraphWriteResult extends WriteCommit {
  /** Notes made for entities the vault did not have */
  created: string[];
  /** Existing notes that received facts or links */
  updated: string[];
  /** Observations and relations written (those already in the notes are not counted) */
  added: number;
  /** Observations and relations the notes already held */
  skipped: number;
  paths: string[];
  redacted: number;
  /** Entities left out, by reason: one whose note the import may not write (the persona's) */
  refused: SkipCounts;
}

/** The profile folder for an entity type: the vault's own `people`, `places` and `pets`, else the type's name. */
function folderOf(entity: GraphEntity, profile: string): string {
  if (USER_NAMES.has(entity.name.toLowerCase())) return profile;
  const type = entity.entityType.toLowerCase();
  if (['person', 'people', 'human', 'user'].includes(type)) return `${profile}/people`;
  if (['place', 'location', 'city', 'country'].includes(type)) return `${profile}/places`;
  if (['pet', 'animal'].includes(type)) return `${profile}/pets`;
  const slug = type.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '');
  return `${profile}/${slug || 'entities'}`;
}

/**
 * The names the MCP memory server's own prompt gives the person it talks to: their entity is the
 * vault's `profile/user.md`, so their observations join what the vault knows of the user.
 */
const USER_NAMES = new Set(['default_user', 'user']);

/** A note name a wiki link can spell: link syntax and path separators become spaces. */
export function entityNoteName(name: string): string {
  if (USER_NAMES.has(name.toLowerCase())) return 'user';
  return (
    name
      .replace(/%%|[[\]#^|\\:/*?"<>]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^\.+/, '') || 'entity'
  );
}

/** One line of a note body: no line breaks, secrets redacted, `%%` kept from opening a comment. */
function lineOf(text: string, redact: boolean, count: { redacted: number }): string {
  const flat = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  const clean = redact ? redactSecrets(flat) : { text: flat, redactions: [] };
  count.redacted += clean.redactions.length;
  return escapeComments(clean.text);
}

function newNote(entity: GraphEntity, stamp: string): string {
  const front = {
    title: entity.name,
    ...(entity.entityType ? { tags: [entity.entityType] } : {}),
    source: 'mcp-memory',
    created: stamp,
    updated: stamp,
  };
  return `---\n${stringify(front).trimEnd()}\n---\n# ${escapeComments(entity.name)}\n`;
}

/** An entity's note as planned before the first write: where it goes and the lines it should hold. */
interface PlannedNote {
  entity: GraphEntity;
  facts: string[];
  links: string[];
  abs: string;
  rel: string;
}

/** What planning an entity's note needs: the vault, the graph's relations, and what the import counts. */
interface GraphPlan {
  root: string;
  /** The import's name, in its errors */
  name: string;
  layout: VaultLayout;
  profile: string;
  /** The vault's notes a link to an entity may reach */
  known: PathIndex;
  /** Every new note of the import, by the name the file systems compare */
  names: PlannedNames;
  relations: MemoryGraph['relations'];
  redact: boolean;
  count: { redacted: number };
  refused: SkipCounts;
}

/** The vault's notes an entity may be written to: all but the episodes and the archive. */
function linkableNotes(notes: Iterable<string>, layout: VaultLayout): PathIndex {
  const known = new PathIndex();
  for (const path of notes) if (!['episodes', 'archive'].includes(layerOf(path, layout))) known.add(path);
  return known;
}

/** The graph's entities by name, with one for each name a relation uses that the graph never created. */
function entitiesOf(graph: MemoryGraph): Map<string, GraphEntity> {
  const entities = new Map(graph.entities.map((e) => [e.name, e]));
  // A relation may name an entity the graph never created: it still gets a note to link from.
  for (const r of graph.relations) {
    for (const name of [r.from, r.to])
      if (!entities.has(name)) entities.set(name, { name, entityType: '', observations: [] });
  }
  return entities;
}

/** Where an entity's note is, on disk and in the vault. */
async function entityPath(entity: GraphEntity, context: GraphPlan): Promise<{ abs: string; rel: string }> {
  // A person's own note for the entity (`People/Mei.md`, `profile/people/mei.md`) is the one
  // a [[Mei]] link reaches, as in Obsidian: it is appended to rather than shadowed by a twin.
  const name = entityNoteName(entity.name);
  const planned = `${folderOf(entity, context.profile)}/${name}.md`;
  // Before the path touches the disk: an overlong name fails lstat with a bare ENAMETOOLONG.
  const length = nameLengthProblem(planned.normalize('NFC'));
  if (length)
    throw new MemError(
      'INVALID_ARGUMENT',
      `${context.name}: entity ${JSON.stringify(entity.name.slice(0, 40))}…: ${length}; nothing was written`,
    );
  return resolveInVault(context.root, resolveLink(name, planned, context.known) ?? planned);
}

/** Why the import may not write this note (counted in `refused`), or undefined when it may. */
function refusal(rel: string, exists: boolean, layout: VaultLayout): string | undefined {
  // Only the import's own notes: never the persona (write-policy.ts).
  const action = exists ? 'edit' : 'create';
  if (!writeRefusal({ author: 'import', action, path: rel, layout })) return undefined;
  const layer = layerOf(rel, layout);
  return layer === 'persona'
    ? "entity named like a persona note (the persona is the person's)"
    : `entity named like a note in ${layer} (an import writes only its own notes)`;
}

/** An entity's observations as `- fact` lines and its relations as `- relation [[entity]]` lines. */
function linesOf(entity: GraphEntity, context: GraphPlan): { facts: string[]; links: string[] } {
  const { redact, count } = context;
  const facts = entity.observations.map((o) => `- ${lineOf(o, redact, count)}`);
  const links = context.relations
    .filter((r) => r.from === entity.name)
    .map(
      (r) => `- ${lineOf(r.relationType.replaceAll('_', ' '), redact, count)} [[${entityNoteName(r.to)}]]`,
    );
  return { facts, links };
}

/**
 * An entity's note, checked before the first write: undefined when the import may not write it
 * (counted), a MemError when its name is one the disk would refuse or the note cannot be read.
 */
async function planEntity(entity: GraphEntity, context: GraphPlan): Promise<PlannedNote | undefined> {
  const { abs, rel } = await entityPath(entity, context);
  const current = await readForWrite(abs)
    .then((read) => read && { text: read.text })
    .catch((error: NodeJS.ErrnoException) => {
      throw new MemError(
        'INVALID_ARGUMENT',
        `${context.name}: entity ${JSON.stringify(entity.name)} goes to ${rel}, which cannot be read (${error.code ?? error.message}); nothing was written`,
      );
    });
  const refused = refusal(rel, Boolean(current), context.layout);
  if (refused) {
    countSkip(context.refused, refused);
    return undefined;
  }
  const problem = current
    ? await twinProblem(context.root, rel)
    : (context.names.claim(rel) ?? (await newNameProblem(context.root, rel)));
  if (problem)
    throw new MemError(
      'INVALID_ARGUMENT',
      `${context.name}: entity ${JSON.stringify(entity.name)}: ${rel}: ${problem}; nothing was written`,
    );
  return { entity, ...linesOf(entity, context), abs, rel };
}

/** Adds the lines a note lacks under `## Facts` and `## Relations`, creating the note if need be. */
async function writeEntityNote(
  note: PlannedNote,
  stamp: string,
): Promise<{ created: boolean; added: number }> {
  const { entity, facts, links, abs, rel } = note;
  let created = false;
  let added = 0;
  await updateFile(
    abs,
    (current) => {
      created = current === undefined;
      let text = current ?? newNote(entity, stamp);
      added = 0;
      for (const [heading, lines] of [
        ['Facts', facts],
        ['Relations', links],
      ] as const) {
        if (lines.length === 0) continue;
        const next = addLinesUnderHeading(text, heading, lines);
        text = next.text;
        added += next.added;
      }
      return text;
    },
    { label: rel },
  );
  return { created, added };
}

/**
 * Writes an MCP memory graph as profile notes: one note per entity (people under `profile/people/`),
 * its observations as `## Facts` lines and its relations as wiki links under `## Relations`, in one
 * commit. A note that exists is only appended to, and only with the lines it lacks: a person's edits
 * stay, and a second run adds nothing.
 */
export async function writeMemoryGraph(
  root: string,
  config: MemConfig,
  graph: MemoryGraph,
  options: {
    name: string;
    /** When the import runs: the stamp of the notes it creates */
    now: Date;
    noRedact?: boolean;
    onProgress?: (done: number, total: number) => void;
    /** The vault's notes: an entity whose name a link would resolve to one of them is written there */
    notes?: Iterable<string>;
  },
): Promise<GraphWriteResult> {
  const layout = layoutOf(config);
  const known = linkableNotes(options.notes ?? [], layout);
  const entities = entitiesOf(graph);
  const count = { redacted: 0 };
  const redact = !options.noRedact;
  const stamp = isoWithOffset(options.now, config.timezone);
  const result: GraphWriteResult = {
    created: [],
    updated: [],
    added: 0,
    skipped: 0,
    paths: [],
    redacted: 0,
    refused: {},
    committed: false,
  } as GraphWriteResult;
  // One write like every other multi-step one (write-plan.ts): under the lock, the plan (every note
  // the graph may touch) is recorded before the first note is written, and one commit takes them
  // all. A run killed between two notes leaves the record; the re-run adds only the lines the
  // notes still lack and commits what both runs wrote.
  return underPlan(root, config, `import ${options.name}`, async (plan) => {
    const context: GraphPlan = {
      root,
      name: options.name,
      layout,
      profile: config.layout.profile,
      known,
      names: new PlannedNames(),
      relations: graph.relations,
      redact,
      count,
      refused: result.refused,
    };
    const notes: PlannedNote[] = [];
    // Checked whole before the first write: a note the import may not write leaves its entity out
    // (counted), and a name the disk would refuse or a note that cannot be read stops the import
    // before anything is written, so no half-written notes are left for the next command to commit.
    for (const entity of entities.values()) {
      const note = await planEntity(entity, context);
      if (note) notes.push(note);
    }
    await plan.record([...new Set(notes.map((n) => n.rel))], `mem: import ${options.name}`);
    let done = 0;
    for (const note of notes) {
      const { rel, facts, links } = note;
      const { created, added } = await writeEntityNote(note, stamp);
      result.added += added;
      result.skipped += facts.length + links.length - added;
      if (created) result.created.push(rel);
      else if (added > 0) result.updated.push(rel);
      if (created || added > 0) result.paths.push(rel);
      options.onProgress?.(++done, entities.size);
    }
    result.redacted = count.redacted;
    const made = await plan.commit(
      result.paths,
      `mem: import ${options.name} (${result.created.length} notes created, ${result.updated.length} updated)`,
    );
    const commit =
      made.committed || result.paths.length > 0 ? made : { committed: false, reason: 'nothing new' };
    return { ...result, ...commit };
  });
}

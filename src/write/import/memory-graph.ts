import { MemError } from '../../core/errors.js';
import { isRecord } from './import-types.js';

/** An entity of the MCP memory server's knowledge graph. */
export interface GraphEntity {
  name: string;
  entityType: string;
  observations: string[];
}

/** A directed, named edge between two entities (`from` works_at `to`). */
export interface GraphRelation {
  from: string;
  to: string;
  relationType: string;
}

export interface MemoryGraph {
  entities: GraphEntity[];
  relations: GraphRelation[];
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];

/**
 * Reads the reference MCP memory server's `memory.jsonl` (modelcontextprotocol/servers,
 * src/memory): one JSON object a line, `{"type":"entity","name","entityType","observations"}` or
 * `{"type":"relation","from","to","relationType"}`. An entity named twice has its observations merged.
 */
export function parseMemoryGraph(text: string, file: string): MemoryGraph {
  const entities = new Map<string, GraphEntity>();
  const relations: GraphRelation[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      throw new MemError('INVALID_ARGUMENT', `${file}:${i + 1}: not valid JSON`);
    }
    if (!isRecord(item)) throw new MemError('INVALID_ARGUMENT', `${file}:${i + 1}: expected an object`);
    if (item['type'] === 'entity' && typeof item['name'] === 'string' && item['name'].trim() !== '') {
      const name = item['name'].trim();
      const known = entities.get(name);
      const observations = strings(item['observations']);
      if (known) known.observations.push(...observations.filter((o) => !known.observations.includes(o)));
      else
        entities.set(name, {
          name,
          entityType: typeof item['entityType'] === 'string' ? item['entityType'].trim() : '',
          observations: [...new Set(observations)],
        });
    } else if (
      item['type'] === 'relation' &&
      typeof item['from'] === 'string' &&
      typeof item['to'] === 'string' &&
      typeof item['relationType'] === 'string'
    ) {
      relations.push({
        from: item['from'].trim(),
        to: item['to'].trim(),
        relationType: item['relationType'].trim(),
      });
    } else {
      throw new MemError(
        'INVALID_ARGUMENT',
        `${file}:${i + 1}: expected {"type":"entity","name",…} or {"type":"relation","from","to","relationType"}`,
      );
    }
  });
  return { entities: [...entities.values()], relations };
}

/** Whether a file's first line looks like an MCP memory graph item. */
export function isMemoryGraph(text: string): boolean {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '');
  if (!first) return false;
  try {
    const item: unknown = JSON.parse(first);
    return isRecord(item) && (item['type'] === 'entity' || item['type'] === 'relation');
  } catch {
    return false;
  }
}

import { basenameOf, foldPath } from '../vault/resolve-link.js';
import type { VaultIndex } from './vault-index.js';

export interface DoctorReport {
  notes: number;
  unresolved: Array<{ from: string; line: number; link: string }>;
  duplicateNames: Array<{ name: string; paths: string[] }>;
  invalidFrontmatter: Array<{ path: string; message: string }>;
  /** Notes with no links in or out */
  orphans: string[];
}

/** What would confuse a person or Obsidian: broken links, ambiguous names, unreadable frontmatter, islands. */
export function diagnose(index: VaultIndex): DoctorReport {
  const unresolved = index.graph
    .unresolved()
    .map((edge) => ({ from: edge.from, line: edge.link.line, link: edge.link.raw }))
    .sort((a, b) => (a.from === b.from ? a.line - b.line : a.from < b.from ? -1 : 1));
  const byName = new Map<string, string[]>();
  for (const path of index.notes.keys()) {
    // Names compare as link resolution compares them, so a duplicate here is one a bare link must choose between.
    const name = foldPath(basenameOf(path));
    byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  const duplicateNames = [...byName.entries()]
    .filter(([, paths]) => paths.length > 1)
    .map(([name, paths]) => ({ name, paths: paths.sort() }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const invalidFrontmatter = [...index.notes.values()]
    .flatMap((note) => note.warnings.map((message) => ({ path: note.path, message })))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const orphans = [...index.notes.keys()]
    .filter(
      (path) => index.graph.outEdges(path).every((e) => !e.to) && index.graph.backlinks(path).length === 0,
    )
    .sort();
  return { notes: index.notes.size, unresolved, duplicateNames, invalidFrontmatter, orphans };
}

export function isHealthy(report: DoctorReport): boolean {
  return report.unresolved.length === 0 && report.invalidFrontmatter.length === 0;
}

import MiniSearch from 'minisearch';

/**
 * Reference retrievers that reproduce the README's figures, so the harness itself is checked:
 * MiniSearch with its defaults over one document per turn, and the newest turns first. A document
 * is `Speaker: text`, the same words the vault's entry holds; its cost is that text's length / 4.
 */
export function makeBaselines(turns) {
  const documents = [...turns.values()].map((turn, order) => ({
    id: turn.dia_id,
    text: `${turn.speaker}: ${turn.text}`,
    order,
  }));
  const byId = new Map(documents.map((d) => [d.id, d.text]));
  const bm25 = new MiniSearch({ fields: ['text'] });
  bm25.addAll(documents);
  const newestFirst = [...documents].sort((a, b) => b.order - a.order).map((d) => d.id);
  return {
    textOf: (id) => byId.get(id) ?? '',
    bm25: (question) => bm25.search(question).map((r) => r.id),
    recency: () => newestFirst,
  };
}

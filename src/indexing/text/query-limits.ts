// Bounds on what one query may cost: a 65,000-character query of one letter took 15–19 s and 4 GB
// in a 33-note vault, through fuzzy and prefix matching of one enormous term.

export const QUERY_LIMITS = {
  /** Characters of a query that are searched; the rest is ignored (the CLI and HTTP say so in a warning) */
  maxChars: 4000,
  /** Distinct terms searched, in query order; a longer list adds cost and little recall */
  maxTerms: 64,
  /** Longest term matched with one typo allowed; fuzzy cost grows with term length */
  maxFuzzyLength: 24,
  /** Longest term matched as a prefix of longer words */
  maxPrefixLength: 32,
  /** Longer terms are not words anyone searches for (base64, a line of one letter); they are dropped */
  maxTermLength: 128,
} as const;

/** The query text searched: cut at QUERY_LIMITS.maxChars. */
export function boundQueryText(query: string): string {
  return query.length > QUERY_LIMITS.maxChars ? query.slice(0, QUERY_LIMITS.maxChars) : query;
}

/** The terms searched: none longer than maxTermLength, at most maxTerms. */
export function boundTerms(terms: string[]): string[] {
  return terms.filter((term) => term.length <= QUERY_LIMITS.maxTermLength).slice(0, QUERY_LIMITS.maxTerms);
}

/** What a caller should be told about a query cut at the limit, or undefined when it is within it. */
export function queryProblem(query: string): string | undefined {
  if (query.length > QUERY_LIMITS.maxChars) {
    return `query is ${query.length} characters; the limit is ${QUERY_LIMITS.maxChars}`;
  }
  return undefined;
}

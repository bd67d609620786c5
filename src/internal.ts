/**
 * The entry the command line and the servers import: the public API (index.ts) and what only they
 * need, such as the query limits they check a request against, the pieces of `mem config`, the
 * merge driver git runs and the journal view the web page renders. The package's `exports` does not
 * name this module, so a library user cannot import it, and nothing here is locked by api-report.md:
 * it changes with the edges. (scripts/check-layers.mjs: cli/ and serve/ may import index.ts or this.)
 */

export { isTimeZone } from './core/config/config.js';
export { readRegularFile } from './core/regular-file.js';
export { lowerGitPriority } from './git/run-git.js';
export * from './index.js';
export { boundDecodedNotes } from './indexing/decoded-budget.js';
export { QUERY_LIMITS, queryProblem } from './indexing/text/query-limits.js';
export { type AcceptedConfig, acceptProposedConfig, parseConfigValue } from './inspect/vault-config.js';
export { type EmbeddingsStatus, embeddingsStatus } from './live/embeddings-status.js';
export { isDayText } from './time/parse-input-time.js';
export { withoutComments } from './vault/markdown/comments.js';
export { isJournalSection, type JournalItem, journalItems } from './vault/markdown/journal-items.js';
export { decodeTranscript } from './write/import/parse-transcript.js';
export { mergeEpisodeFiles } from './write/sync/merge-driver.js';
export { parseAssignment } from './write/update-note.js';

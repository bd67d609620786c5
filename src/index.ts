/**
 * The public API of memvault: what docs/library.md documents, locked in api-report.md. The CLI and
 * the servers import src/internal.ts, which re-exports this and adds what only they need.
 */

export type {
  EmbeddingsHealth,
  EmbedSections,
  EmbedStats,
  RecallResult,
  WithMoments,
} from './api/open-vault.js';
export { type OpenVaultOptions, openVault, Vault } from './api/open-vault.js';
export type {
  CompiledItem,
  CompiledSection,
  CompileOptions,
  CompileResult,
  FoldedRollup,
} from './compile/compile.js';
export { MIN_BUDGET } from './compile/compile.js';
export type { Encoding } from './compile/count-tokens.js';
export type { CompileSectionName } from './compile/render.js';
export { CONFIG_FILE, defaultConfig, loadConfig, type MemConfig } from './core/config/config.js';
export { MemError, type MemErrorCode } from './core/errors.js';
export { IMPORT_FORMATS, type ImportFormat } from './core/import-formats.js';
export {
  type Block,
  type Edge,
  type Heading,
  LAYERS,
  type Layer,
  type LinkKind,
  type LinkRef,
  type Note,
  type Section,
} from './core/types.js';
export type { CommitResult, NotCommitted } from './git/commit-paths.js';
export type { WriteCommit } from './git/commit-write.js';
export type { HistoryEntry } from './git/git-history.js';
export type { ReviewCommit } from './git/review-branch.js';
export type { DoctorReport, UnreadableNote } from './indexing/doctor.js';
export type { RefreshProgress, RefreshStats } from './indexing/refresh-index.js';
export type { EmbedProgress, EmbedTexts } from './indexing/vectors/vector-cache.js';
export {
  type ConfigEntry,
  type ConfigSetResult,
  getConfig,
  listConfig,
  setConfig,
  unsetConfig,
} from './inspect/vault-config.js';
export { type VaultStatus, vaultStatus } from './inspect/vault-status.js';
export type {
  CommitMode,
  ExchangeInput,
  ExchangeResult,
  ExchangeSession,
  ExchangeWriterOptions,
  WriterHealth,
} from './live/exchange-writer.js';
export type { ReflectRunSummary, ReflectStatus } from './live/reflect-scheduler.js';
export type { SyncState } from './live/sync-scheduler.js';
export type { CallOptions, Llm, LlmOptions, LlmUsage } from './models/llm.js';
export type { AppliedRange } from './recall/choose-range.js';
export type { ScoreParts } from './recall/rank.js';
export type { DateRange, EmbeddingUse, RecallHit, RecallOptions } from './recall/recall.js';
export type { SemanticInput } from './recall/semantic.js';
export type { PlannedFile } from './reflect/apply-operations.js';
export type { Operation } from './reflect/operations.js';
export type { ReflectOptions, ReflectResult } from './reflect/reflect.js';
export type { RollupOptions, RollupResult, RollupWritten } from './reflect/rollup/rollup.js';
export type { BudgetState } from './reflect/token-budget.js';
export type { Rejected } from './reflect/validate-operations.js';
export type { Period } from './time/calendar-day.js';
export type { Moment } from './time/parse-instant.js';
export type { RollupLevel } from './time/rollup-period.js';
export type { VaultLayout } from './vault/layout.js';
export type { TrackOptions } from './vault/track-changes.js';
export type { VaultChange, VaultWatcher, WatchVaultOptions } from './vault/watch-vault.js';
export type { Author, WriteAction, WriteRequest } from './vault/write-policy.js';
export type { EditNoteOptions, NoteEdit } from './write/edit-note.js';
export type { EntryKind } from './write/episode-entry.js';
export type { ForgetOptions, ForgetResult } from './write/forget-note.js';
export type { ForgetStaleOptions, ForgetStaleResult } from './write/forget-stale.js';
export type { ImportOptions, ImportResult } from './write/import/import-history.js';
export type { SkipCounts } from './write/import/import-types.js';
export type { IngestOptions, IngestResult } from './write/import/ingest.js';
export { type InitResult, type InitVaultOptions, initVault } from './write/init/init-vault.js';
export type { MoveOptions, MoveResult } from './write/move-note.js';
export type { RememberInput, RememberResult } from './write/remember.js';
export type { SyncOptions, SyncResult, YourEdits } from './write/sync/sync-vault.js';
export type { UndoOptions, UndoResult } from './write/undo-commit.js';
export type { CreateNoteInput, NoteWriteResult, UpdateNoteInput } from './write/update-note.js';

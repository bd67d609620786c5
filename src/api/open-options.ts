// How a Vault is opened (see openVault): where the vault is, what to do with the index cache, and
// whether to walk the vault before `open` resolves, track changes, or embed with another client.
import type { RefreshProgress } from '../indexing/refresh-index.js';
import type { EmbedTexts } from '../indexing/vectors/vector-cache.js';
import type { EmbedSections } from '../live/semantic-recall.js';
import type { TrackOptions } from '../vault/track-changes.js';

export interface OpenVaultOptions {
  /** The vault folder; else `MEM_VAULT`, else the nearest folder upward from `cwd` with `mem.config.json` */
  path?: string;
  /** Where discovery starts (default: process.cwd()) */
  cwd?: string;
  /** Environment read for `MEM_VAULT` (default: process.env) */
  env?: NodeJS.ProcessEnv;
  /** Read and write the index cache in `.mem/` (default: true) */
  cache?: boolean;
  /**
   * Write the index cache back to `.mem/` (default: true); false for a second reader of a vault
   * another process keeps (a server's read workers): it loads the cache and never replaces it.
   */
  saveCache?: boolean;
  /** Ignore the cache and index every note again (default: false) */
  rebuild?: boolean;
  /** Receives one-line notices such as "rebuilding the index cache" */
  onNotice?: (message: string) => void;
  /** Refuse a folder without `mem.config.json` instead of reading it as it is (default: false) */
  requireConfig?: boolean;
  /**
   * Called while opening, as the notes the cache lacks are read: how many so far of how many
   * (once per batch of 64, and once at the end). Not called when the cache has them all.
   */
  onProgress?: RefreshProgress;
  /**
   * When the index cache loaded: `now` (default) walks the vault and re-reads what changed before
   * `open` resolves; `background` resolves at once and does that walk on the vault's queue, so a
   * server can listen while it runs (a 100,000-note walk takes seconds). Until it ends,
   * `whenIdle` says `false`, so a read made meanwhile can say it answered from the cache alone.
   * Writes queue behind the walk. Without a usable cache, the walk is always done before `open`
   * resolves: answering from an empty index is not an answer.
   */
  scan?: 'now' | 'background';
  /**
   * Keep track of which notes change (Linux, on a local file system: one inotify watch per
   * folder), so that `refresh()` re-reads only those instead of looking at every note; where that
   * cannot be vouched for it walks the vault as usual (default: false). For a long-lived process
   * that refreshes before each read, like the command line's daemon. Options tune when it gives up
   * trusting its watches (tests).
   */
  track?: boolean | TrackOptions;
  /**
   * Embeds texts for semantic recall instead of the config's `embeddings` endpoint (tests, other
   * clients); used only when `embeddings.enabled` is true
   */
  embed?: EmbedTexts;
  /**
   * With `embeddings.enabled`, when sections are embedded: `read` (default) fills the vector cache
   * before each recallAsync or compileAsync; `background` embeds sections as they are written,
   * batched, off the write queue, so a read sends only its query (a long-lived server); `never`
   * only reads the cache file another process fills (a server's read workers)
   */
  embedSections?: EmbedSections;
}

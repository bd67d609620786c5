import { isAbsolute, join } from 'node:path';
import * as z from 'zod/v4';
import { MemError } from '../errors.js';
import { readRegularText } from '../regular-file.js';
import { isTimeZone, systemZone } from '../time-zone.js';
import { CONFIG_FILE } from '../vault-files.js';
import { DAEMON_DEFAULTS } from './daemon-settings.js';
import { issuePath, issuePhrase, parseWithoutUnknownKeys } from './schema-issues.js';

export { CONFIG_FILE, isTimeZone };

/** The model each embeddings provider uses when `embeddings.model` is not set. */
export const DEFAULT_EMBEDDING_MODEL = {
  openai: 'text-embedding-3-small',
  local: 'Xenova/all-MiniLM-L6-v2',
} as const;

/**
 * A group of keys, each optional: a file that sets one keeps the defaults of the others. (`{}` is
 * a valid input of every group, all its keys having defaults; the generic hides that, hence the cast.)
 */
const group = <Shape extends z.ZodRawShape>(shape: Shape) => z.strictObject(shape).prefault({} as never);

const fraction = (fallback: number) => z.number().min(0).max(1).default(fallback);
const weight = (fallback: number) => z.number().min(0).default(fallback);

/**
 * A folder inside the vault, as a vault path (`Daily`, `AI/persona`): never absolute, never `..`,
 * never mem's or git's or Obsidian's own folder. `root` allows `""`, the vault root.
 */
const folder = (fallback: string, root = false) =>
  z
    .string()
    .transform((value) => value.trim().replace(/^\/+|\/+$/g, ''))
    .refine(
      (value) => root || value !== '',
      'must name a folder; "" (the vault root) is only for layout.daily.folder',
    )
    .refine(
      (value) =>
        value === '' || value.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
      'must be a folder inside the vault, e.g. "Daily" or "AI/persona" (no "..", no "//")',
    )
    .refine(
      (value) => !/[\\:*?"<>|\u0000-\u001f]/.test(value),
      'must not hold \\ : * ? " < > | or control characters',
    )
    .refine(
      (value) => !/^(\.mem|\.git|\.obsidian|\.trash)(\/|$)/i.test(value),
      'must not be inside .mem, .git, .obsidian or .trash',
    )
    .default(fallback);

/**
 * `mem.config.json` at the vault root: every key optional. The one home of the config's keys,
 * types, defaults and meaning; `MemConfig` and `defaultConfig()` come from it.
 */
export const configSchema = z.strictObject({
  timezone: z
    .string()
    .refine(isTimeZone, 'must be an IANA time zone such as "Asia/Shanghai" or "UTC"')
    .default(systemZone)
    .meta({
      description: 'IANA time zone: which day an entry belongs to, and what "yesterday" means',
      shownDefault: "the system's",
    }),
  recall: group({
    k: z.int().positive().default(8).describe('Results returned when the caller gives no k'),
    halfLifeDays: z.number().positive().default(30).describe('Recency half-life in days'),
    weights: group({
      text: weight(1).describe('Weight of text relevance (BM25), the base of the score'),
      graph: weight(1).describe('Weight of a link from one of the strongest hits'),
      recency: weight(0.15).describe('Weight of recency'),
      importance: weight(0.15).describe("Weight of a note's importance"),
      layer: weight(0.1).describe('Weight of the layer prior'),
    }),
    layerPrior: group({
      persona: fraction(0.6).describe('Layer prior of persona/'),
      profile: fraction(0.9).describe('Layer prior of profile/'),
      insights: fraction(1).describe('Layer prior of insights/'),
      episodes: fraction(0.7).describe('Layer prior of episodes/'),
      archive: fraction(0.2).describe('Layer prior of archive/'),
      other: fraction(0.5).describe('Layer prior of notes outside the layers'),
    }),
  }),
  compile: group({
    budget: z.int().positive().default(2000).describe('Token budget for the whole context'),
    tokenizer: z
      .enum(['o200k_base', 'cl100k_base'])
      .default('o200k_base')
      .describe('BPE encoding used to count tokens'),
    shares: group({
      persona: fraction(0.2).describe('Share of the budget for the persona, first'),
      user: fraction(0.2).describe('Share of the budget for the core profile, second'),
      relevant: fraction(0.45).describe('Share of the budget for the memories recalled for the turn, third'),
      recent: fraction(0.15).describe('Share of the budget for recent episode entries, last'),
    }),
    recentEntries: z
      .int()
      .min(0)
      .default(12)
      .describe('How many recent episode entries the working-memory tail considers'),
  }),
  git: group({
    autoCommit: z
      .boolean()
      .default(true)
      .describe('Commit each mem write (when the vault is in a git repository)'),
    runHooks: z
      .boolean()
      .default(false)
      .describe(
        "Run the repository's git hooks (pre-commit, commit-msg, post-commit…) on mem's own commits; off, a hook cannot block or slow mem's background commits",
      ),
  }),
  sync: group({
    remote: z
      .string()
      .min(1)
      .default('origin')
      .describe('The git remote `mem sync` (and `mem serve`) fetches from, merges and pushes to'),
    intervalSeconds: z
      .int()
      .min(0)
      .default(0)
      .describe(
        '`mem serve` syncs each open vault when this long (seconds) has passed since its last sync, whatever started that one; 0: never on a schedule',
      ),
    afterCommit: z
      .boolean()
      .default(false)
      .describe('`mem serve` syncs a vault after each of its group commits (off the request path)'),
    afterCommitGapSeconds: z
      .number()
      .min(0)
      .default(5)
      .describe(
        "With sync.afterCommit: a group commit within this many seconds of the last sync's start waits for them to pass, and its sync takes every commit made meanwhile (one push for a burst; what a lost machine can lose grows by as much). An add waiting for its push (sync.ackAfterPush) does not wait",
      ),
    ackAfterPush: z
      .boolean()
      .default(false)
      .describe(
        "An add (HTTP /memory/add, MCP memory_remember, Vault.addExchange) is answered only once a push to sync.remote holds it: many waiting adds share one commit and push; a push that fails answers an error that says the add is kept here, not pushed. Closes what a lost machine's disk loses",
      ),
    ackTimeoutSeconds: z
      .number()
      .positive()
      .default(30)
      .describe(
        "With sync.ackAfterPush: an add whose push has not come within this many seconds is answered with the same error as a failed push (kept and committed here, not pushed; the next sync pushes it), so a router in front (HAProxy's timeout server, 60 s in deploy/) never times it out into a retry that would keep it twice. Keep it under the router's timeout",
      ),
  }),
  llm: group({
    baseURL: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .optional()
      .describe('OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama; unset means OpenAI'),
    model: z.string().min(1).default('gpt-4o-mini').describe('Model reflect asks'),
    apiKeyEnv: z
      .string()
      .min(1)
      .default('OPENAI_API_KEY')
      .describe('Name of the environment variable that holds the API key'),
    timeoutMs: z.int().positive().default(120_000).describe('How long a model call may take, in ms'),
  }),
  embeddings: group({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        'Fuse a semantic ranking (embeddings) into recall and compile; off means no network call at all',
      ),
    provider: z
      .enum(['openai', 'local'])
      .default('openai')
      .describe(
        'Where vectors come from: an OpenAI-compatible endpoint (openai: OpenAI, Ollama, …), or a model run in-process by Transformers.js on ONNX Runtime (local: no server; `npm install @huggingface/transformers`, model downloaded on first use)',
      ),
    baseURL: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .optional()
      .describe(
        'OpenAI-compatible embeddings endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama; unset means OpenAI (provider openai)',
      ),
    model: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          'Embedding model: for openai e.g. bge-m3 or nomic-embed-text; for local a Hugging Face model id with ONNX weights, e.g. Xenova/paraphrase-multilingual-MiniLM-L12-v2 for Chinese and 50 other languages',
        shownDefault: `\`"${DEFAULT_EMBEDDING_MODEL.openai}"\` (openai), \`"${DEFAULT_EMBEDDING_MODEL.local}"\` (local)`,
      }),
    cacheDir: z
      .string()
      .refine(
        (path) => isAbsolute(path) || path === '~' || path.startsWith('~/'),
        'must be an absolute path or start with "~/"',
      )
      .optional()
      .meta({
        description:
          'Folder of the local models (one sub-folder per model id); the environment variable MEM_MODEL_CACHE overrides it',
        shownDefault: '$XDG_CACHE_HOME/memvault/models, else ~/.cache/memvault/models',
      }),
    apiKeyEnv: z
      .string()
      .min(1)
      .default('OPENAI_API_KEY')
      .describe('Name of the environment variable that holds the embeddings API key (provider openai)'),
    fusion: z
      .enum(['rrf'])
      .default('rrf')
      .describe(
        'How the semantic ranking joins the lexical one: rrf, reciprocal rank fusion (rank-based, needs no weight tuned on data)',
      ),
    rrfK: z
      .int()
      .positive()
      .default(60)
      .describe(
        'The k of reciprocal rank fusion: a hit scores 1/(k + rank) per ranking; larger flattens the ranks',
      ),
    batchSize: z
      .int()
      .positive()
      .default(64)
      .describe('Sections sent per embeddings request (local: embedded per model run)'),
  }),
  companion: group({
    commit: z
      .enum(['exchange', 'user', 'none'])
      .default('exchange')
      .describe(
        'What /memory/add keeps when a request does not say: both sides (exchange), the user only (user), or nothing (none)',
      ),
  }),
  commitments: group({
    windowDays: z
      .int()
      .min(0)
      .default(7)
      .describe('Pending commitments due within this many days are shown near the top of the user section'),
  }),
  forget: group({
    staleAfterDays: z
      .int()
      .positive()
      .optional()
      .describe(
        'mem forget --stale archives daily episodes older than this many days that a rollup covers and nothing links to; unset means off',
      ),
    unrecalledDays: z
      .int()
      .positive()
      .default(180)
      .describe(
        'An insight whose sources were all archived and that was not recalled or updated for this many days loses importance',
      ),
    importanceFactor: fraction(0.5).describe("What such an insight's importance is multiplied by"),
  }),
  limits: group({
    maxNoteChars: z
      .int()
      .positive()
      .default(2_000_000)
      .describe('A note longer than this many characters is indexed up to it (doctor names it)'),
    maxLineChars: z
      .int()
      .positive()
      .default(20_000)
      .describe('A line longer than this many characters is indexed up to it'),
    maxLinksPerNote: z
      .int()
      .positive()
      .default(5000)
      .describe('Links past this many in one note are left out of the graph'),
    decodedNotesMiB: z
      .int()
      .positive()
      .default(16)
      .describe(
        'Notes read from the index cache stay decoded up to this many MiB of their saved JSON (about one and a half times that in the heap); past it the least recently read are dropped and read again when asked for',
      ),
  }),
  reflect: group({
    maxTokensPerDay: z
      .int()
      .min(0)
      .default(0)
      .describe(
        "Model tokens (prompt + completion) reflect may use per day in the vault's zone; a run that would pass it is skipped. 0: no cap",
      ),
    contextWindow: z
      .int()
      .positive()
      .optional()
      .describe(
        "The model's context window in tokens: reflect checks its prompt against it before the call (a local server cuts a longer prompt silently; Ollama's is its num_ctx, 2048-4096 unless raised). Unset: no check",
      ),
    overContext: z
      .enum(['warn', 'refuse'])
      .default('warn')
      .describe(
        'When the prompt is larger than reflect.contextWindow: warn on stderr and call the model anyway, or refuse the run before the call',
      ),
    auto: group({
      afterEntries: z
        .int()
        .positive()
        .optional()
        .describe('mem serve reflects by itself once this many new entries were added'),
      idleMinutes: z
        .number()
        .positive()
        .optional()
        .describe('mem serve reflects by itself after this many minutes without a new entry'),
      dailyAt: z
        .string()
        .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day as "HH:MM", e.g. "03:30"')
        .optional()
        .describe("mem serve reflects by itself every day at this time (HH:MM) in the vault's zone"),
      retrySeconds: z
        .number()
        .positive()
        .default(60)
        .describe(
          'After a failed background run, the wait before the next try; it doubles per failure, up to an hour',
        ),
    }),
  }),
  serve: group({
    allowedHosts: z
      .array(z.string().min(1))
      .default(() => [])
      .describe(
        'Host names mem serve answers besides localhost, 127.0.0.1, [::1] and the address it binds (e.g. "mybox.local"; "name:port" for another port); any other Host header is refused, so a web page cannot reach it by DNS rebinding',
      ),
    allowedOrigins: z
      .array(z.string().min(1))
      .default(() => [])
      .describe(
        'Web page origins (e.g. "http://localhost:5173") that may call mem serve from a browser; requests from any other page are refused',
      ),
  }),
  daemon: group({
    enabled: z
      .boolean()
      .default(DAEMON_DEFAULTS.enabled)
      .describe(
        'mem recall and mem compile start a background process that keeps the index in memory and answer through it (MEM_NO_DAEMON=1 or --no-server: never)',
      ),
    minNotes: z
      .int()
      .min(0)
      .default(DAEMON_DEFAULTS.minNotes)
      .describe('The daemon is started only for a vault of at least this many notes'),
    idleMinutes: z
      .number()
      .positive()
      .default(DAEMON_DEFAULTS.idleMinutes)
      .describe('The daemon exits after this many minutes without a request'),
  }),
  layout: group({
    persona: folder('persona').describe('Folder of the persona layer (who the agent is)'),
    profile: folder('profile').describe(
      'Folder of the profile layer (the user and people); holds user.md and commitments.md',
    ),
    episodes: folder('episodes').describe(
      'Folder of the episodes layer: rollups (weekly/, monthly/ …) go under it',
    ),
    insights: folder('insights').describe('Folder of the insights layer (what reflect learned)'),
    archive: folder('archive').describe('Folder of retired notes'),
    daily: group({
      folder: folder('episodes/daily', true).describe(
        'Folder of the daily episode notes, as Obsidian\'s Daily notes setting ("" is the vault root)',
      ),
      format: z
        .string()
        .min(1)
        .max(200)
        .default('YYYY-MM-DD')
        .describe(
          'Daily note name in moment.js tokens, as Obsidian writes it (may hold /, e.g. YYYY/MM/YYYY-MM-DD)',
        ),
      template: z
        .string()
        .min(1)
        .optional()
        .describe(
          "Vault path of the note a new day starts from (Obsidian's {{date}}, {{time}}, {{title}} are filled in); unset: mem's own",
        ),
      heading: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe(
          'Heading mem writes its entries under in a daily note a person also writes, e.g. "## Memory"; unset: the end of the note',
        ),
      locale: z
        .enum(['en', 'zh-cn'])
        .default('en')
        .describe(
          'Language of month and weekday names in the date format (Obsidian follows its app language)',
        ),
    }),
  }),
  allowPersonaEdits: z.boolean().default(false).describe('Whether reflect may change persona notes'),
  followOutsideSymlinks: z
    .boolean()
    .default(false)
    .describe(
      'Read notes through symlinks, also ones that lead out of the vault (folders linked in on purpose); mem never writes through them outside the vault',
    ),
  speakers: z
    .record(z.string(), z.string())
    .default(() => ({}))
    .describe(
      'Names written for roles in transcripts and companion turns, e.g. {"user": "Rain", "assistant": "小满"}; a role not named is written as it comes',
    ),
});

type ParsedConfig = z.output<typeof configSchema>;

/** The settings of one vault, every default filled in (the embedding model's from the provider). */
export type MemConfig = Omit<ParsedConfig, 'embeddings'> & {
  embeddings: ParsedConfig['embeddings'] & { model: string };
};

/** Fills in the defaults that depend on another key: the embedding model, from the provider. */
function withDerivedDefaults(parsed: ParsedConfig): MemConfig {
  const { embeddings } = parsed;
  return {
    ...parsed,
    embeddings: { ...embeddings, model: embeddings.model ?? DEFAULT_EMBEDDING_MODEL[embeddings.provider] },
  };
}

export function defaultConfig(): MemConfig {
  // Parsed once or twice a process: zod's compiled fast path would cost more to build than it saves.
  return withDerivedDefaults(configSchema.parse({}, { jitless: true }));
}

/**
 * Validates a parsed `mem.config.json`. A wrong value is an error naming the key; an unknown key
 * is reported through `onNotice` (with the key it likely meant) and ignored, so a typo never
 * stops a vault from opening but never goes unnoticed either.
 */
export function resolveConfig(raw: unknown, onNotice?: (message: string) => void): MemConfig {
  if (raw === undefined) return defaultConfig();
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new MemError('INVALID_CONFIG', `${CONFIG_FILE}: expected a JSON object`);
  const { result, unknown } = parseWithoutUnknownKeys(configSchema, raw, {
    error: issuePhrase,
    reportInput: true,
  });
  for (const { key, suggestion } of unknown) {
    const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
    onNotice?.(`mem: ${CONFIG_FILE}: unknown key "${key}"${hint}; it is ignored`);
  }
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const got = issue.input === undefined ? '' : `, got ${JSON.stringify(issue.input)}`;
      return `${issuePath(issue.path)} ${issue.message}${got}`;
    });
    throw new MemError('INVALID_CONFIG', `${CONFIG_FILE}: ${problems.join('; ')}`);
  }
  return withDerivedDefaults(result.data);
}

/** The vault's mem.config.json parsed as JSON, not yet validated; `undefined` when there is none. */
export async function readConfigJson(root: string): Promise<unknown> {
  let text: string;
  try {
    text = await readRegularText(join(root, CONFIG_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MemError('INVALID_CONFIG', `${CONFIG_FILE}: invalid JSON (${(error as Error).message})`);
  }
}

export async function loadConfig(root: string, onNotice?: (message: string) => void): Promise<MemConfig> {
  const raw = await readConfigJson(root);
  return raw === undefined ? defaultConfig() : resolveConfig(raw, onNotice);
}

/** The name to write for a speaker or role, per the config's `speakers` (matched without case). */
export function speakerName(config: MemConfig, speaker: string | undefined): string | undefined {
  if (speaker === undefined) return undefined;
  const named = config.speakers[speaker] ?? config.speakers[speaker.toLowerCase()];
  return typeof named === 'string' && named.trim() !== '' ? named : speaker;
}

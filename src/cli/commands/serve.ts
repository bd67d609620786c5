import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { MemError } from '../../core/errors.js';
import { claimServeRecord, removeServeRecord, writeServeRecord } from '../../core/serve-record.js';
import { VERSION } from '../../core/version.js';
import type { VaultPool } from '../../serve/pool/vault-pool.js';
import type { VaultSource } from '../../serve/pool/vault-source.js';
import type { ReadPool } from '../../serve/read-pool.js';
import { openFromCli } from '../context.js';
import type { CliIO } from '../io.js';
import { parsePositiveInt } from '../parse-options.js';
import { errorText, waitForStop } from './watch.js';

/**
 * Claims `root` (a vault, or the folder of `--vaults`) for this server before anything is written,
 * or refuses naming the server that holds it: two servers on one vault each replayed and committed
 * the other's adds, and entries were left uncommitted.
 */
async function claimOrRefuse(root: string): Promise<void> {
  const holder = await claimServeRecord(root, { url: '', pid: process.pid, version: VERSION });
  if (holder)
    throw new MemError(
      'LOCKED',
      `${root} is already served by mem serve (pid ${holder.pid}${holder.url ? ` on ${holder.url}` : ', starting'}); stop it first, or send requests to it`,
    );
}

const isDirectory = (path: string) =>
  stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );

interface ServeCliOptions {
  port: string;
  host: string;
  token?: string;
  vaults?: string;
  template?: string;
  idleMinutes?: string;
  maxVaults?: string;
  decodedNotesMib?: string;
  defaultVault?: boolean;
  deadline?: string;
  workers?: string;
  allowHost: string[];
  remote?: string;
  createRemote?: string;
  router: string[];
  routerHost: string[];
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function serveCommand(program: Command, io: CliIO): void {
  program
    .command('serve')
    .description(
      'a warm JSON API on loopback: recall, compile, remember, notes, and the companion /memory/* contract',
    )
    .option('--port <n>', 'TCP port (0 picks a free one)', '7411')
    .option('--host <host>', 'interface to bind; anything but loopback needs a token', '127.0.0.1')
    .option(
      '--token <token>',
      'require "Authorization: Bearer <token>" on every request (default: MEM_TOKEN)',
    )
    .option(
      '--allow-host <name>',
      'also answer requests whose Host is this name (repeatable; default: loopback names and the bound address)',
      collect,
      [],
    )
    .option('--vaults <dir>', 'serve one vault per agent_id/user_id under DIR, created on first write')
    .option(
      '--template <path>',
      "with --vaults: a vault new users' vaults start from (its mem.config.json and persona/ notes); default DIR/.template if it exists",
    )
    .option(
      '--default-vault',
      'with --vaults: file adds and searches that name no user_id or agent_id under default/default (else they are refused with 400)',
    )
    .option(
      '--remote <url>',
      "with --vaults: each vault's git repository, {agent} and {user} in it (git://host/{agent}/{user}.git); a vault not on disk is cloned from it, pushed after each group commit and when released",
    )
    .option(
      '--create-remote <command>',
      "with --remote: a shell command that creates a vault's repository on the git server if it is missing ({agent}, {user}, {url})",
    )
    .option(
      '--router <address>',
      'a router connects from this address (repeatable): its requests may name --router-host in Host',
      collect,
      [],
    )
    .option(
      '--router-host <name>',
      'a name the router is reached by, accepted as Host only from --router addresses (repeatable)',
      collect,
      [],
    )
    .option('--idle-minutes <n>', 'with --vaults: unload a vault after this many idle minutes', '10')
    .option(
      '--max-vaults <n>',
      'with --vaults: most vaults loaded at once; the least recently used idle one is unloaded to load another (default: from memory, 8 MiB a vault in half of it)',
    )
    .option(
      '--decoded-notes-mib <n>',
      'with --vaults: MiB of saved notes (as limits.decodedNotesMiB counts them) kept decoded by all loaded vaults together; past it the least recently read go (default: what one vault keeps by default)',
    )
    .option(
      '--workers <n>',
      'answer reads (recall, compile, search, notes) in N worker threads too, each holding its own copy of the index',
      '0',
    )
    .option(
      '--deadline <ms>',
      'longest a read waits for a running re-index (and a search for a vault still loading) before answering "partial"',
      '1000',
    )
    .action((options: ServeCliOptions, command: Command) => runServe(options, command, io));
}

/** What `mem serve` serves, as either mode opened it, and what it does around its listening. */
interface Served {
  source: VaultSource;
  /** What the start-up line names */
  what: string;
  /** The folder claimed for this server: the vault, or the folder of `--vaults` */
  root: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  /** Starts the watcher, once the server listens */
  watchLater: () => void;
  reads?: ReadPool;
  pool?: VaultPool;
}

type VaultPoolModule = typeof import('../../serve/pool/vault-pool.js');

/** What serving one vault needs besides its flags: the wrapper, the worker count, the error sink. */
interface OneVault {
  singleVault: typeof import('../../serve/pool/vault-source.js').singleVault;
  workers: number;
  onError: (error: unknown) => void;
}

/**
 * The flags checked, the vault (or the folder of vaults) opened and claimed, the server started;
 * then it serves until a stop signal, and its claim goes when it stops.
 */
async function runServe(options: ServeCliOptions, command: Command, io: CliIO): Promise<void> {
  const onError = (error: unknown) => io.stderr(`mem: ${errorText(error)}\n`);
  // The server's modules load only for `mem serve`, not for every command.
  const [{ serveHttp }, vaultPool, { singleVault }] = await Promise.all([
    import('../../serve/http.js'),
    import('../../serve/pool/vault-pool.js'),
    import('../../serve/pool/vault-source.js'),
  ]);
  const port = options.port === '0' ? 0 : parsePositiveInt(options.port, '--port');
  const token = options.token ?? io.env['MEM_TOKEN'];
  const workers = options.workers === '0' ? 0 : parsePositiveInt(options.workers ?? '0', '--workers');
  refuseModeConflicts(options, workers);
  // Commits and syncs are the background of a server's work: requests come first.
  (await import('../../internal.js')).lowerGitPriority();
  // A server's heap stays near its live data (serve/server-heap.ts).
  (await import('../../serve/server-heap.js')).boundHeapGrowth();
  const served = options.vaults
    ? await servePool(options.vaults, options, io, vaultPool, onError)
    : await serveOne(options, command, io, { singleVault, workers, onError });
  const { source, root, reads } = served;
  let server: Awaited<ReturnType<typeof serveHttp>>;
  try {
    server = await serveHttp({
      source,
      port,
      host: options.host,
      token,
      allowedHosts: served.allowedHosts,
      allowedOrigins: served.allowedOrigins,
      deadlineMs: parsePositiveInt(options.deadline ?? '1000', '--deadline'),
      onError,
      ...(reads ? { reads } : {}),
      routers: options.router,
      routerHosts: options.routerHost,
    });
  } catch (error) {
    await removeServeRecord(root, process.pid);
    await reads?.close();
    await source.close();
    throw error;
  }
  await serveUntilStopped(served, server, { token, io, onError });
}

/** The flags that go with one mode only (`--vaults` or one vault), refused before anything opens. */
function refuseModeConflicts(options: ServeCliOptions, workers: number): void {
  if (workers > 0 && options.vaults)
    throw new MemError('USAGE', '--workers serves one vault; it cannot be combined with --vaults');
  if (options.defaultVault && !options.vaults)
    throw new MemError('USAGE', '--default-vault is for --vaults: one vault serves every request without it');
  if (options.maxVaults !== undefined && !options.vaults)
    throw new MemError('USAGE', '--max-vaults is for --vaults: one vault is always loaded');
  if (options.decodedNotesMib !== undefined && !options.vaults)
    throw new MemError('USAGE', '--decoded-notes-mib is for --vaults: one vault has limits.decodedNotesMiB');
  if (options.template && !options.vaults)
    throw new MemError('USAGE', "--template is for --vaults: it is what new users' vaults start from");
  if ((options.remote || options.createRemote) && !options.vaults)
    throw new MemError('USAGE', '--remote and --create-remote are for --vaults: one remote per vault');
  if (options.createRemote && !options.remote)
    throw new MemError('USAGE', '--create-remote needs --remote, the URL of the repositories it creates');
  if (options.remote && !/\{user\}/.test(options.remote))
    throw new MemError('USAGE', '--remote must name {user} (and {agent}): one repository per vault');
  if (options.routerHost.length > 0 && options.router.length === 0)
    throw new MemError('USAGE', '--router-host needs --router, the address the router connects from');
}

/** `--vaults DIR`: one vault per agent_id/user_id under DIR, its template checked and DIR claimed first. */
async function servePool(
  vaults: string,
  options: ServeCliOptions,
  io: CliIO,
  { VaultPool, defaultMaxVaults }: VaultPoolModule,
  onError: (error: unknown) => void,
): Promise<Served> {
  const dir = resolve(io.cwd, vaults);
  // `.template` can never be a user's vault: ids never start with a dot (parseVaultId).
  const template = options.template
    ? resolve(io.cwd, options.template)
    : (await isDirectory(join(dir, '.template')))
      ? join(dir, '.template')
      : undefined;
  if (options.template && !(await isDirectory(template as string)))
    throw new MemError('USAGE', `--template ${options.template} is not a folder`);
  // A template whose config is wrong is refused now, not at some user's first request.
  if (template) await (await import('../../serve/pool/vault-template.js')).readTemplate(template);
  // The folder of vaults is claimed as one: two servers on it each loaded, replayed and
  // committed the same users' vaults.
  await claimOrRefuse(dir);
  // The pool module has loaded internal.js already: this import reads no file.
  (await import('../../internal.js')).boundDecodedNotes(
    options.decodedNotesMib === undefined
      ? undefined
      : parsePositiveInt(options.decodedNotesMib, '--decoded-notes-mib'),
  );
  const pool = new VaultPool({
    dir,
    template,
    defaultIds: options.defaultVault === true,
    idleMs: parsePositiveInt(options.idleMinutes ?? '10', '--idle-minutes') * 60_000,
    maxVaults:
      options.maxVaults === undefined
        ? defaultMaxVaults()
        : parsePositiveInt(options.maxVaults, '--max-vaults'),
    watch: { onError },
    onNotice: (message) => io.stderr(`${message}\n`),
    ...(options.remote
      ? {
          remote: {
            template: options.remote,
            ...(options.createRemote ? { create: options.createRemote } : {}),
          },
        }
      : {}),
  });
  return {
    source: pool,
    what: `vaults under ${dir} (at most ${pool.limit} loaded at once)`,
    root: dir,
    allowedHosts: options.allowHost,
    allowedOrigins: [],
    watchLater: () => undefined,
    pool,
  };
}

/**
 * One vault: opened with its walk and watcher behind the listening, claimed, its unfinished
 * exchanges finished, sync and auto-reflect started, reads in `--workers` threads when asked.
 */
async function serveOne(
  options: ServeCliOptions,
  command: Command,
  io: CliIO,
  { singleVault, workers, onError }: OneVault,
): Promise<Served> {
  // Listening comes first: the walk of the vault and the watcher's start (below) run
  // behind it, and reads until they end answer from the cache, marked `partial`.
  const vault = await openFromCli(command, io, {
    scan: 'background',
    track: true,
    embedSections: 'background',
  });
  // One server per vault, claimed before anything is written: two servers each replayed and
  // committed the other's adds, and entries were left uncommitted.
  await claimOrRefuse(vault.root).catch(async (error: unknown) => {
    await vault.close();
    throw error;
  });
  const allowedHosts = [...vault.config.serve.allowedHosts, ...options.allowHost];
  const allowedOrigins = vault.config.serve.allowedOrigins;
  const watchLater = () => void vault.watch({ onError }).catch(onError);
  // What a killed server accepted but did not write or commit is finished before any request.
  await vault.startExchanges({ onError });
  vault.startSync(onError);
  if (vault.startAutoReflect({ onError }).enabled) {
    const { afterEntries, idleMinutes, dailyAt } = vault.config.reflect.auto;
    const when = [
      afterEntries === undefined ? '' : `after ${afterEntries} new entries`,
      idleMinutes === undefined ? '' : `after ${idleMinutes} idle minutes`,
      dailyAt === undefined ? '' : `daily at ${dailyAt} (${vault.config.timezone})`,
    ].filter(Boolean);
    io.stderr(`mem: reflecting in the background ${when.join(', ')}; see /health\n`);
  }
  const source = singleVault(vault);
  let reads: ReadPool | undefined;
  if (workers > 0) {
    // Each worker opens the vault from its cache while the server already answers.
    const { ReadPool } = await import('../../serve/read-pool.js');
    reads = new ReadPool({ vault, workers, onError });
  }
  const what = `${vault.root} (${vault.noteCount} notes; one vault: user_id and agent_id are ignored, use --vaults DIR for one per user)`;
  return {
    source,
    what,
    root: vault.root,
    allowedHosts,
    allowedOrigins,
    watchLater,
    ...(reads ? { reads } : {}),
  };
}

/**
 * Once the server listens: the watcher starts, a pool recovers what a stopped server left, the
 * claim records the address, the start-up lines are printed; then it serves until a stop signal.
 */
async function serveUntilStopped(
  { watchLater, pool, root, what }: Served,
  server: { url: string; close: () => Promise<void> },
  { token, io, onError }: { token: string | undefined; io: CliIO; onError: (error: unknown) => void },
): Promise<void> {
  // The watcher's first scan of a large vault takes seconds of the event loop (20 s at
  // 100,000 notes): it starts once the server listens, not before.
  watchLater();
  // What a killed server accepted and did not push goes out now, not at the user's next turn.
  if (pool)
    void pool
      .recover()
      .then(
        (n) =>
          n > 0 &&
          io.stderr(`mem: recovered ${n} vault${n === 1 ? '' : 's'} a stopped server left work in\n`),
        onError,
      );
  // Listen for the stop before saying we serve: a supervisor may send it the moment it reads the line.
  const stop = waitForStop();
  // The claim now says where: on loopback, `mem recall` and `mem compile` for this vault ask
  // this server (a record of another address is never asked, but names it to a second server).
  await writeServeRecord(root, { url: server.url, pid: process.pid, version: VERSION });
  io.stdout(`mem: serving ${what} on ${server.url}\n`);
  // The token is never printed (a supervisor's log keeps this line): the person adds it to the
  // address as a fragment, which a browser never sends, not to a log, not as Referer.
  const fragment = token ? ' (add #token=<the token> to the address)' : '';
  io.stdout(`mem: web page (timeline, search, compiled context): ${server.url}/${fragment}\n`);
  try {
    await stop;
  } finally {
    await removeServeRecord(root, process.pid);
    await server.close();
  }
}

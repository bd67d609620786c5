// The records of write plans whose commit has not been made yet: which vault paths a plan writes,
// the commit that should hold them, and who owns the plan. Written before the plan's first write and
// removed once its commit is made. Each plan has its own file in `.mem/plans/`, so a plan that runs
// in several steps (a rollup waiting on a model, `forget --stale` moving notes one by one) keeps its
// record while other commands commit in its gaps: a record is finished by another run only when
// its owner is gone (the process died, or its heartbeat stopped), never while the owner runs it.
//
// A record is trusted only when this device wrote it: one that does not parse, names a path outside
// the vault (or inside `.git/` or `.mem/`), or is tracked by git (mem never commits `.mem/`, so a
// tracked record came from a remote) is set aside into `.mem/plans-set-aside/` with the reason,
// and never blocks a later write.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CACHE_DIR, cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { readRegularText } from '../core/regular-file.js';
import { isAlive } from '../core/serve-record.js';
import { tempWriterPid } from '../vault/temp-name.js';
import { writeAtomic } from '../vault/write-note.js';
import { git, isGitAvailable } from './run-git.js';

export interface PlanOwner {
  pid: number;
  host: string;
  /** Random per process: a pid reused by another process does not own the plan */
  token: string;
  /** Heartbeat: renewed while the owner runs the plan (judges owners on other hosts) */
  time: string;
}

export interface PendingPlan {
  /** The record's file name in `.mem/plans/`, without `.json` */
  id: string;
  /** What the plan is, so a re-run of the same command knows it as its own: `mv a.md -> b.md` */
  key: string;
  /** The commit message the plan's commit gets when another run finishes it */
  message: string;
  /** Vault paths the plan writes or deletes */
  paths: string[];
  /** Who runs the plan; a record without one (an older mem's) has no live owner */
  owner?: PlanOwner;
}

export interface SetAsidePlan {
  /** The record's file, under `.mem/plans-set-aside/` */
  file: string;
  /** Why it was not trusted */
  reason: string;
}

const DIR = 'plans';
const ASIDE = 'plans-set-aside';
/** The one record of mem 0.1's first versions: read as a plan without an owner. */
const LEGACY = 'pending-commit.json';
/** An owner on another host whose heartbeat is older than this is gone. */
const HEARTBEAT_STALE_MS = 120_000;
const HEARTBEAT_MS = 30_000;
/** Bounds a record may not pass: a record is a short list of notes, not a way to fill the heap. */
const MAX_PATHS = 200_000;
const MAX_TEXT = 100_000;

const PROCESS_TOKEN = randomBytes(8).toString('hex');

/** Records this process owns and is running, by file; what their heartbeat renews. */
const running = new Map<string, PendingPlan & { root: string }>();
let heartbeat: NodeJS.Timeout | undefined;

const plansDir = (root: string) => join(cacheDir(root), DIR);
const fileOf = (root: string, id: string) => join(plansDir(root), `${id}.json`);

/** The owner this process writes into its records. */
function ownerHere(): PlanOwner {
  return { pid: process.pid, host: hostname(), token: PROCESS_TOKEN, time: new Date().toISOString() };
}

/** Whether the plan's owner still runs it: this process's own running plan, or a live process elsewhere. */
export function isOwnerAlive(plan: PendingPlan, root: string): boolean {
  const { owner } = plan;
  if (!owner) return false;
  if (owner.token === PROCESS_TOKEN) return running.has(fileOf(root, plan.id));
  if (owner.host === hostname()) return owner.pid !== process.pid && owner.pid > 0 && isAlive(owner.pid);
  const beat = Date.parse(owner.time);
  return Number.isFinite(beat) && Math.abs(Date.now() - beat) < HEARTBEAT_STALE_MS;
}

/**
 * Why a vault path in a record is not one mem may commit, or undefined when it is: relative,
 * normalised, inside the vault, and not in `.git/` or `.mem/` (a plan writes notes, never mem's
 * or git's own files).
 */
export function badPlanPath(path: unknown): string | undefined {
  if (typeof path !== 'string' || path === '') return 'a path that is not text';
  if (path.length > 4096 || path.includes('\0'))
    return `a path that is no file name: ${JSON.stringify(path.slice(0, 80))}`;
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path))
    return `an absolute or Windows path: ${path}`;
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..'))
    return `a path that leaves the vault or is not normalised: ${path}`;
  const top = parts[0]!.toLowerCase();
  if (top === '.git' || top === CACHE_DIR) return `a path in ${parts[0]}/, which no plan writes: ${path}`;
  return undefined;
}

/** The record as read from disk, or why it is not trusted. */
function parseRecord(id: string, text: string): PendingPlan | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (typeof raw !== 'object' || raw === null) return 'not a record';
  const r = raw as Record<string, unknown>;
  if (typeof r['key'] !== 'string' || typeof r['message'] !== 'string' || !Array.isArray(r['paths']))
    return 'a record without key, message and paths';
  if (r['key'].length > MAX_TEXT || r['message'].length > MAX_TEXT) return 'a key or message too long';
  if (r['paths'].length > MAX_PATHS) return `more than ${MAX_PATHS} paths`;
  for (const path of r['paths']) {
    const bad = badPlanPath(path);
    if (bad) return bad;
  }
  const o = r['owner'] as Record<string, unknown> | undefined;
  const owner =
    o &&
    typeof o === 'object' &&
    Number.isInteger(o['pid']) &&
    typeof o['host'] === 'string' &&
    typeof o['token'] === 'string' &&
    typeof o['time'] === 'string'
      ? { pid: o['pid'] as number, host: o['host'], token: o['token'], time: o['time'] }
      : undefined;
  if (o !== undefined && !owner) return 'an owner that is not one';
  return {
    id,
    key: r['key'],
    message: r['message'],
    paths: r['paths'] as string[],
    ...(owner ? { owner } : {}),
  };
}

/** The record files under `.mem/` that git tracks: they came from a remote, since mem never commits `.mem/`. */
async function trackedRecords(root: string, files: string[]): Promise<Set<string>> {
  if (files.length === 0 || !(await isGitAvailable())) return new Set();
  const out = await git(root, ['ls-files', '-z', '--', ...files.map((f) => `${CACHE_DIR}/${f}`)], {
    allowFail: true,
  });
  return new Set(
    (out ?? '')
      .split('\0')
      .filter(Boolean)
      .map((p) => p.slice(p.lastIndexOf(`${CACHE_DIR}/`) + CACHE_DIR.length + 1)),
  );
}

/** Moves an untrusted record out of the way, with its reason beside it (see `mem status`). */
async function setAside(root: string, file: string, reason: string): Promise<SetAsidePlan> {
  const dir = join(cacheDir(root), ASIDE);
  await mkdir(dir, { recursive: true });
  const name = `${Date.now()}-${file.replaceAll('/', '_')}`;
  await rename(join(cacheDir(root), file), join(dir, name)).catch(() => unlink(join(cacheDir(root), file)));
  await writeFile(join(dir, `${name}.why`), `${reason}\n`).catch(() => undefined);
  return { file: `${CACHE_DIR}/${ASIDE}/${name}`, reason };
}

/**
 * Every plan record in the vault, trusted ones only; the untrusted are set aside (see the top of
 * this file) and listed. An unreadable record (a FIFO, a device) is set aside too: read as every
 * `.mem/` file is, it never holds up the commit every write makes.
 */
export async function readPlans(root: string): Promise<{ plans: PendingPlan[]; setAside: SetAsidePlan[] }> {
  const names = await readdir(plansDir(root)).catch(() => [] as string[]);
  // A record's temp file whose writer was killed before its rename: nothing to read, only to remove.
  for (const name of names) {
    const pid = tempWriterPid(name);
    if (pid !== undefined && pid !== process.pid && !isAlive(pid))
      await unlink(join(plansDir(root), name)).catch(() => undefined);
  }
  const files = [
    ...names.filter((n) => n.endsWith('.json')).map((n) => `${DIR}/${n}`),
    ...(await readRegularText(join(cacheDir(root), LEGACY)).then(
      () => [LEGACY],
      (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : [LEGACY]),
    )),
  ];
  const plans: PendingPlan[] = [];
  const aside: SetAsidePlan[] = [];
  if (files.length === 0) return { plans, setAside: aside };
  const tracked = await trackedRecords(root, files);
  for (const file of files) {
    if (tracked.has(file)) {
      aside.push(
        await setAside(
          root,
          file,
          'tracked by git: it came from a remote, and mem takes nothing in .mem/ from one',
        ),
      );
      continue;
    }
    const id = file === LEGACY ? 'legacy' : file.slice(DIR.length + 1, -'.json'.length);
    const parsed = await readRegularText(join(cacheDir(root), file)).then(
      (text) => parseRecord(id, text),
      (error: Error) => ((error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : error.message),
    );
    if (parsed === undefined) continue;
    if (typeof parsed === 'string') aside.push(await setAside(root, file, parsed));
    else plans.push(parsed);
  }
  return { plans, setAside: aside };
}

/** The plan with `key` left by a run that is gone (or this process's own running one), or undefined. */
export async function readPendingPlan(root: string, key?: string): Promise<PendingPlan | undefined> {
  const { plans } = await readPlans(root);
  return plans.find(
    (p) => (key === undefined || p.key === key) && (!isOwnerAlive(p, root) || isMine(root, p)),
  );
}

/** Whether this process runs the plan. */
export function isMine(root: string, plan: PendingPlan): boolean {
  return plan.owner?.token === PROCESS_TOKEN && running.has(fileOf(root, plan.id));
}

/**
 * Writes this process's record of plan `key` with `paths` (atomically: a kill leaves the old record
 * or the new one), owned by this process until clearPlan or releasePlan.
 */
export async function writeOwnPlan(
  root: string,
  plan: { key: string; message: string; paths: string[] },
): Promise<PendingPlan> {
  await ensureCacheDir(root);
  await mkdir(plansDir(root), { recursive: true });
  const id = `${PROCESS_TOKEN}-${createHash('sha256').update(plan.key).digest('hex').slice(0, 16)}`;
  const record: PendingPlan = { id, ...plan, owner: ownerHere() };
  const file = fileOf(root, id);
  running.set(file, { ...record, root });
  await writeAtomic(file, serialize(record), { label: `.mem/${DIR}/${id}.json` });
  startHeartbeat();
  return record;
}

/** This process's running record of plan `key`, if any. */
export function ownPlan(root: string, key: string): PendingPlan | undefined {
  for (const [file, plan] of running)
    if (plan.root === root && plan.key === key && file === fileOf(root, plan.id)) return plan;
  return undefined;
}

/** Removes a plan's record: its commit is made (or will never be). */
export async function clearPlan(root: string, plan: PendingPlan): Promise<void> {
  running.delete(fileOf(root, plan.id));
  await unlink(plan.id === 'legacy' ? join(cacheDir(root), LEGACY) : fileOf(root, plan.id)).catch(
    () => undefined,
  );
}

/**
 * This process stops running plan `key` without its commit (a step failed): the record stays, with
 * no live owner, so the next write (this process's or another's) commits it.
 */
export function releasePlan(root: string, key: string): void {
  const plan = ownPlan(root, key);
  if (plan) running.delete(fileOf(root, plan.id));
}

/** The record's file: its id is the file's name. */
function serialize(plan: PendingPlan): string {
  const { key, message, paths, owner } = plan;
  return `${JSON.stringify({ key, message, paths, owner })}\n`;
}

function startHeartbeat(): void {
  if (heartbeat) return;
  heartbeat = setInterval(() => {
    if (running.size === 0) {
      clearInterval(heartbeat);
      heartbeat = undefined;
      return;
    }
    for (const [file, plan] of running) {
      plan.owner = ownerHere();
      void writeAtomic(file, serialize(plan), { label: file }).catch(() => undefined);
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
}

/** The records set aside so far (see setAside), oldest first, with their reasons. */
export async function listSetAside(root: string): Promise<SetAsidePlan[]> {
  const dir = join(cacheDir(root), ASIDE);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.why')).sort();
  const found: SetAsidePlan[] = [];
  for (const name of names) {
    const reason = (await readRegularText(join(dir, name)).catch(() => '')).trim();
    found.push({ file: `${CACHE_DIR}/${ASIDE}/${name.slice(0, -'.why'.length)}`, reason });
  }
  return found;
}

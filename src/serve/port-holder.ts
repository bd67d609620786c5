// Who listens on a TCP port, to say so when `mem serve` cannot take it. Linux only (read from
// /proc, without running lsof or ss); elsewhere, or for another user's process, it is unknown.
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface PortHolder {
  pid: number;
  /** The command line, arguments joined by spaces */
  command: string;
}

/** Socket inodes listening on `port` (any address), from /proc/net/tcp and tcp6. */
async function listeningInodes(port: number): Promise<Set<string>> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXADDR:HEXPORT; state 0A is LISTEN; the inode is the tenth field.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** The process listening on `port`, when this user may see it; undefined otherwise. */
export async function portHolder(port: number): Promise<PortHolder | undefined> {
  if (process.platform !== 'linux' || port === 0) return undefined;
  const inodes = await listeningInodes(port);
  if (inodes.size === 0) return undefined;
  const sockets = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  const pids = (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      if (!sockets.has(target)) continue;
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      return { pid: Number(pid), command: cmdline.split('\0').filter(Boolean).join(' ') };
    }
  }
  return undefined;
}

/** `by another mem serve, pid 1234`, `by pid 1234 (python3 -m http.server)`, or `by another program`. */
export function describeHolder(holder: PortHolder | undefined): string {
  if (!holder) return 'by another program, or another mem serve';
  const args = holder.command.split(' ');
  const isMemServe = args.includes('serve') && args.some((arg) => /(^|\/)(mem|main\.js)$/.test(arg));
  if (isMemServe) return `by another mem serve, pid ${holder.pid}`;
  const shown = holder.command.length > 80 ? `${holder.command.slice(0, 77)}...` : holder.command;
  return `by pid ${holder.pid}${shown ? ` (${shown})` : ''}`;
}

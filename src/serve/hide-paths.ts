// What a reply may say about where things are on the server: nothing absolute. An error from git
// or the file system names the vault's folder and the user's home (`/home/rain/notes/.mem/...`),
// which tells a client the account name and the layout of a disk it has no business seeing.
import { homedir } from 'node:os';

/**
 * `text` with every occurrence of `root` written `<vault>` and of the home folder `~`, longest
 * first (a vault under the home folder reads `<vault>/...`, not `~/notes/...`).
 */
export function hidePaths(text: string, root: string): string {
  const known = [
    [root, '<vault>'],
    [homedir(), '~'],
  ]
    .filter(([path]) => path !== undefined && path.length > 1)
    .sort((a, b) => (b[0] ?? '').length - (a[0] ?? '').length) as [string, string][];
  let out = text;
  for (const [path, name] of known) out = out.split(path).join(name);
  return out;
}

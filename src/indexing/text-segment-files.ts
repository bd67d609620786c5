// The text index's segment files of a cache generation, read as an open reads them: each checked
// against the size and CRC-32 its manifest gives, then kept open and read by offset.
import { closeSync, constants, openSync } from 'node:fs';
import { join } from 'node:path';
import { BLOCK, CheckedFile } from './segment-source.js';
import type { Segment } from './segment-writer.js';
import { ColdTextIndex } from './text/cold/cold-text-index.js';
import { TextIndex } from './text/text-index.js';

type TextLoader = ReturnType<typeof TextIndex.loader>;

/** Takes one docs or terms segment, open as `fd`, into `text`; its checked file joins `files` (closed on a throw). */
export function readTextSegment(
  fd: number,
  segment: Segment,
  text: TextLoader,
  scratch: { buffer: Buffer },
  files: CheckedFile[],
): void {
  let checked: { file: CheckedFile; bytes: Uint8Array };
  try {
    const { blocks } = segment;
    if (segment.part === 'docs' && blocks !== undefined) {
      // Only the tables are read now (at 100,000 notes 9 of 64 MiB); the strings when a query reads them.
      if (typeof blocks !== 'string')
        throw new Error(`the manifest's block CRC-32s of ${segment.file} are not text`);
      const file = CheckedFile.withBlocks(fd, segment.file, { ...segment, blocks });
      const head = file.readOnce(0, Math.min(file.size, BLOCK), scratch);
      const end = text.docsTablesEnd(head);
      checked = { file, bytes: end <= head.length ? head : file.readOnce(0, end, scratch) };
    } else checked = CheckedFile.check(fd, segment.file, segment, scratch);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  files.push(checked.file);
  if (segment.part === 'docs') text.docs(checked.bytes, checked.file);
  else text.terms(checked.bytes, checked.file);
}

/** A segment file opened to be read, as a generation's manifest lists it. */
export function openSegment(dir: string, segment: Segment): number {
  return openSync(join(dir, segment.file), constants.O_RDONLY | constants.O_NONBLOCK);
}

/**
 * The text index a save just wrote in `dir`, its files opened now (a later save may remove the
 * folder) and read when first asked for: a cold build's process often only saves and exits.
 * Undefined when a file cannot be opened.
 */
export function savedText(
  dir: string,
  segments: readonly Segment[],
  header: ReturnType<TextIndex['storeHeader']>,
): { load(): TextIndex; close(): void } | undefined {
  const parts = segments.filter((segment) => segment.part === 'docs' || segment.part === 'terms');
  const fds: number[] = [];
  try {
    for (const segment of parts) fds.push(openSegment(dir, segment));
  } catch {
    // Undefined: the caller keeps what it holds.
    for (const fd of fds) closeSync(fd);
    return undefined;
  }
  const close = () => {
    for (const fd of fds.splice(0)) closeSync(fd);
  };
  const load = (): TextIndex => {
    const files: CheckedFile[] = [];
    const scratch = { buffer: Buffer.alloc(0) };
    const open = fds.splice(0);
    try {
      const text = TextIndex.loader(header);
      open.forEach((fd, k) => {
        open[k] = -1;
        readTextSegment(fd, parts[k] as Segment, text, scratch, files);
      });
      const index = text.finish();
      index.holdFiles(files.splice(0));
      return index;
    } catch (error) {
      for (const fd of open) if (fd !== -1) closeSync(fd);
      for (const file of files) file.close();
      throw error;
    }
  };
  return { load, close };
}

/** A cold build's text index (one still holding its segments) reads them from what its save wrote in `dir`. */
export function readSavedText(
  text: TextIndex,
  dir: string,
  segments: readonly Segment[],
  header: ReturnType<TextIndex['storeHeader']>,
): void {
  if (!(text instanceof ColdTextIndex) || !text.holdsSegments) return;
  const saved = savedText(dir, segments, header);
  if (saved) text.savedIn(saved);
}

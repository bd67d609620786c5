import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { cp, mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { BLOCK, CheckedFile, crc32Combine } from '../../src/indexing/segment-source.js';
import { SegmentFile } from '../../src/indexing/segment-writer.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { seeded } from '../helpers/seeded.js';

afterEach(cleanupVaults);

const random = seeded;

function bytesOf(next: () => number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
  return out;
}

describe('crc32Combine', () => {
  it('gives the CRC-32 of two pieces joined, for pieces of every kind of length', () => {
    const next = random(20261205);
    const lengths = [0, 1, 2, 3, 7, 255, 4095, BLOCK, BLOCK + 1, 2 * BLOCK, 10_000];
    for (let round = 0; round < 200; round++) {
      const a = bytesOf(next, round < lengths.length ? 17 : Math.floor(next() * 9000));
      const b = bytesOf(
        next,
        round < lengths.length ? (lengths[round] as number) : Math.floor(next() * 9000),
      );
      const joined = crc32(Buffer.concat([a, b]));
      expect(crc32Combine(crc32(a), crc32(b), b.length), `a: ${a.length} bytes, b: ${b.length}`).toBe(joined);
    }
  });
});

describe('CheckedFile', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = '';
  });

  async function fileOf(bytes: Buffer): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), 'mem-segment-'));
    const path = join(dir, 'terms-0000.bin');
    writeFileSync(path, bytes);
    return path;
  }

  it('reads any range as the file holds it, and refuses a file that is not the one saved', async () => {
    const next = random(7);
    const bytes = bytesOf(next, 3 * BLOCK + 1234);
    const path = await fileOf(bytes);
    const scratch = { buffer: Buffer.alloc(0) };
    const fd = openSync(path, 'r');
    const { file, bytes: read } = CheckedFile.check(
      fd,
      'terms-0000.bin',
      { bytes: bytes.length, crc: crc32(bytes) },
      scratch,
    );
    expect(Buffer.compare(read, bytes)).toBe(0);
    for (let i = 0; i < 300; i++) {
      const from = Math.floor(next() * bytes.length);
      const to = Math.min(bytes.length, from + Math.floor(next() * 3 * BLOCK));
      expect(
        Buffer.compare(Buffer.from(file.read(from, to)), bytes.subarray(from, to)),
        `${from}..${to}`,
      ).toBe(0);
    }
    expect(() => file.read(0, bytes.length + 1)).toThrow('a read past the end of terms-0000.bin');
    file.close();
    expect(() => file.read(0, 10)).toThrow('read after its index was closed');

    for (const expected of [
      { bytes: bytes.length, crc: (crc32(bytes) + 1) >>> 0 },
      { bytes: bytes.length + 1, crc: crc32(bytes) },
    ]) {
      const again = openSync(path, 'r');
      expect(() => CheckedFile.check(again, 'terms-0000.bin', expected, scratch)).toThrow(
        'terms-0000.bin is not the file that was saved',
      );
      closeSync(again);
    }
  });

  it("a docs segment's saved block CRC-32s: written in pieces of any size, they check every block read, and a file or list that differs is refused", async () => {
    const next = random(20261207);
    dir = await mkdtemp(join(tmpdir(), 'mem-segment-'));
    const scratch = { buffer: Buffer.alloc(0) };
    for (const length of [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK, 5 * BLOCK + 777]) {
      const bytes = bytesOf(next, length);
      const path = join(dir, `docs-${length}.bin`);
      // Written as a save writes: pieces of random sizes, strings and bytes.
      const writer = new SegmentFile(await open(path, 'wx'), 'docs', `docs-${length}.bin`);
      for (let at = 0; at < length; ) {
        const take = Math.min(length - at, 1 + Math.floor(next() * 2 * BLOCK));
        if (next() < 0.5) await writer.write(bytes.subarray(at, at + take));
        else {
          // A string piece (as a save writes JSON): ASCII, so its UTF-8 bytes are these.
          for (let i = at; i < at + take; i++) bytes[i] = 0x30 + ((bytes[i] as number) & 0x3f);
          await writer.write(bytes.toString('latin1', at, at + take));
        }
        at += take;
      }
      const segment = await writer.close();
      expect(segment).toMatchObject({ part: 'docs', bytes: length, crc: crc32(bytes) });
      const words = Buffer.from(segment.blocks as string, 'base64');
      expect(words.length).toBe(4 * Math.ceil(length / BLOCK));
      for (let b = 0; b * BLOCK < length; b++)
        expect(words.readUInt32LE(4 * b)).toBe(crc32(bytes.subarray(b * BLOCK, (b + 1) * BLOCK)));

      const fd = openSync(path, 'r');
      const file = CheckedFile.withBlocks(fd, segment.file, { ...segment, blocks: segment.blocks as string });
      for (let i = 0; i < 50; i++) {
        const from = Math.floor(next() * (length + 1));
        const to = Math.min(length, from + Math.floor(next() * 3 * BLOCK));
        const what = `${length} bytes, ${from}..${to}`;
        expect(
          Buffer.compare(Buffer.from(file.readOnce(from, to, scratch)), bytes.subarray(from, to)),
          what,
        ).toBe(0);
        expect(Buffer.compare(Buffer.from(file.read(from, to)), bytes.subarray(from, to)), what).toBe(0);
      }
      file.close();
      if (length === 0) continue;

      // A list that is not the file's: another size, one CRC-32 changed, one block short.
      const wrong = Buffer.from(words);
      wrong.writeUInt32LE((wrong.readUInt32LE(0) ^ 1) >>> 0, 0);
      for (const [expected, message] of [
        [
          { ...segment, bytes: length + 1, blocks: segment.blocks as string },
          'is not the file that was saved',
        ],
        [{ ...segment, blocks: wrong.toString('base64') }, 'are not the file'],
        [{ ...segment, blocks: words.subarray(4).toString('base64') }, 'do not fit its size'],
      ] as const) {
        const again = openSync(path, 'r');
        expect(() => CheckedFile.withBlocks(again, segment.file, expected), message).toThrow(message);
        closeSync(again);
      }
      // A byte of the last block changed: the list still fits, the block's read is refused.
      const at = length - 1;
      const changer = openSync(path, 'r+');
      writeSync(changer, Buffer.from([(bytes[at] as number) ^ 0xff]), 0, 1, at);
      closeSync(changer);
      const damaged = CheckedFile.withBlocks(openSync(path, 'r'), segment.file, {
        ...segment,
        blocks: segment.blocks as string,
      });
      expect(() => damaged.readOnce(at, at + 1, scratch)).toThrow('is not the file that was saved');
      expect(() => damaged.read(at, at + 1)).toThrow('changed on disk since it was saved');
      // A read of every block is refused for its last one.
      expect(() => damaged.readOnce(0, length, scratch)).toThrow('is not the file that was saved');
      if (at >= BLOCK)
        expect(
          Buffer.compare(Buffer.from(damaged.readOnce(0, BLOCK, scratch)), bytes.subarray(0, BLOCK)),
        ).toBe(0);
      damaged.close();
    }
  });

  it('refuses the bytes of a block changed on disk after the open, and reads the others', async () => {
    const bytes = bytesOf(random(11), 4 * BLOCK);
    const path = await fileOf(bytes);
    const fd = openSync(path, 'r');
    const { file } = CheckedFile.check(
      fd,
      'docs-0000.bin',
      { bytes: bytes.length, crc: crc32(bytes) },
      {
        buffer: Buffer.alloc(0),
      },
    );
    // One byte of block 2 changes, in place: the size stays.
    const writer = openSync(path, 'r+');
    writeSync(writer, Buffer.from([(bytes[2 * BLOCK + 5] as number) ^ 0xff]), 0, 1, 2 * BLOCK + 5);
    closeSync(writer);
    expect(() => file.read(2 * BLOCK, 2 * BLOCK + 10)).toThrow(
      'docs-0000.bin changed on disk since it was saved (block 2)',
    );
    // A read that covers the block fails too; one beside it reads as saved.
    expect(() => file.read(BLOCK + 4000, 2 * BLOCK + 1)).toThrow('changed on disk');
    expect(
      Buffer.compare(
        Buffer.from(file.read(3 * BLOCK, 3 * BLOCK + 99)),
        bytes.subarray(3 * BLOCK, 3 * BLOCK + 99),
      ),
    ).toBe(0);
    expect(Buffer.compare(Buffer.from(file.read(10, BLOCK)), bytes.subarray(10, BLOCK))).toBe(0);
    file.close();
  });
});

describe('the block cache shared by every segment file', () => {
  it('gives each file its own bytes, through evictions and files closed and opened again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-blocks-'));
    try {
      const next = random(99);
      const scratch = { buffer: Buffer.alloc(0) };
      // Three files of 3 MiB: more blocks than the cache holds (8 MiB), so reads evict.
      const open = (k: number) => {
        const bytes = bytesOf(next, 3 * 1024 * 1024 + k * 777);
        const path = join(dir, `terms-${k}.bin`);
        writeFileSync(path, bytes);
        const { file } = CheckedFile.check(
          openSync(path, 'r'),
          `terms-${k}.bin`,
          { bytes: bytes.length, crc: crc32(bytes) },
          scratch,
        );
        return { file, bytes };
      };
      let files = [open(0), open(1), open(2)];
      for (let round = 0; round < 4; round++) {
        for (let i = 0; i < 3000; i++) {
          const { file, bytes } = files[Math.floor(next() * files.length)] as {
            file: CheckedFile;
            bytes: Buffer;
          };
          const from = Math.floor(next() * bytes.length);
          const to = Math.min(bytes.length, from + 1 + Math.floor(next() * (next() < 0.9 ? 300 : 3 * BLOCK)));
          expect(
            Buffer.compare(Buffer.from(file.read(from, to)), bytes.subarray(from, to)),
            `round ${round}, ${from}..${to}`,
          ).toBe(0);
        }
        // A file closed and a new one opened in its place: never given the old one's blocks.
        const gone = files.shift() as { file: CheckedFile };
        gone.file.close();
        files = [...files, open(3 + round)];
      }
      for (const { file } of files) file.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('an index opened from its cache', () => {
  /** A vault whose terms and docs segments are several blocks each. */
  function files(count = 60): Record<string, string> {
    const out: Record<string, string> = {};
    for (let i = 0; i < count; i++) {
      out[`insights/facts/fact-${i}.md`] =
        `# Fact ${i}\n\nWord${i}alpha and word${i}beta met at harbor ${i}; 第${i}个灯塔 stands by quay${i}.\n`;
    }
    return out;
  }

  /** The docs and terms segment files of the vault's current cache generation (the manifest's). */
  async function segmentFiles(root: string): Promise<string[]> {
    const index = join(root, '.mem', 'index');
    const { generation } = JSON.parse(readFileSync(join(index, 'manifest.json'), 'utf8')) as {
      generation: string;
    };
    return (await readdir(join(index, generation)))
      .filter((name) => /^(docs|terms)-\d+\.bin$/.test(name))
      .map((name) => join(index, generation, name))
      .sort();
  }

  /** Flips one byte at `at` of the file, in place (the size stays). */
  function damage(path: string, at: number): void {
    const bytes = readFileSync(path);
    const writer = openSync(path, 'r+');
    writeSync(writer, Buffer.from([(bytes[at] as number) ^ 0xff]), 0, 1, at);
    closeSync(writer);
  }

  const QUERIES = [
    'word7alpha harbor',
    'quay31',
    'word52beta',
    '灯塔',
    'harbor stands',
    'word0alpha word59beta',
  ];
  const answers = (vault: {
    recall(q: string, o: { k: number }): { hits: Array<{ id: string; score: number }> };
  }) => QUERIES.map((q) => vault.recall(q, { k: 8 }).hits.map((hit) => [hit.id, hit.score]));

  it('reads its postings and documents from the segment files: bytes changed after the open are refused, and the index recovers from the notes', async () => {
    const root = await makeVault(files());
    const first = await openVault({ path: root });
    const clean = answers(first);
    await first.close();
    expect(clean[0]?.length).toBeGreaterThan(0);

    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    // Opened from the cache: now every block of every docs and terms segment changes on disk.
    const segments = await segmentFiles(root);
    expect(segments.length).toBeGreaterThanOrEqual(2);
    let blocks = 0;
    for (const path of segments) {
      for (let at = 100; at < readFileSync(path).length; at += BLOCK) {
        damage(path, at);
        blocks++;
      }
    }
    expect(blocks).toBeGreaterThan(2);
    // The first read meets the damage, the text index is rebuilt from the notes, and it answers.
    expect(answers(vault)).toEqual(clean);
    expect(notices.join('\n')).toMatch(/changed on disk since it was saved.*rebuilt from the notes/);
    await vault.save();
    await vault.close();

    // The save wrote a clean generation: the next open loads it, with nothing to rebuild.
    const later: string[] = [];
    const again = await openVault({ path: root, onNotice: (m) => later.push(m) });
    expect(answers(again)).toEqual(clean);
    await again.close();
    expect(later).toEqual([]);
  });

  it('recovers from one damaged block anywhere in the docs and terms segments: same answers, and the next save is clean', async () => {
    const root = await makeVault(files());
    const first = await openVault({ path: root });
    const clean = answers(first);
    await first.close();
    const next = random(20261206);
    let recovered = 0;
    for (let round = 0; round < 50; round++) {
      // Each round opens the generation the last round's save wrote, clean.
      const notices: string[] = [];
      const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
      expect(notices, `round ${round}: the last save was clean`).toEqual([]);
      const segments = await segmentFiles(root);
      const path = segments[Math.floor(next() * segments.length)] as string;
      const size = readFileSync(path).length;
      const block = Math.floor(next() * Math.ceil(size / BLOCK));
      const at = Math.min(size - 1, block * BLOCK + Math.floor(next() * BLOCK));
      const bytes = readFileSync(path);
      // A terms segment starts with its term dictionary, which the open copied and never reads
      // again: a block wholly inside it is never checked again either.
      const inDictionary = path.includes('terms-') && (block + 1) * BLOCK <= 4 + bytes.readUInt32LE(0);
      damage(path, at);
      const what = `round ${round}: ${path.slice(path.lastIndexOf('/') + 1)} byte ${at}`;
      expect(answers(vault), what).toEqual(clean);
      if (inDictionary) {
        // The process answers from its checked copy, and its save writes the dictionary from it:
        // the next round's open finds a clean generation.
        await vault.save();
        expect(notices, what).toEqual([]);
        await vault.close();
        continue;
      }
      if (notices.length > 0) recovered++;
      // A save copies the saved postings and documents: it meets the damage if the reads did not.
      await vault.save();
      expect(notices.join('\n'), what).toMatch(/rebuilt from the notes/);
      expect(answers(vault), what).toEqual(clean);
      await vault.close();
    }
    // Most damage is met by a query before any save.
    expect(recovered).toBeGreaterThan(0);
    const last = await openVault({ path: root });
    expect(answers(last)).toEqual(clean);
    await last.close();
  });
  it('a docs segment damaged before the open, at each of its blocks: the tables at the open, the strings when read; same answers, and the cache is whole again after the close', async () => {
    // Enough notes that the tables of the docs segment take several blocks.
    const root = await makeVault(files(240));
    const first = await openVault({ path: root });
    const clean = answers(first);
    await first.close();
    const saved = await mkdtemp(join(tmpdir(), 'mem-saved-cache-'));
    try {
      await cp(join(root, '.mem'), saved, { recursive: true });
      const docs = (await segmentFiles(root)).filter((path) => path.includes('/docs-'));
      expect(docs.length).toBeGreaterThan(0);
      const met = { tables: 0, strings: 0, unread: 0 };
      for (const [k, original] of docs.entries()) {
        const bytes = readFileSync(original);
        // Where the strings start (saved-docs.ts): a header, a row per note, a row per document.
        const tablesEnd =
          16 + bytes.readUInt32LE(4) * 8 + bytes.readUInt32LE(0) * (12 + 4 * bytes.readUInt32LE(8));
        expect(tablesEnd).toBeGreaterThan(2 * BLOCK);
        for (let block = 0; block * BLOCK < bytes.length; block++) {
          await rm(join(root, '.mem'), { recursive: true });
          await cp(saved, join(root, '.mem'), { recursive: true });
          const path = (await segmentFiles(root)).filter((p) => p.includes('/docs-'))[k] as string;
          const at = Math.min(bytes.length - 1, block * BLOCK + 7);
          damage(path, at);
          const what = `${path.slice(path.lastIndexOf('/') + 1)} block ${block}`;
          const notices: string[] = [];
          const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
          expect(answers(vault), what).toEqual(clean);
          // No save asked for: the close saves what the damage made the process rebuild.
          await vault.close();
          const said = notices.join('\n');
          if (at < tablesEnd) {
            expect(said, what).toMatch(
              /^mem: the index cache is damaged \(docs-\d+\.bin is not the file that was saved/,
            );
            met.tables++;
          } else if (said === '') met.unread++;
          else {
            expect(said, what).toMatch(
              /changed on disk since it was saved \(block \d+\).*rebuilt from the notes/,
            );
            met.strings++;
          }
          // The next process opens a whole cache (or one whose damage no query reads) and answers alike.
          const later: string[] = [];
          const again = await openVault({ path: root, onNotice: (m) => later.push(m) });
          expect(answers(again), what).toEqual(clean);
          await again.close();
          expect(later, what).toEqual([]);
        }
      }
      // Each kind was met: damage in the tables (found at the open) and in the strings (when read).
      expect(met.tables).toBeGreaterThan(2);
      expect(met.strings).toBeGreaterThan(0);
    } finally {
      await rm(saved, { recursive: true, force: true });
    }
  });
});

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** `"1:56 pm on 8 May, 2023"` → that moment, read as UTC (the vault's time zone). */
export function parseSessionDate(text) {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(text);
  const month = m ? MONTHS.indexOf(String(m[5]).toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unreadable session date: ${JSON.stringify(text)}`);
  const hour = (Number(m[1]) % 12) + (String(m[3]).toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
}

/** `D3:7` → `d3-7`, a valid Obsidian block id that maps back to the turn. */
export const blockIdOf = (diaId) => diaId.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** A turn as one line of text: what was said, and the caption of a shared photo. */
export function turnText(turn) {
  const caption = turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : '';
  return `${turn.text}${caption}`.replace(/\s+/g, ' ').trim();
}

/** The sessions of a conversation in order, each with its start time and turns. */
export function sessionsOf(conversation) {
  return Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m) => m !== null && Array.isArray(conversation[m[0]]))
    .map((m) => /** @type {RegExpExecArray} */ (m))
    .map((m) => ({
      n: Number(m[1]),
      at: parseSessionDate(conversation[`${m[0]}_date_time`]),
      turns: conversation[m[0]],
    }))
    .sort((a, b) => a.n - b.n);
}

const pad = (n) => String(n).padStart(2, '0');

/**
 * Writes one conversation as a vault of daily episode notes: every turn an entry
 * `- HH:MM **Speaker:** text ^d3-7`, one minute after the one before. No persona or profile, so
 * what compile returns is what retrieval found. Returns the turns by dia_id and the last day.
 */
/** `embeddings`: the config's `embeddings` settings (MEM_BENCH_EMBEDDINGS), else none */
export async function writeLocomoVault(root, sample, embeddings) {
  const days = new Map();
  const turns = new Map();
  let last = 0;
  for (const session of sessionsOf(sample.conversation)) {
    const date = session.at.toISOString().slice(0, 10);
    const lines = days.get(date) ?? [];
    session.turns.forEach((turn, i) => {
      // Past midnight the entry stays on the session's day, at 23:59.
      const minutes = Math.min(23 * 60 + 59, session.at.getUTCHours() * 60 + session.at.getUTCMinutes() + i);
      const text = turnText(turn);
      turns.set(turn.dia_id, { ...turn, date, text, session: session.n });
      lines.push(
        `- ${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)} **${turn.speaker}:** ${text} ^${blockIdOf(turn.dia_id)}`,
      );
    });
    days.set(date, lines);
    last = Math.max(last, session.at.getTime());
  }
  await mkdir(join(root, 'episodes', 'daily'), { recursive: true });
  await writeFile(
    join(root, 'mem.config.json'),
    `${JSON.stringify({ timezone: 'UTC', git: { autoCommit: false }, ...(embeddings ? { embeddings } : {}) })}\n`,
  );
  for (const [date, lines] of days) {
    const note = `---\ndate: ${date}\ntype: episode\n---\n# ${date}\n\n${lines.join('\n')}\n`;
    await writeFile(join(root, 'episodes', 'daily', `${date}.md`), note);
  }
  const lastDay = new Date(last);
  // The day after the last session, at noon: "yesterday" is the last session's day.
  const now = new Date(
    Date.UTC(lastDay.getUTCFullYear(), lastDay.getUTCMonth(), lastDay.getUTCDate() + 1, 12),
  );
  return { turns, now, days: days.size };
}

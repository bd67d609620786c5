import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeRandom } from './prng.mjs';
import {
  EN_ADJECTIVES,
  EN_FILLERS,
  EN_NOUNS,
  EN_VERBS,
  PEOPLE,
  PLACES,
  TOPICS_EN,
  ZH_WORDS,
} from './word-lists.mjs';

/** The newest daily note of every synthetic vault; queries are asked the day after. */
export const LAST_DAY = '2026-11-29';
export const SYNTH_NOW = new Date('2026-11-30T10:00:00Z');

const USER = 'Rain';
const AGENT = '小满';
const INSIGHT_KINDS = ['facts', 'patterns', 'lessons', 'skills'];
const DAY_MS = 86_400_000;

/**
 * How a vault of `total` notes is made up. The 10k vault holds three years of dailies and ~8,700
 * insights; the 1k vault one year of dailies, so both have a realistic mix of layers.
 */
export function vaultPlan(total) {
  const dailies = total >= 5000 ? 1096 : 365;
  const profile = total >= 5000 ? 200 : 60;
  const persona = 4;
  const insights = total - dailies - profile - persona;
  if (insights < 1) throw new Error(`a vault of ${total} notes is too small for the plan`);
  const people = Math.round((profile - 1) * 0.75);
  return { total, persona, profile, people, places: profile - 1 - people, dailies, insights };
}

function dayString(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

function sentenceEn(r, min, max) {
  const pools = [EN_NOUNS, EN_NOUNS, EN_VERBS, EN_ADJECTIVES, EN_FILLERS, EN_FILLERS];
  const out = [];
  const n = r.int(min, max);
  for (let i = 0; i < n; i++) out.push(r.pick(r.pick(pools)));
  const text = out.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${r.pick(['.', '.', '!', '?'])}`;
}

function sentenceZh(r, min, max) {
  const n = r.int(min, max);
  let text = '';
  for (let i = 0; i < n; i++) text += r.pick(ZH_WORDS) + (i > 0 && i < n - 1 && r.chance(0.25) ? '，' : '');
  return text + r.pick(['。', '。', '！', '？', '～']);
}

/** One entry's text: Chinese, English or both in one line, sometimes naming a person or place. */
function entryText(r, people, places) {
  const mode = r.next();
  let text =
    mode < 0.4
      ? sentenceZh(r, 3, 12)
      : mode < 0.75
        ? sentenceEn(r, 6, 22)
        : `${sentenceZh(r, 2, 6)} ${sentenceEn(r, 3, 10)}`;
  if (r.chance(0.25)) {
    const who = r.pick(people);
    text = r.chance(0.5) ? `[[${who}]] ${text}` : `${text} 和 [[${who}]] 说好了`;
  }
  if (r.chance(0.08)) text += ` @ [[${r.pick(places)}]]`;
  return text;
}

function dailyNote(r, date, people, places) {
  const count = r.int(5, 15);
  let minutes = r.int(7 * 60, 10 * 60);
  const lines = [`---\ndate: ${date}\ntype: episode\n---\n# ${date}\n`];
  for (let i = 1; i <= count; i++) {
    const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
    const mm = String(minutes % 60).padStart(2, '0');
    const speaker = r.chance(0.55) ? USER : AGENT;
    lines.push(`- ${hh}:${mm} **${speaker}:** ${entryText(r, people, places)} ^e${i}`);
    minutes = Math.min(23 * 60 + 59, minutes + r.int(2, 80));
  }
  return { text: `${lines.join('\n')}\n`, count };
}

function cite(r, days) {
  const day = r.pick(days);
  return `[[${day.date}#^e${r.int(1, day.count)}]]`;
}

function iso(r, days) {
  return `${r.pick(days).date}T${String(r.int(8, 22)).padStart(2, '0')}:00:00+08:00`;
}

function insightNote(r, n, days, people) {
  const kind = INSIGHT_KINDS[n % INSIGHT_KINDS.length] ?? 'facts';
  const zh = r.chance(0.4);
  const title = zh ? sentenceZh(r, 2, 4).slice(0, -1) : sentenceEn(r, 3, 7).slice(0, -1);
  const slug = `${kind.slice(0, -1)}-${String(n).padStart(5, '0')}-${r.pick(EN_NOUNS)}`;
  const sources = Array.from({ length: r.int(1, 3) }, () => cite(r, days));
  const topic = r.pick(TOPICS_EN);
  const body = [];
  for (let p = 0; p < r.int(1, 3); p++) {
    const sentence = zh ? sentenceZh(r, 6, 16) : sentenceEn(r, 12, 30);
    body.push(`${sentence} (${r.pick(sources)})${r.chance(0.4) ? ` — see [[${r.pick(people)}]].` : ''}`);
  }
  const bullets = Array.from(
    { length: r.int(1, 4) },
    () => `- ${zh ? sentenceZh(r, 3, 8) : sentenceEn(r, 5, 12)} ${cite(r, days)}`,
  );
  const text = [
    '---',
    `title: "${title}"`,
    `tags: [${kind.slice(0, -1)}, ${topic}]`,
    `importance: ${(0.3 + r.next() * 0.6).toFixed(2)}`,
    ...(kind === 'facts' ? [`confidence: ${(0.5 + r.next() * 0.5).toFixed(2)}`] : []),
    `sources: [${sources.map((s) => `"${s}"`).join(', ')}]`,
    `created: ${iso(r, days)}`,
    `updated: ${iso(r, days)}`,
    '---',
    `# ${title}`,
    '',
    body.join('\n\n'),
    '',
    r.chance(0.5) ? '## Evidence' : '## 依据',
    ...bullets,
    '',
  ].join('\n');
  return { path: `insights/${kind}/${slug}.md`, text };
}

function profileNote(r, name, folder, days, people) {
  const facts = Array.from(
    { length: r.int(2, 8) },
    () => `- ${r.chance(0.5) ? sentenceZh(r, 3, 9) : sentenceEn(r, 5, 14)} (${cite(r, days)})`,
  );
  const tag = folder === 'people' ? 'person' : 'place';
  const alias = r.chance(0.5) ? `, ${name.toLowerCase()}-${r.pick(EN_NOUNS)}` : '';
  return [
    '---',
    `title: ${name}`,
    `aliases: [${name}${alias}]`,
    `tags: [${tag}, ${r.pick(TOPICS_EN)}]`,
    `importance: ${(0.3 + r.next() * 0.5).toFixed(2)}`,
    `created: ${iso(r, days)}`,
    `updated: ${iso(r, days)}`,
    '---',
    `# ${name}`,
    '',
    `${sentenceEn(r, 6, 14)} Knows [[${r.pick(people)}]].`,
    '',
    '## Facts',
    ...facts,
    '',
  ].join('\n');
}

const PERSONA = {
  identity: `I am ${AGENT}, ${USER}'s companion. I remember what she tells me and bring it up when it helps.`,
  voice: 'Short messages, like texting a friend. Mirror her language: Chinese, English or both.',
  values: 'Honesty over comfort; specific beats generic; her decisions are hers.',
  boundaries: 'No medical or legal advice beyond pointing to a professional. Never share her notes.',
};

function personaNote(name, order) {
  return `---\ntitle: ${AGENT} — ${name}\ntags: [persona]\npinned: true\nimportance: 1\norder: ${order}\n---\n# ${name}\n\n${PERSONA[name]}\n`;
}

function userNote(r, days, people, places) {
  const lines = Array.from(
    { length: 24 },
    (_, i) =>
      `- ${i % 2 ? sentenceZh(r, 3, 8) : sentenceEn(r, 5, 12)} ([[${r.pick(people)}]], ${cite(r, days)})`,
  );
  return [
    '---',
    `title: ${USER} (林雨)`,
    `aliases: [${USER}, 林雨]`,
    'tags: [profile, user]',
    'pinned: true',
    'importance: 1',
    '---',
    `# ${USER} (林雨)`,
    '',
    `## About\n${lines.slice(0, 8).join('\n')}`,
    `## Work\n${lines.slice(8, 16).join('\n')}`,
    `## Home\nLives in [[${places[0]}]].\n${lines.slice(16).join('\n')}`,
    '',
  ].join('\n');
}

async function writeAll(root, files) {
  const dirs = new Set(files.map(([path]) => dirname(join(root, path))));
  for (const dir of dirs) await mkdir(dir, { recursive: true });
  // Batches keep the number of open files bounded.
  for (let i = 0; i < files.length; i += 256) {
    await Promise.all(files.slice(i, i + 256).map(([path, text]) => writeFile(join(root, path), text)));
  }
}

/**
 * Writes a deterministic synthetic vault of exactly `total` notes into `root` and describes it:
 * the days it covers, the people and places that have notes, and how many notes of each layer.
 */
export async function writeSynthVault(root, total, seed = 42) {
  const r = makeRandom(seed);
  const plan = vaultPlan(total);
  const people = PEOPLE.slice(0, plan.people);
  const places = PLACES.slice(0, plan.places);
  /** @type {[string, string][]} */
  const files = [['mem.config.json', `${JSON.stringify({ timezone: 'UTC', git: { autoCommit: false } })}\n`]];

  const lastMs = Date.parse(`${LAST_DAY}T00:00:00Z`);
  const days = [];
  let entries = 0;
  for (let i = plan.dailies - 1; i >= 0; i--) {
    const date = dayString(lastMs - i * DAY_MS);
    const { text, count } = dailyNote(r, date, people, places);
    days.push({ date, count });
    entries += count;
    files.push([`episodes/daily/${date}.md`, text]);
  }
  Object.keys(PERSONA).forEach((name, i) => {
    files.push([`persona/${name}.md`, personaNote(name, i + 1)]);
  });
  files.push(['profile/user.md', userNote(r, days, people, places)]);
  for (const name of people)
    files.push([`profile/people/${name}.md`, profileNote(r, name, 'people', days, people)]);
  for (const name of places)
    files.push([`profile/places/${name}.md`, profileNote(r, name, 'places', days, people)]);
  const insightPaths = [];
  for (let n = 1; n <= plan.insights; n++) {
    const { path, text } = insightNote(r, n, days, people);
    insightPaths.push(path);
    files.push([path, text]);
  }
  const notes = files.length - 1;
  if (notes !== total) throw new Error(`generated ${notes} notes, expected ${total}`);
  await writeAll(root, files);
  const bytes = files.reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0);
  return { root, plan, notes, entries, bytes, days, people, places, insightPaths };
}

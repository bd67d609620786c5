// Templates are not memories (issue 32, item 3): the template folders of Obsidian's core Templates
// plugin and of Templater, and the daily template, are not indexed; a section still only its
// template's text (variables filled in) is no hit and no compile item; template frontmatter never
// makes the yaml package print a warning on stderr.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { lines, TemplateSections } from '../../src/vault/template-notes.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem, memProcess } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const DAILY_TEMPLATE = [
  '---',
  'date: {{date:YYYY-MM-DD}}',
  'created: {{date}} {{time}}',
  'tags: [daily]',
  '---',
  '# {{title}}',
  '',
  '## Plan',
  '- [ ] ',
  '- [ ] ',
  '- [ ] ',
  '',
  '## Gratitude',
  '1. ',
  '',
  '## Notes',
  '',
].join('\n');

const MEETING_TEMPLATE = [
  '---',
  'created: <% tp.date.now("YYYY-MM-DD") %>',
  '---',
  '# <% tp.file.title %>',
  '',
  '## Agenda',
  '- item one',
  '- item two',
  '',
  '## Attendees',
  '<% tp.system.prompt("who") %>',
  '',
].join('\n');

/** A day made from the daily template, as Obsidian fills it, with what the person added. */
function day(date: string, added: { plan?: string; notes?: string } = {}): string {
  return DAILY_TEMPLATE.replaceAll('{{date:YYYY-MM-DD}}', date)
    .replace('{{date}} {{time}}', `${date} 08:1${date.slice(-1)}`)
    .replace('{{title}}', date)
    .replace('## Plan\n- [ ] \n', added.plan ? `## Plan\n- [ ] ${added.plan}\n` : '## Plan\n- [ ] \n')
    .replace('## Notes\n', added.notes ? `## Notes\n${added.notes}\n` : '## Notes\n');
}

function vaultFiles(): Record<string, string> {
  const files: Record<string, string> = {
    '.obsidian/daily-notes.json': JSON.stringify({
      folder: 'Journal',
      format: 'YYYY-MM-DD',
      template: 'Templates/Daily',
    }),
    '.obsidian/core-plugins.json': JSON.stringify(['daily-notes', 'templates']),
    '.obsidian/community-plugins.json': JSON.stringify(['templater-obsidian']),
    '.obsidian/templates.json': JSON.stringify({ folder: 'Templates' }),
    '.obsidian/plugins/templater-obsidian/data.json': JSON.stringify({
      templates_folder: 'Extras/Templater',
      trigger_on_file_creation: true,
    }),
    'Templates/Daily.md': DAILY_TEMPLATE,
    'Templates/Book.md': '# {{title}}\n\n## Quotes\n- \n\n## Rating\n⭐️\n',
    'Extras/Templater/Meeting.md': MEETING_TEMPLATE,
    // A meeting note made from the Templater template, agenda unchanged, attendees the person's.
    'Meetings/Kickoff.md': MEETING_TEMPLATE.replace('<% tp.date.now("YYYY-MM-DD") %>', '2026-11-30')
      .replace('<% tp.file.title %>', 'Kickoff')
      .replace('<% tp.system.prompt("who") %>', 'Mei and Jun'),
    'People/Mei.md': '# Mei\nMy sister. Her plan is to move to Hangzhou next spring.\n',
  };
  for (let n = 1; n <= 7; n++) files[`Journal/2026-11-0${n}.md`] = day(`2026-11-0${n}`);
  files['Journal/2026-11-08.md'] = day('2026-11-08', { plan: 'buy trail shoes', notes: 'Dentist at 3.' });
  files['Journal/2026-11-09.md'] = day('2026-11-09', { notes: 'Long run by the river, knee held up.' });
  return files;
}

async function put(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

const NOW = '2026-11-10T09:00:00+08:00';

describe('templates are not memories', () => {
  let root: string;
  beforeAll(async () => {
    root = await makeVault(vaultFiles());
    await rm(join(root, 'mem.config.json'));
    const init = await mem(['init', '--no-git'], { cwd: root });
    expect(init.code, init.stderr).toBe(0);
  });

  it('recall finds neither template notes nor the days’ unchanged template sections, and finds what the person wrote', async () => {
    const plan = await memProcess(['recall', 'plan', '--json', '-k', '20', '--now', NOW], { cwd: root });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    const hits = JSON.parse(plan.stdout).hits as Array<{ path: string; anchor: string; text: string }>;
    expect(hits.filter((h) => h.path.startsWith('Templates/') || h.path.startsWith('Extras/'))).toEqual([]);
    const plans = hits.filter((h) => h.anchor === 'Plan');
    expect(plans.map((h) => h.path)).toEqual(['Journal/2026-11-08.md']);
    expect(plans[0]?.text).toContain('buy trail shoes');
    expect(hits.some((h) => h.path === 'People/Mei.md')).toBe(true);

    const title = await memProcess(['recall', 'title date', '--json', '--now', NOW], { cwd: root });
    expect(title.stderr).toBe('');
    expect(JSON.parse(title.stdout).hits).toEqual([]);

    const rating = await memProcess(['recall', 'quotes rating', '--json', '--now', NOW], { cwd: root });
    expect(JSON.parse(rating.stdout).hits).toEqual([]);

    // The Templater note's agenda is the template's; its attendees were the person's to write.
    const agenda = await memProcess(['recall', 'agenda attendees', '--json', '--now', NOW], { cwd: root });
    const found = JSON.parse(agenda.stdout).hits as Array<{ path: string; anchor: string }>;
    expect(found.map((h) => `${h.path}#${h.anchor}`)).toEqual(['Meetings/Kickoff.md#Attendees']);

    const run = await memProcess(['recall', 'river run knee', '--json', '--now', NOW], { cwd: root });
    expect(JSON.parse(run.stdout).hits[0]).toMatchObject({ path: 'Journal/2026-11-09.md', anchor: 'Notes' });
  });

  it('compile holds no template section, once or seven times, and keeps the person’s own text', async () => {
    const result = await memProcess(
      ['compile', 'what was my plan this week?', '--json', '--budget', '3000', '--now', NOW],
      { cwd: root },
    );
    expect(result.stderr).toBe('');
    const compiled = JSON.parse(result.stdout) as {
      markdown: string;
      sections: Array<{ items: Array<{ path: string; anchor: string }> }>;
    };
    const items = compiled.sections.flatMap((s) => s.items);
    expect(items.filter((i) => /^(Templates|Extras)\//.test(i.path))).toEqual([]);
    const plans = items.filter((i) => i.anchor === 'Plan');
    expect(plans.map((i) => i.path)).toEqual(['Journal/2026-11-08.md']);
    expect(items.filter((i) => i.anchor === 'Gratitude')).toEqual([]);
    expect(compiled.markdown).toContain('buy trail shoes');
    expect(compiled.markdown).toContain('Long run by the river');
  });

  it('a cache built before the template settings loses the template notes', async () => {
    const other = await makeVault({
      'Snippets/Standup.md': '# Standup\n## Yesterday\n- \n## Blockers\nnone so far\n',
      'Standups/2026-11-02.md': '# Standup\n## Yesterday\n- fixed the login bug\n## Blockers\nnone so far\n',
      '.obsidian/app.json': '{}',
    });
    const before = await memProcess(['recall', 'standup blockers', '--json', '--now', NOW], { cwd: other });
    expect(JSON.parse(before.stdout).hits.some((h: { path: string }) => h.path.startsWith('Snippets/'))).toBe(
      true,
    );
    await put(other, { '.obsidian/templates.json': JSON.stringify({ folder: 'Snippets/' }) });
    const after = await memProcess(['recall', 'standup blockers', '--json', '--now', NOW], { cwd: other });
    expect(after.stderr).toBe('');
    const paths = JSON.parse(after.stdout).hits.map(
      (h: { path: string; anchor: string }) => `${h.path}#${h.anchor}`,
    );
    expect(paths.some((p: string) => p.startsWith('Snippets/'))).toBe(false);
    // The standup's blockers are still the template's words; what was done yesterday is the person's.
    expect(paths).not.toContain('Standups/2026-11-02.md#Blockers');
    expect(paths).toContain('Standups/2026-11-02.md#Yesterday');
  });
});

describe('TemplateSections', () => {
  const sectionsOf = (text: string) => parseNote('Journal/2026-11-01.md', text).sections;
  const templates = new TemplateSections([{ path: 'Templates/Daily.md', text: DAILY_TEMPLATE }]);

  it('matches a section only when its text is the template’s with the variables filled in', () => {
    const [title, plan, gratitude, notes] = sectionsOf(day('2026-11-01'));
    // The title heading holds nothing of the template's own: an empty section under any heading is not taken for it.
    expect([title, plan, gratitude, notes].map((s) => s && templates.matches(s))).toEqual([
      false,
      true,
      true,
      true,
    ]);
    const written = sectionsOf(day('2026-11-02', { plan: 'call Mei', notes: 'Slept well.' }));
    expect(written.map((s) => `${s.anchor}:${templates.matches(s)}`)).toEqual([
      '2026-11-02:false',
      'Plan:false',
      'Gratitude:true',
      'Notes:false',
    ]);
  });

  it('never takes a section for the template where the template leaves the text to the person', () => {
    const person = new TemplateSections([
      { path: 'T/Mood.md', text: '## Mood\n<% tp.system.prompt("mood") %>\n## Summary\n{{title}}\n' },
    ]);
    const [mood, summary] = sectionsOf('## Mood\nrested and glad\n## Summary\nA good day at the lake\n');
    expect(mood && person.matches(mood)).toBe(false);
    expect(summary && person.matches(summary)).toBe(false);
  });

  it('takes no section of more lines than its longest template section for one (mostLines)', () => {
    // Recall rules a section out by its stored line count alone, without decoding it: a section a
    // template matches must never have more lines than mostLines.
    const line = fc.constantFrom(
      '- [ ] ',
      '- [ ] {{date}}',
      '1. ',
      '{{title}}',
      '<% tp.date.now() %>',
      'Slept well.',
      '',
      '  ',
    );
    const body = fc.array(line, { maxLength: 6 }).map((lines) => lines.join('\n'));
    const heading = fc.constantFrom('## Plan', '## {{date}}', '## Notes');
    const text = fc
      .array(fc.tuple(heading, body), { minLength: 1, maxLength: 3 })
      .map((parts) => parts.map(([h, b]) => `${h}\n${b}\n`).join('\n'));
    let matched = 0;
    fc.assert(
      fc.property(text, text, (template, note) => {
        const sections = new TemplateSections([{ path: 'T/t.md', text: template }]);
        for (const section of parseNote('Journal/2026-11-01.md', note).sections) {
          if (!sections.matches(section)) continue;
          matched++;
          expect(lines(section.text).length).toBeLessThanOrEqual(sections.mostLines);
        }
      }),
      { numRuns: 300 },
    );
    // Not a vacuous property: some sections drawn are a template's.
    expect(matched).toBeGreaterThan(0);
  });
});

// Template variables of Obsidian's daily notes. The expected texts were recorded by running
// obsidian-daily-notes-interface's createDailyNote replacement chain (the rules the core plugin
// follows) with moment 2.30.1; a one-off differential run over 5,000 random templates agreed with
// renderTemplate on every one.
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../src/time/obsidian-template.js';

const TEMPLATE =
  '# {{date}}\n\n{{ Title }} · {{time}} · {{date:dddd, MMMM Do}} · {{time:HH:mm:ss}}\n' +
  '[[{{yesterday}}]] [[{{tomorrow}}]] {{date+1M:YYYY-MM-DD}} {{time-2h:YYYY-MM-DD HH:mm}} {{date+1w}} ' +
  '{{date:}}x}} {{foo}} {{{date}}';

describe('renderTemplate', () => {
  it('fills the variables as Obsidian does for a daily note', () => {
    const text = renderTemplate(TEMPLATE, {
      day: { year: 2024, month: 1, day: 31 },
      now: { hour: 1, minute: 30, second: 15 },
      title: '2024-01-31',
      format: 'YYYY-MM-DD',
    });
    expect(text).toBe(
      '# 2024-01-31\n\n2024-01-31 · 01:30 · Wednesday, January 31st · 01:30:15\n' +
        '[[2024-01-30]] [[2024-02-01]] 2024-02-29 2024-01-30 23:30 2024-02-07 }}1706664615000 {{foo}} {2024-01-31',
    );
  });

  it('writes names in zh-cn and takes a ZonedDateTime as the clock', () => {
    const now = Temporal.ZonedDateTime.from('2026-12-02T14:05:00+08:00[Asia/Shanghai]');
    const text = renderTemplate('{{date}} {{date:dddd Do MMMM}} {{time:A h点mm分}} {{time:Z}}', {
      day: { year: 2026, month: 12, day: 2 },
      now,
      title: '2026年12月2日',
      format: 'YYYY年M月D日',
      locale: 'zh-cn',
    });
    expect(text).toBe('2026年12月2日 星期三 2日 十二月 下午 2点05分 +08:00');
  });

  it("uses the Templates plugin's defaults, YYYY-MM-DD and HH:mm", () => {
    const text = renderTemplate('{{date}} {{time}}', {
      day: { year: 2026, month: 12, day: 2 },
      now: { hour: 9, minute: 7 },
      title: 'x',
    });
    expect(text).toBe('2026-12-02 09:07');
  });

  it('shows the clock now when a date format holds a time, as the moment Obsidian formats does', () => {
    const text = renderTemplate('{{date}} / {{yesterday}}', {
      day: { year: 2026, month: 12, day: 2 },
      now: { hour: 21, minute: 45 },
      title: 'x',
      format: 'YYYY-MM-DD HH:mm',
    });
    expect(text).toBe('2026-12-02 21:45 / 2026-12-01 21:45');
  });

  it('never expands a variable inside a value it wrote', () => {
    const text = renderTemplate('{{title}}', {
      day: { year: 2026, month: 12, day: 2 },
      now: { hour: 9, minute: 7 },
      title: 'Notes on {{date}}',
    });
    expect(text).toBe('Notes on {{date}}');
  });

  it('leaves text without variables as it is, and stays linear on hostile text', () => {
    const context = { day: { year: 2026, month: 12, day: 2 }, now: { hour: 9, minute: 7 }, title: 't' };
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        fc.pre(!text.includes('{{'));
        expect(renderTemplate(text, context)).toBe(text);
      }),
    );
    const started = performance.now();
    const hostile = `${'{{date:'.repeat(100_000)}\n}}${'{{ date '.repeat(50_000)}`;
    expect(renderTemplate(hostile, context)).toBe(hostile);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

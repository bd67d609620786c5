// A new daily note from the layout's template note, its Obsidian variables filled in as Obsidian's
// Daily notes would fill them when it made the note now (time/obsidian-template.ts has the rules).
import { renderTemplate } from '../../time/obsidian-template.js';
import { zonedDateTime } from '../../time/zoned-date.js';
import type { VaultLayout } from '../../vault/layout.js';

export function fillTemplate(
  text: string,
  context: { date: string; title: string; timezone: string; layout: VaultLayout; now?: Date },
): string {
  const [year, month, day] = context.date.split('-').map(Number) as [number, number, number];
  const now = zonedDateTime(context.now ?? new Date(), context.timezone);
  return renderTemplate(text, {
    day: { year, month, day },
    now,
    title: context.title,
    format: context.layout.daily.format,
    locale: context.layout.daily.locale,
  });
}

// A new daily note from the layout's template note: Obsidian's {{date}} and {{title}} filled in.
import type { VaultLayout } from '../vault/layout.js';

export function fillTemplate(
  text: string,
  context: { date: string; title: string; timezone: string; layout: VaultLayout },
): string {
  return text.replaceAll('{{date}}', context.date).replaceAll('{{title}}', context.title);
}

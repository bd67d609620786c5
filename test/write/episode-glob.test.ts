// The .gitattributes pattern of a vault's day notes follows its layout (layout.daily): the default
// folder and date format, an adopted Obsidian vault's own, nested folders and spaces.
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/core/config/config.js';
import { dayOfEpisodePath, episodeGlob } from '../../src/vault/episode-glob.js';

const config = (daily?: object) =>
  resolveConfig({ timezone: 'UTC', ...(daily ? { layout: { daily } } : {}) });

describe('episodeGlob', () => {
  it('names the day notes of the layout, and only they match it as days', () => {
    expect(episodeGlob(config())).toBe('episodes/daily/*-*-*.md');
    expect(dayOfEpisodePath('episodes/daily/2026-11-29.md', config())).toBe('2026-11-29');
    expect(dayOfEpisodePath('profile/user.md', config())).toBeUndefined();
    const nested = config({ folder: 'Daily', format: 'YYYY/MM/YYYY-MM-DD' });
    expect(episodeGlob(nested)).toBe('Daily/*/*/*-*-*.md');
    expect(dayOfEpisodePath('Daily/2026/11/2026-11-29.md', nested)).toBe('2026-11-29');
    const spaced = config({ folder: 'My Days', format: 'dddd, MMMM Do YYYY' });
    expect(episodeGlob(spaced)).toBe('My[[:space:]]Days/*,[[:space:]]*[[:space:]]*[[:space:]]*.md');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/write/redact.js';
import { REPO_ROOT } from '../helpers/make-vault.js';

const corpus = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/secrets/corpus.json'), 'utf8')) as {
  secrets: Array<{ text: string; secret: string }>;
  lookalikes: string[];
};

describe('the secret corpus (English and Chinese)', () => {
  it('has at least 20 secrets and 20 look-alikes', () => {
    expect(corpus.secrets.length).toBeGreaterThanOrEqual(20);
    expect(corpus.lookalikes.length).toBeGreaterThanOrEqual(20);
  });

  it('every secret is redacted whole', () => {
    const missed = corpus.secrets
      .map(({ text, secret }) => ({ text, out: redactSecrets(text).text, secret }))
      .filter(({ out, secret }) => out.includes(secret) || !out.includes('[REDACTED:'));
    expect(missed).toEqual([]);
  });

  it('at most one look-alike is changed', () => {
    const changed = corpus.lookalikes
      .map((text) => ({ text, out: redactSecrets(text).text }))
      .filter(({ text, out }) => text !== out);
    expect(changed.length, JSON.stringify(changed, null, 1)).toBeLessThanOrEqual(1);
  });
});

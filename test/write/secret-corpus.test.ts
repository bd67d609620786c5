import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/write/redact/redact.js';
import { REPO_ROOT } from '../helpers/make-vault.js';
import { reportReliability } from '../helpers/reliability-report.js';

const corpus = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/secrets/corpus.json'), 'utf8')) as {
  secrets: Array<{ text: string; secret: string }>;
  lookalikes: string[];
};

const missed = corpus.secrets
  .map(({ text, secret }) => ({ text, out: redactSecrets(text).text, secret }))
  .filter(({ out, secret }) => out.includes(secret) || !out.includes('[REDACTED:'));
const changed = corpus.lookalikes
  .map((text) => ({ text, out: redactSecrets(text).text }))
  .filter(({ text, out }) => text !== out);

// The figures of the Reliability table (docs/reliability.md), when the report script asks for them.
await reportReliability({
  class: 'secrets redacted (English, Chinese and Japanese)',
  caught: corpus.secrets.length - missed.length,
  total: corpus.secrets.length,
  lookalikesChanged: changed.length,
  lookalikes: corpus.lookalikes.length,
});

describe('the secret corpus (English, Chinese and Japanese)', () => {
  it('has at least 80 secrets and 60 look-alikes', () => {
    expect(corpus.secrets.length).toBeGreaterThanOrEqual(80);
    expect(corpus.lookalikes.length).toBeGreaterThanOrEqual(60);
  });

  it('every secret is redacted whole', () => {
    expect(missed).toEqual([]);
  });

  it('no look-alike is changed', () => {
    expect(changed).toEqual([]);
  });
});

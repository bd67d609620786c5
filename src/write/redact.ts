/**
 * Removes secrets from text before it is written into the vault (a memory is read back into
 * prompts and committed to git, so a pasted key would leak twice).
 *
 * Decisions: UUIDs and pure hex strings (git SHAs, sha256 hashes) are NOT redacted: notes cite
 * commits, content hashes and ids all the time, and none of them grants access. A hex secret is
 * still caught when it is labelled (`api_key=…`, `token: …`). URLs are kept unless they carry a
 * password (`https://user:pass@host`) or a labelled secret in the query (`?token=…`).
 * Unlabelled high-entropy tokens must also not be mostly words, so file paths and camelCase names
 * survive; the price is that a random all-lowercase token is often missed unless labelled.
 */

export interface Redaction {
  /** What was found, e.g. `openai-key`, `password`, `high-entropy` */
  kind: string;
  /** Offsets of the removed text in the input */
  start: number;
  end: number;
}

interface Rule {
  kind: string;
  pattern: RegExp;
  /** The secret is the first capture group that matched; the rest (a label, a prefix) is kept */
  group?: boolean;
  /** Shorter labelled values are left alone (`token: none` is prose, not a token) */
  minLength?: number;
  /** The value must look like a password: a digit, a symbol, or upper and lower case */
  strong?: boolean;
}

/**
 * `label: value`, `label=value`, `"label": "value"`, `密码：value`; a quoted value may hold spaces,
 * and with `toLineEnd` so may an unquoted one (`password: correct horse battery staple`).
 */
function labelled(kind: string, label: string, minLength: number, toLineEnd = false): Rule {
  const bare = toLineEnd
    ? String.raw`[^\n"'\x60,;，。；、()（）<>]+`
    : String.raw`[^\s"'\x60,;，。；、()（）<>&]+`;
  const value = String.raw`(?:"([^"\n]+)"|'([^'\n]+)'|(${bare}))`;
  const pattern = new RegExp(String.raw`(?:${label})["']?[ \t]*[:=：][ \t]*${value}`, 'gid');
  return { kind, pattern, group: true, minLength };
}

/**
 * A password told in a sentence: `my password is hunter2-x`, `密码是 Tr0ub4dor&3`. The value must
 * look like a password (a digit, a symbol or mixed case), so `the password is wrong` stays prose.
 */
const PROSE_PASSWORD: Rule = {
  kind: 'password',
  pattern:
    /(?:\b(?:password|passwd|passcode|pin(?: code)?|pwd)\s+(?:is|was)\s+|(?:密码|密碼|口令)\s*(?:是|为|為)\s*)([^\s，。；、,;"'()（）<>]{4,})/dgi,
  group: true,
  strong: true,
};

/** Label prefixes a key name may carry: `aws_secret_access_key`, `STRIPE_API_KEY`. */
const PREFIX = String.raw`\b(?:[A-Za-z0-9]+[_-])*`;

// Ordered: specific formats first, so a key gets its own kind rather than `high-entropy`.
const RULES: Rule[] = [
  {
    kind: 'private-key',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/dg,
  },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/dg },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/dg },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/dg },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/dg },
  { kind: 'slack-token', pattern: /\bxox[baprs]-[A-Za-z0-9-]{10,}/dg },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/dg },
  { kind: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{30,}/dg },
  { kind: 'gitlab-token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/dg },
  { kind: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{30,}/dg },
  { kind: 'sendgrid-key', pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/dg },
  { kind: 'stripe-key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/dg },
  { kind: 'mailgun-key', pattern: /\bkey-([0-9a-z]{32})\b/dg, group: true },
  { kind: 'telegram-token', pattern: /\b\d{8,10}:([A-Za-z0-9_-]{35})\b/dg, group: true },
  {
    kind: 'slack-webhook',
    pattern: /\bhttps:\/\/hooks\.slack\.com\/services\/([A-Za-z0-9/]+)/dg,
    group: true,
  },
  { kind: 'basic-auth', pattern: /\bBasic\s+([A-Za-z0-9+/]{8,}={0,2})/dg, group: true },
  { kind: 'url-password', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:([^\s/@]+)@/dgi, group: true },
  { kind: 'bearer-token', pattern: /\bBearer\s+([A-Za-z0-9._~+/=-]{8,})/dgi, group: true },
  labelled('password', `${PREFIX}(?:password|passwd|passphrase)|密码|密碼|口令`, 1, true),
  PROSE_PASSWORD,
  labelled('api-key', `${PREFIX}(?:api[_-]?key|apikey|access[_-]?key|secret[_-]?key)`, 8),
  labelled('token', `${PREFIX}(?:access[_-]?token|auth[_-]?token|token)`, 8),
  labelled('secret', `${PREFIX}(?:client[_-]?secret|secret)|密钥|令牌`, 8),
];

const CANDIDATE = /[A-Za-z0-9+/_=-]{24,}/g;
const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s<>()]+/gi;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Share of a token made of word-like runs (`notes`, `Profile`, `HTTP`): high in names, low in keys. */
function wordShare(token: string): number {
  let covered = 0;
  for (const match of token.matchAll(/[A-Z]?[a-z]{3,}|[A-Z]{4,}/g)) covered += match[0].length;
  return covered / token.length;
}

function looksRandom(token: string): boolean {
  if (UUID.test(token) || /^[0-9a-f]+$/i.test(token)) return false;
  if (!/[A-Za-z]/.test(token) || !/[0-9]/.test(token)) return false;
  // Paths and identifiers (`episodes/daily/2026-11-29-notes`, `getUserById2024`) reach 4 bits too.
  return entropy(token) >= 4.0 && wordShare(token) < 0.5;
}

/** Trailing sentence punctuation and spaces are not part of a value: `password: hunter2.` keeps the dot. */
function trimValue(value: string): string {
  let end = value.length;
  while (end > 0 && /[\s.!?:]/.test(value[end - 1]!)) end--;
  return value.slice(0, end);
}

function looksLikePassword(value: string): boolean {
  return /[0-9]/.test(value) || /[^A-Za-z0-9]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value));
}

/** Base64 that is data, not a key: `data:image/png;base64,…`, and npm's `sha512-…` integrity hashes. */
const DATA_SPANS =
  /\bdata:[\w.+-]+\/[\w.+-]+(?:;[\w=.-]+)*;base64,[A-Za-z0-9+/=]+|\bsha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}/gi;

function overlaps(found: Redaction[], start: number, end: number): boolean {
  return found.some((r) => start < r.end && end > r.start);
}

/** Replaces secrets with `[REDACTED:<kind>]`; `redactions` lists what was removed, in input offsets. */
export function redactSecrets(text: string): { text: string; redactions: Redaction[] } {
  const found: Redaction[] = [];
  for (const rule of RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      const whole = match[0];
      const index = match.index ?? 0;
      let start = index;
      let value = whole;
      if (rule.group) {
        const n = match.findIndex((group, i) => i > 0 && group !== undefined);
        const span = match.indices?.[n];
        if (n < 1 || !span) continue;
        value = trimValue(match[n] ?? '');
        start = span[0];
        // A value that runs to the line end stops where a secret found before it starts.
        const next = Math.min(...found.filter((r) => r.start > start).map((r) => r.start));
        if (start + value.length > next) value = trimValue(value.slice(0, next - start));
      }
      const end = start + value.length;
      if (
        value.length < (rule.minLength ?? 1) ||
        (rule.strong && !looksLikePassword(value)) ||
        value.startsWith('[REDACTED') ||
        overlaps(found, start, end)
      )
        continue;
      found.push({ kind: rule.kind, start, end });
    }
  }

  const urls = [...text.matchAll(URL), ...text.matchAll(DATA_SPANS)].map((m) => ({
    start: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
  }));
  for (const match of text.matchAll(CANDIDATE)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (!looksRandom(match[0]) || overlaps(found, start, end)) continue;
    if (urls.some((url) => start >= url.start && end <= url.end)) continue;
    found.push({ kind: 'high-entropy', start, end });
  }

  found.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const r of found) {
    out += text.slice(at, r.start) + `[REDACTED:${r.kind}]`;
    at = r.end;
  }
  return { text: out + text.slice(at), redactions: found };
}

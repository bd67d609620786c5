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
 * Numbers (cards, IBANs, Chinese IDs) count only when their check digits pass, so order numbers,
 * phone numbers, timestamps and version strings stay; a label (`卡号`, `card number`) overrides.
 *
 * Every rule reads the normalised view of the text (`secret-view.ts`: NFKC, invisible characters
 * dropped), so `ｐａｓｓｗｏｒｄ`, `p\u200bassword` and `４１１１ １１１１ …` are what they look like; a
 * secret is then cut from the input whole. Secrets told in words (`my PIN is 4821`, `密码改成了 …`,
 * `パスワードは …`) are one rule family, `secret-phrases.ts`; a sentence that only names the word stays.
 */

import { isCardNumber, isChineseId, isIban } from '../checksums.js';
import { findSecretPhrases, looksLikePassword, type PhraseHit } from './secret-phrases.js';
import { inputSpan, leetWord, secretView } from './secret-view.js';

export interface Redaction {
  /** What was found, e.g. `openai-key`, `password`, `high-entropy` */
  kind: string;
  /** Offsets of the removed text in the input */
  start: number;
  end: number;
}

interface Rule {
  kind: string;
  /** What to look for, or `find`: the value spans a finder returns (the secret-phrase family) */
  pattern?: RegExp;
  find?: (text: string) => PhraseHit[];
  /** The secret is the first capture group that matched; the rest (a label, a prefix) is kept */
  group?: boolean;
  /** Shorter labelled values are left alone (`token: none` is prose, not a token) */
  minLength?: number;
  /** The value must look like a password: a digit, a symbol, or upper and lower case */
  strong?: boolean;
  /** The value must pass this check (a card number's Luhn digit, an IBAN's mod 97) */
  valid?: (value: string) => boolean;
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
  // Markdown emphasis may close around the label or the colon: `**Password:** hunter2`.
  const pattern = new RegExp(
    String.raw`(?:${label})["']?[*_]{0,3}[ \t]*[:=：](?:[*_]{1,3}(?=[ \t]))?[ \t]*${value}`,
    'gid',
  );
  return { kind, pattern, group: true, minLength };
}

/**
 * Answers to security questions and one-time codes, told in a sentence: `my mother's maiden name
 * is Okafor`, `密保答案是小白`, `验证码 483920`. Any value counts: an answer is a plain word.
 */
const PROSE_ANSWER: Rule = {
  kind: 'security-answer',
  pattern:
    /(?:\b(?:security answer|secret answer|answer to (?:my|the) security question|mother['’]?s maiden name|maiden name of my mother|(?:my )?first pet['’]?s name|name of my first pet)\s*(?:is|was|:|=)\s*|(?:密保答案|密保问题答案|安全问题答案|安全问题的答案)\s*(?:是|为|:|：)?\s*)([^\s，。；、,;"'()（）<>]{2,})/dgi,
  group: true,
};

/**
 * A TOTP seed: base32 after a 2FA word (`2FA secret JBSWY3DPEHPK3PXP`, `两步验证密钥 …`), spaced
 * in groups of four as authenticator apps show it. `otpauth://…?secret=` is a labelled `secret`.
 */
const TOTP_SEED: Rule = {
  kind: 'totp-seed',
  // Case-sensitive: base32 is upper case, and a lower-case run is words (`authenticator app on my phone`).
  pattern:
    /(?:\b(?:2FA|MFA|TOTP|OTP|[Tt]wo[- ][Ff]actor|[Aa]uthenticator)(?:\s+(?:[Ss]ecret|[Ss]eed|[Kk]ey|[Ss]etup [Kk]ey|[Cc]ode))?|两步验证密钥|二次验证密钥|动态口令密钥)\s*(?:is|was|:|=|是|为|：)?\s*([A-Z2-7]{4}(?: ?[A-Z2-7]{4}){3,}=*)(?![A-Za-z0-9])/dg,
  group: true,
};

/**
 * Seed phrases and recovery codes: everything to the end of the line after the label
 * (`recovery phrase: abandon ability …`, `助记词：…`).
 */
const RECOVERY = labelled(
  'recovery-phrase',
  String.raw`\b(?:seed phrase|recovery phrase|mnemonic(?: phrase)?|recovery codes?|backup codes?)|助记词|恢复码|备用码`,
  8,
  true,
);

/**
 * Region (first digit 1 to 8), birth date 18xx to 20xx, sequence, check: an 18-digit order number
 * would otherwise pass the check one time in eleven.
 */
function isResidentId(text: string): boolean {
  const id = text.replace(/[ -]/g, '');
  return (
    /^[1-8]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]$/.test(id) &&
    isChineseId(id)
  );
}

/** Not inside a longer number, a version, a time or a phone number (`+86 …`). */
const NUMBER_START = String.raw`(?<![\d+.:/-]|\d[ .-])`;
const NUMBER_END = String.raw`(?!\d|[ .:/-]\d)`;

/**
 * Numbers that are secrets when their check digits say they are real: Chinese resident IDs (18
 * characters, GB 11643), payment cards (13 to 19 digits, plain or in groups, Luhn), IBANs (mod 97).
 * An order number, a phone number or a timestamp of the same length fails the check and stays.
 */
const NUMBER_RULES: Rule[] = [
  {
    kind: 'id-number',
    // 18 characters, in groups or not (`110105 19491231 002X`); the check is on the compact form.
    pattern: /(?<![0-9A-Za-z]|\d[ -])[1-8](?:[ -]?\d){16}[ -]?[\dXx](?![0-9A-Za-z]|[ -]\d)/dg,
    valid: isResidentId,
  },
  {
    kind: 'card-number',
    // Plain, or in groups of any size with one separator throughout: spaces, dots or dashes.
    pattern: new RegExp(
      `${NUMBER_START}(?:\\d{13,19}|\\d{3,6}([ .-])\\d{2,6}(?:\\1\\d{1,6}){1,6})${NUMBER_END}`,
      'dg',
    ),
    valid: isCardNumber,
  },
  {
    kind: 'iban',
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/dg,
    valid: isIban,
  },
];

/** As typed or in leetspeak: `p4ssw0rd: …`, `pa$$word=…`. */
const PASSWORD_WORDS = ['password', 'passwd', 'passphrase', 'passcode', 'pwd', 'pw'].map(leetWord).join('|');

/** Label prefixes a key name may carry: `aws_secret_access_key`, `STRIPE_API_KEY`. */
const PREFIX = String.raw`\b(?:[A-Za-z0-9]+[_-])*`;

// Ordered: specific formats first, so a key gets its own kind rather than `high-entropy`.
const RULES: Rule[] = [
  ...NUMBER_RULES,
  {
    kind: 'private-key',
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/dg,
  },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/dg },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/dg },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/dg },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/dg },
  { kind: 'slack-token', pattern: /\bxox[abeoprs]-[A-Za-z0-9-]{10,}|\bxapp-[0-9]-[A-Za-z0-9-]{10,}/dg },
  { kind: 'huggingface-token', pattern: /\bhf_[A-Za-z0-9]{30,}/dg },
  { kind: 'google-oauth-token', pattern: /\bya29\.[A-Za-z0-9_-]{20,}/dg },
  { kind: 'digitalocean-token', pattern: /\bdo[pro]_v1_[a-f0-9]{64}\b/dg },
  { kind: 'docker-token', pattern: /\bdckr_pat_[A-Za-z0-9_-]{20,}/dg },
  { kind: 'pypi-token', pattern: /\bpypi-AgE[A-Za-z0-9_-]{50,}/dg },
  { kind: 'shopify-token', pattern: /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/dg },
  { kind: 'twilio-key', pattern: /\bSK[0-9a-f]{32}\b/dg },
  { kind: 'linear-key', pattern: /\blin_api_[A-Za-z0-9]{40}\b/dg },
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
  // `redis://:pass@host` has no user name.
  { kind: 'url-password', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:([^\s/@]+)@/dgi, group: true },
  { kind: 'bearer-token', pattern: /\bBearer\s+([A-Za-z0-9._~+/=-]{8,})/dgi, group: true },
  labelled('password', `${PREFIX}(?:${PASSWORD_WORDS})|密码|密碼|口令|パスワード`, 1, true),
  labelled('pin', String.raw`\bPIN(?:[ -]?code)?|PIN码`, 4),
  labelled('security-answer', String.raw`\b(?:security answer|secret answer)|密保答案|安全问题答案`, 1, true),
  RECOVERY,
  PROSE_ANSWER,
  TOTP_SEED,
  labelled('api-key', `${PREFIX}(?:api[_-]?key|apikey|access[_-]?key|secret[_-]?key)`, 8),
  labelled('token', `${PREFIX}(?:access[_-]?token|auth[_-]?token|token)`, 8),
  labelled('secret', `${PREFIX}(?:client[_-]?secret|secret)|密钥|令牌`, 8),
  // After every labelled form: a bare value must not take a label's value first.
  { kind: 'secret-phrase', find: findSecretPhrases },
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

/** Base64 that is data, not a key: `data:image/png;base64,…`, and npm's `sha512-…` integrity hashes. */
const DATA_SPANS =
  /\bdata:[\w.+-]+\/[\w.+-]+(?:;[\w=.-]+)*;base64,[A-Za-z0-9+/=]+|\bsha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}/gi;

/**
 * The secrets found so far, in order and never overlapping, so a look-up is a binary search: a
 * line of 10,000 secrets took seconds when each new one was compared with every other.
 */
class Found {
  readonly all: Redaction[] = [];

  /** The index of the first secret that ends after `at`. */
  private after(at: number): number {
    let low = 0;
    let high = this.all.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.all[mid]!.end > at) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  overlaps(start: number, end: number): boolean {
    const next = this.all[this.after(start)];
    return next !== undefined && next.start < end;
  }

  /** Where the first secret starting after `at` starts, or Infinity. */
  nextStart(at: number): number {
    for (let i = this.after(at); i < this.all.length; i++)
      if (this.all[i]!.start > at) return this.all[i]!.start;
    return Number.POSITIVE_INFINITY;
  }

  add(secret: Redaction): void {
    this.all.splice(this.after(secret.start), 0, secret);
  }
}

/** Where a rule's secrets are in `text`: the start and the value of each. */
function* candidates(
  rule: Rule,
  text: string,
  found: Found,
): Generator<{ kind: string; start: number; value: string }> {
  if (rule.find) {
    for (const hit of rule.find(text))
      yield { kind: hit.kind, start: hit.start, value: text.slice(hit.start, hit.end) };
    return;
  }
  if (!rule.pattern) return;
  for (const match of text.matchAll(rule.pattern)) {
    if (!rule.group) {
      yield { kind: rule.kind, start: match.index ?? 0, value: match[0] };
      continue;
    }
    const n = match.findIndex((group, i) => i > 0 && group !== undefined);
    const span = match.indices?.[n];
    if (n < 1 || !span) continue;
    const start = span[0];
    let value = trimValue(match[n] ?? '');
    // A value that runs to the line end stops where a secret found before it starts.
    const next = found.nextStart(start);
    if (start + value.length > next) value = trimValue(value.slice(0, next - start));
    yield { kind: rule.kind, start, value };
  }
}

/** Finds the secrets of `text` (the normalised view), in its offsets. */
function findSecrets(text: string): Redaction[] {
  const found = new Found();
  for (const rule of RULES) {
    for (const { kind, start, value } of candidates(rule, text, found)) {
      const end = start + value.length;
      if (
        value.length < (rule.minLength ?? 1) ||
        (rule.strong && !looksLikePassword(value)) ||
        (rule.valid && !rule.valid(value)) ||
        value.startsWith('[REDACTED') ||
        found.overlaps(start, end)
      )
        continue;
      found.add({ kind, start, end });
    }
  }

  const urls = [...text.matchAll(URL), ...text.matchAll(DATA_SPANS)].map((m) => ({
    start: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
  }));
  for (const match of text.matchAll(CANDIDATE)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (!looksRandom(match[0]) || found.overlaps(start, end)) continue;
    if (urls.some((url) => start >= url.start && end <= url.end)) continue;
    found.add({ kind: 'high-entropy', start, end });
  }
  return found.all;
}

/**
 * Replaces secrets with `[REDACTED:<kind>]`; `redactions` lists what was removed, in input offsets.
 * Secrets are looked for in the normalised view of the text (NFKC, invisible characters dropped:
 * `secret-view.ts`), and each is removed from the input whole, with any invisible character inside.
 */
export function redactSecrets(text: string): { text: string; redactions: Redaction[] } {
  const view = secretView(text);
  const found = findSecrets(view.text)
    .map((r) => ({ kind: r.kind, ...inputSpan(view, r.start, r.end) }))
    .sort((a, b) => a.start - b.start);
  const redactions: Redaction[] = [];
  let out = '';
  let at = 0;
  for (const r of found) {
    // Two secrets from one input character (a ligature, `㎏`) are one span of the input.
    const start = Math.max(r.start, at);
    if (r.end <= start) continue;
    out += text.slice(at, start) + `[REDACTED:${r.kind}]`;
    redactions.push({ kind: r.kind, start, end: r.end });
    at = r.end;
  }
  return { text: out + text.slice(at), redactions };
}

/**
 * One rule for secrets told in words, in English, Chinese and Japanese: a secret word, a connector,
 * then the value. `my password is hunter2`, `the PIN for my card: 4821`, `密码改成了 abc123`,
 * `パスワードは abc123 です`, `passport no. G48213390`, `SSN 078-05-1120`, `银行卡号 6222 …`,
 * `API key Q2xAb9Lm3Np8Rt7Vw1Yz`. Words are one table (FAMILY: a kind, its words, the shapes its
 * value takes and what a value must be); connectors are one list for every word. It runs on the
 * normalised view (`secret-view.ts`), so full-width and zero-width disguises are already gone; the
 * words also match in leetspeak and look-alike letters (`p4ssw0rd`, `pa$$word`, Cyrillic `pаssword`).
 *
 * Limits, chosen: a password with no digit, symbol or second case after `is` (`my password is
 * sunshine`) stays, as `my password is strong enough` must; so does a value in CJK letters
 * (`パスワードは ひみつ`), as `密码错误` must. A colon makes any value count (`redact.ts`, `labelled`).
 *
 * A sentence that only mentions the word stays: the value must look like the secret it is named as
 * (a password has a digit, a symbol or mixed case; a PIN or a code is digits; an ID has a digit),
 * and it must be ASCII, so `I forgot my password again`, `密码错误`, `パスワードを変更した` and
 * `the PIN pad was broken` stay. A count or a date after the word is no value (`密码 12 位`).
 */

import { leetWord } from './secret-view.js';

export interface PhraseHit {
  kind: string;
  /** Offsets of the value in the text searched */
  start: number;
  end: number;
}

type ValueShape = 'quoted' | 'digits' | 'id' | 'token';

interface SecretWords {
  kind: string;
  /** Latin words, matched whole, case-insensitive and in leetspeak */
  words: string[];
  /** Chinese and Japanese words, matched anywhere */
  cjk: string[];
  /** The shapes a value may take, tried in this order */
  shapes: ValueShape[];
  accept: (value: string) => boolean;
  /**
   * The value may follow the word with only a space between (`PIN 4821`), or only such values do
   * (`API key Q2xAb9Lm3Np8Rt7Vw1Yz`, not `secret santa`); else a connector is needed.
   */
  bare: boolean | ((value: string) => boolean);
}

/** A password has a digit, a symbol or both cases: `the password is wrong` names no password. */
export function looksLikePassword(value: string): boolean {
  return /[0-9]/.test(value) || /[^A-Za-z0-9]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value));
}

const digitsBetween = (min: number, max: number) => (value: string) => {
  const digits = value.replace(/[ .-]/g, '');
  return /^\d+$/.test(digits) && digits.length >= min && digits.length <= max;
};
const password = (value: string) => value.length >= 4 && looksLikePassword(value);
const identifier = (value: string) => {
  const chars = value.replace(/[ -]/g, '');
  return chars.length >= 5 && chars.length <= 20 && /\d/.test(chars);
};
const key = (value: string) => value.length >= 8 && /\d/.test(value) && /[A-Za-z]/.test(value);
/** With no connector, a key is long and of the characters keys are made of: `the token bucket` stays. */
const longKey = (value: string) => value.length >= 16 && /^[A-Za-z0-9._~+/=-]+$/.test(value);

const FAMILY: SecretWords[] = [
  {
    kind: 'password',
    words: ['password', 'pass word', 'passwd', 'passcode', 'passphrase', 'pass code', 'pwd', 'pw'],
    cjk: ['密码', '密碼', '口令', 'パスワード', 'パスコード'],
    shapes: ['quoted', 'digits', 'token'],
    accept: password,
    bare: true,
  },
  {
    kind: 'pin',
    words: ['pin code', 'pin number', 'pin no', 'pin'],
    cjk: ['暗証番号', '暗証コード'],
    shapes: ['quoted', 'digits', 'token'],
    accept: (value) => (/^[\d .-]+$/.test(value) ? digitsBetween(4, 12)(value) : password(value)),
    bare: true,
  },
  {
    kind: 'cvv',
    words: ['cvv2', 'cvc2', 'cvv', 'cvc', 'csc', 'card security code', 'card verification code'],
    cjk: ['安全码', '安全碼', 'セキュリティコード', 'セキュリティーコード'],
    shapes: ['quoted', 'digits'],
    accept: digitsBetween(3, 4),
    bare: true,
  },
  {
    kind: 'one-time-code',
    words: [
      'verification code',
      'one-time code',
      'one time code',
      'confirmation code',
      'security code',
      'login code',
      'sms code',
      '2fa code',
      'mfa code',
      'otp',
    ],
    cjk: [
      '验证码',
      '驗證碼',
      '动态码',
      '動態碼',
      '认证码',
      '認証コード',
      '確認コード',
      '認証番号',
      '確認番号',
    ],
    shapes: ['quoted', 'digits'],
    accept: digitsBetween(3, 8),
    bare: true,
  },
  {
    kind: 'passport',
    words: ['passport number', 'passport no.', 'passport no', 'passport #', 'passport'],
    cjk: ['护照号码', '护照号', '护照', '護照號碼', '護照', 'パスポート番号', 'パスポート', '旅券番号'],
    shapes: ['quoted', 'id'],
    accept: identifier,
    bare: true,
  },
  {
    kind: 'id-number',
    words: [
      'social security number',
      'social security no',
      'social insurance number',
      'ssn',
      'national id number',
      'national id',
      'id card number',
      'id number',
      'id no.',
      'id no',
      "driver's license number",
      "driver's licence number",
      'drivers license number',
      'driver license number',
      'license number',
      'licence number',
    ],
    cjk: [
      '身份证号码',
      '身份证号',
      '身份证',
      '身分證字號',
      '身分證',
      '证件号码',
      '证件号',
      'マイナンバー',
      '個人番号',
    ],
    shapes: ['quoted', 'id'],
    accept: identifier,
    bare: true,
  },
  {
    kind: 'api-key',
    words: ['api key', 'access key', 'secret key', 'private key'],
    cjk: ['密钥', '密鑰', 'APIキー', 'アクセスキー', '秘密鍵'],
    shapes: ['quoted', 'token'],
    accept: key,
    bare: longKey,
  },
  {
    kind: 'token',
    words: ['access token', 'auth token', 'refresh token', 'bearer token', 'api token', 'bot token', 'token'],
    cjk: ['令牌', 'トークン'],
    shapes: ['quoted', 'token'],
    accept: key,
    bare: longKey,
  },
  {
    kind: 'secret',
    words: ['client secret', 'app secret', 'secret'],
    cjk: ['シークレット'],
    shapes: ['quoted', 'token'],
    accept: key,
    bare: longKey,
  },
  {
    // A card number after its name is one whatever its check digit: a mistyped one still says too much.
    kind: 'card-number',
    words: [
      'card number',
      'card no.',
      'card no',
      'credit card number',
      'credit card',
      'debit card number',
      'debit card',
    ],
    cjk: [
      '银行卡号',
      '银行卡',
      '信用卡号',
      '信用卡',
      '借记卡号',
      '储蓄卡号',
      '卡号',
      '卡號',
      'カード番号',
      'クレジットカード',
    ],
    shapes: ['quoted', 'digits'],
    accept: digitsBetween(12, 19),
    bare: true,
  },
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Latin words whole, in leetspeak, optionally with a CJK "number" after (`PIN码`); CJK words anywhere. */
function wordPattern(family: SecretWords): RegExp {
  const latin = [...family.words].sort((a, b) => b.length - a.length).map(leetWord);
  // `密 码`: a space between the characters of a CJK word hides it no better than a zero-width one.
  const cjk = [...family.cjk]
    .sort((a, b) => b.length - a.length)
    .map((word) => [...word].map(escapeRegExp).join('[ \\t]?'));
  return new RegExp(
    String.raw`(?<![A-Za-z0-9])(?:${latin.join('|')})(?![A-Za-z0-9])(?:\s*(?:码|碼|号|號|番号|コード|(?:code|number|no\.?)(?![A-Za-z0-9])))?|${cjk.join('|')}`,
    'giu',
  );
}

const WORDS = FAMILY.map((family) => ({ family, pattern: wordPattern(family) }));

/**
 * What the secret belongs to, between word and connector: `for my card`, `to the door`, `for
 * alice@example.com`, `(new)`.
 */
const QUALIFIER =
  /(?:\s+(?:for|of|on|to|at|in)(?:\s+[\p{L}\p{N}'’.@_-]+){1,4}?|\s*\([^()\n]{1,30}\))(?=\s*[:=]|\s+(?:is|was)\b)/iuy;

const ADVERB = String.raw`(?:\s+(?:now|still|currently|just|actually|always|simply|again|also))?`;

/** Markdown emphasis or code around a word or a connector: `**Password:** hunter2`, `` `pin`: 4821 ``. */
const MARK = '[*_`]{0,3}';

/** How a value follows its word. Each is tried; the first that leads to a value that fits wins. */
const CONNECTORS: RegExp[] = [
  new RegExp(String.raw`${MARK}\s*(?:[:=#]|=>|->|→|—|–|--?)(?:${MARK}(?=\s))?\s*(?:[:=]\s*)?`, 'y'),
  /['’]s\s+/y,
  new RegExp(
    String.raw`(?:\s*,?\s+(?:which|that))?\s+(?:is|was|are|were|equals|became|becomes|reads)(?![A-Za-z])${ADVERB}\s*[:=]?\s*`,
    'iy',
  ),
  // `set to`, `was changed to`, `, I changed it to`, `? we just set it as`.
  /(?:\s*[,;:?!—–-]+)?\s+(?:(?:is|was|has been|have been|got|gets|been)\s+|(?:I|we|you|I've|we've|I have|we have)\s+(?:just\s+)?)?(?:set|changed|updated|reset|switched)(?:\s+(?:it|this|that))?\s+(?:to|into|as)\s+/iy,
  /\s*(?:是|为|為|就是|还是|也是|都是|一直是|改成了?|改为了?|改為了?|改了?成|设为|設為|设成|設成|设置为|設置為|设置成|设定为|設定為|換成了?|换成了?|换为|換為|变成了?|變成了?|更改为|更改為|修改为|修改為|修改成|重置为|重置為|重设为|重設為|は|が|を|も)\s*[:=]?\s*/y,
];
/** `changed my password to X`, `set the PIN as X`: only after a verb of setting, or it is `send the password to Bob`. */
const TO = /\s+(?:to|into|as)\s+/iy;
const SETTING_BEFORE =
  /\b(?:set|setting|changed?|changing|reset|resetting|updated?|updating|switched)\b[^.!?\n]{0,40}$/i;
const BARE_LATIN = /\s+/y;
const BARE_CJK = /\s*/y;

const SHAPES: Record<ValueShape, RegExp> = {
  quoted: /[「『“‘"'`]([^「」『』“”‘’"'`\n]{1,80})[」』”’"'`]/y,
  // Digits in groups (`219 09 9999`, `4821-9907`, `4 8 2 1`), ending where an ASCII token would not
  // go on (`2580#` is a token), so `1234です` is digits.
  digits: /(\d(?:[ .-]\d){3,11}(?!\d)|\d+(?:[ .-]\d{2,})*)(?![A-Za-z0-9_@#$%^&*+=~/\\|])/y,
  // Letters and digits in groups, each with a digit but a short letter prefix (`E 1234 5678`).
  id: /((?:[A-Z]{1,3}[ -])?[A-Z0-9]*\d[A-Z0-9]*(?:[ -][A-Z0-9]*\d[A-Z0-9]*)*)(?![A-Za-z0-9])/iy,
  // As people type a value in ASCII: stops at spaces, quotes, brackets, commas and anything not ASCII.
  token: /((?![:=])(?:(?![,;"'()<>`])[\x21-\x7E])+)/y,
};

/**
 * No values: code that names where a value comes from (`token: \`${token}\``, `{{ secret }}`,
 * `$DB_PASSWORD`), and a note's own links (`password [[Vault]]`). An environment variable's name
 * holds a word (three capitals in a row): `$A0A00` or `$X9Y` is a password that starts with `$`, and
 * a value wrongly taken for a name would leak, where a name wrongly redacted loses nothing.
 */
const PLACEHOLDER = /\$\{|\{\{|^\$(?=[A-Z0-9_]*[A-Z]{3})[A-Z_][A-Z0-9_]*$|^process\.env\.|^\[\[|^!\[\[/;
/** A block id ends its line after a space, as Obsidian reads one: `… my bank password ^e90`. */
const BLOCK_ID = /^\^[A-Za-z0-9-]+$/;
const LINE_END = /[ \t]*(?:\n|$)/y;
const blockIdAt = (text: string, start: number, end: number) =>
  BLOCK_ID.test(text.slice(start, end)) &&
  /\s/.test(text[start - 1] ?? '') &&
  !!stickyAt(LINE_END, text, end);

/** A count, a date or a length is no value: `密码 2024 年换过`, `密码 12 位`, `8文字以上`. */
const COUNTED = /\s*[年月日号號位次个個文字桁回分秒时時点點元円万千百人岁歳天周週张張条條件]/uy;

function stickyAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** Sentence punctuation after a value is the sentence's: `PIN is 4821.` keeps the dot. */
function trimEnd(value: string): string {
  return value.replace(/[\s.!?:]+$/, '');
}

function valueAt(
  text: string,
  at: number,
  family: SecretWords,
  accept: (value: string) => boolean,
): { start: number; end: number } | null {
  for (const shape of family.shapes) {
    const match = stickyAt(SHAPES[shape], text, at);
    if (!match) continue;
    const raw = match[1] ?? '';
    const value = shape === 'quoted' ? raw : trimEnd(raw);
    const start = shape === 'quoted' ? at + 1 : at;
    if (!value || PLACEHOLDER.test(value) || blockIdAt(text, start, start + value.length) || !accept(value))
      continue;
    if (/^[\d .-]+$/.test(value) && stickyAt(COUNTED, text, start + value.length)) continue;
    return { start, end: start + value.length };
  }
  return null;
}

/** Markdown that closes around the word (`**password**`, `` `pin` ``), when the same mark opened it. */
const CLOSING_MARK = /([*_`])\1{0,2}/y;
const OPENING_MARK = /(([*_`])\2{0,2})[^\n*_`]*$/;

function closingMark(text: string, wordStart: number, wordEnd: number): number {
  const mark = stickyAt(CLOSING_MARK, text, wordEnd)?.[0];
  if (!mark) return 0;
  const opened = OPENING_MARK.exec(text.slice(Math.max(0, wordStart - 40), wordStart))?.[1];
  return opened === mark ? mark.length : 0;
}

/** Where a connector may start: right after the word, and after what the secret belongs to. */
function connectorStarts(text: string, wordStart: number, wordEnd: number): number[] {
  const at = wordEnd + closingMark(text, wordStart, wordEnd);
  const starts = [at];
  const qualifier = stickyAt(QUALIFIER, text, at);
  if (qualifier) starts.push(at + qualifier[0].length);
  return starts;
}

function afterWord(text: string, wordStart: number, wordEnd: number, family: SecretWords) {
  const latin = /[A-Za-z0-9]$/.test(text.slice(wordStart, wordEnd));
  const starts = connectorStarts(text, wordStart, wordEnd);
  for (const at of starts) {
    const connectors = [...CONNECTORS, TO];
    const { bare } = family;
    if (bare && at === starts[0]) connectors.push(latin ? BARE_LATIN : BARE_CJK);
    for (const connector of connectors) {
      const joined = stickyAt(connector, text, at);
      if (!joined) continue;
      if (connector === TO && !SETTING_BEFORE.test(text.slice(Math.max(0, wordStart - 60), wordStart)))
        continue;
      const alone = connector === BARE_LATIN || connector === BARE_CJK;
      const accept =
        alone && typeof bare === 'function' ? (v: string) => family.accept(v) && bare(v) : family.accept;
      const value = valueAt(text, at + joined[0].length, family, accept);
      if (value) return value;
    }
  }
  return null;
}

/** Every secret named by its word in `text` (the normalised view), as value spans. */
export function findSecretPhrases(text: string): PhraseHit[] {
  const hits: PhraseHit[] = [];
  for (const { family, pattern } of WORDS) {
    for (const match of text.matchAll(pattern)) {
      const start = match.index ?? 0;
      const value = afterWord(text, start, start + match[0].length, family);
      if (value) hits.push({ kind: family.kind, ...value });
    }
  }
  return hits;
}

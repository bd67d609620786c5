import { describe, expect, it } from 'vitest';
import { processTerm, tokenize } from '../../src/indexing/text/tokenize.js';

/** The two-character terms, in order: all of them are bigrams, since two-character words are not repeated. */
function bigrams(text: string): string[] {
  return tokenize(text).filter((term) => Array.from(term).length === 2);
}

describe('tokenize', () => {
  it('lower-cases English and splits on anything that is not a letter or digit', () => {
    expect(tokenize('Hello, World! Meeting at 10:30 on 2026-11-29.')).toEqual([
      'hello',
      'world',
      'meeting',
      'at',
      '10',
      '30',
      'on',
      '2026',
      '11',
      '29',
    ]);
  });

  it('joins internal apostrophes and drops a possessive s', () => {
    expect(tokenize("Don't touch Lin's notebook, O’Neill")).toEqual([
      'dont',
      'touch',
      'lin',
      'notebook',
      'oneill',
    ]);
  });

  it('keeps accented Latin and other spaced scripts as words', () => {
    expect(tokenize('Café in São Paulo, Москва')).toEqual(['café', 'in', 'são', 'paulo', 'москва']);
  });

  it('emits every overlapping bigram of a Chinese run', () => {
    expect(bigrams('我下个月搬到上海工作')).toEqual([
      '我下',
      '下个',
      '个月',
      '月搬',
      '搬到',
      '到上',
      '上海',
      '海工',
      '工作',
    ]);
  });

  it('adds the segmenter words that are not bigrams', () => {
    const terms = tokenize('我下个月搬到上海工作');
    expect(terms).toContain('下个月');
    expect(terms).toContain('我');
  });

  it('gives a two-character query its bigram and both characters', () => {
    expect(tokenize('上海')).toEqual(['上', '上海', '海']);
    expect(tokenize('搬家')).toEqual(['搬', '搬家', '家']);
  });

  it('makes one-character words findable inside longer runs', () => {
    // 猫 in a question never forms the bigram 白猫 of the note; the unigram meets.
    expect(tokenize('她的猫叫什么')).toContain('猫');
    expect(tokenize('我有一只白猫')).toContain('猫');
  });

  it('keeps a one-character run whole', () => {
    expect(tokenize('猫')).toEqual(['猫']);
    expect(tokenize('I love 猫!')).toEqual(['i', 'love', '猫']);
  });

  it('treats kana and kanji together as one Japanese run', () => {
    expect(bigrams('東京で働いています')).toEqual([
      '東京',
      '京で',
      'で働',
      '働い',
      'いて',
      'てい',
      'いま',
      'ます',
    ]);
    expect(tokenize('カタカナのテスト')).toContain('カタカナ');
  });

  it('splits mixed Chinese and Latin text at the script boundary', () => {
    const terms = tokenize('我在用Obsidian记笔记');
    expect(terms).toContain('obsidian');
    expect(terms).toContain('笔记');
    expect(terms).not.toContain('用obsidian');
  });

  it('drops emoji, including variation selectors, skin tones and keycaps', () => {
    expect(tokenize('coffee☕️ with 😀 Lin 👩🏽‍💻 1️⃣')).toEqual(['coffee', 'with', 'lin', '1']);
  });

  it('folds full-width and half-width forms with NFKC', () => {
    expect(tokenize('ＭｅｍＶａｕｌｔ　２０２６')).toEqual(['memvault', '2026']);
    expect(bigrams('ｶﾀｶﾅ')).toEqual(['カタ', 'タカ', 'カナ']);
  });

  it('counts characters, not UTF-16 units, in rare Han characters', () => {
    expect(bigrams('𠮷野家')).toEqual(['𠮷野', '野家']);
  });

  it('returns no terms for text without words', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize(' -- !! 😀 ')).toEqual([]);
  });
});

describe('processTerm', () => {
  it.each([
    ['moving', 'moved', 'moves', 'move'],
    ['hiking', 'hiked', 'hikes', 'hike'],
    ['stopped', 'stopping', 'stops', 'stop'],
    ['running', 'runs', 'run'],
    ['used', 'using', 'uses', 'use'],
    ['meetings', 'meeting', 'meet'],
    ['cities', 'city'],
    ['studied', 'studies', 'study'],
    ['tried', 'tries', 'try'],
    ['movies', 'movie'],
    ['classes', 'class'],
    ['boxes', 'box'],
    ['quickly', 'quick'],
    ['agreed', 'agree'],
    ['related', 'relate'],
    ['played', 'plays', 'play'],
    ['families', 'family'],
  ])('gives %s and its other forms one stem', (...forms: string[]) => {
    const stems = new Set(forms.map(processTerm));
    expect(stems.size).toBe(1);
  });

  it('stems to readable roots', () => {
    expect(['moving', 'hiking', 'stopped', 'visiting', 'opened', 'failed'].map(processTerm)).toEqual([
      'move',
      'hike',
      'stop',
      'visit',
      'open',
      'fail',
    ]);
  });

  it('leaves short words and words that only look inflected alone', () => {
    expect(['bus', 'gas', 'yes', 'red', 'sing', 'bring', 'speed', 'need', 'class'].map(processTerm)).toEqual([
      'bus',
      'gas',
      'yes',
      'red',
      'sing',
      'bring',
      'speed',
      'need',
      'class',
    ]);
  });

  it('strips -ly only after a valid li-ending, and turns a final consonant-y into i', () => {
    expect(['weekly', 'family', 'early', 'apply'].map(processTerm)).toEqual([
      'week',
      'famili',
      'earli',
      'appli',
    ]);
  });

  it('drops English stop words, including contractions as tokenize writes them', () => {
    expect(['the', 'and', 'is', 'dont', 'im'].map(processTerm)).toEqual([null, null, null, null, null]);
  });

  it('keeps words that are also names or meanings', () => {
    expect(['will', 'may', 'ill'].map(processTerm)).toEqual(['will', 'may', 'ill']);
  });

  it('drops Chinese function characters and words', () => {
    expect(['的', '我', '什么', '怎么'].map(processTerm)).toEqual([null, null, null, null]);
  });

  it('keeps CJK terms, digits and non-ASCII words unchanged', () => {
    expect(['猫', '上海', '2026', 'café', 'москва', 'abc123'].map(processTerm)).toEqual([
      '猫',
      '上海',
      '2026',
      'café',
      'москва',
      'abc123',
    ]);
  });

  it('drops the empty term', () => {
    expect(processTerm('')).toBe(null);
  });
});

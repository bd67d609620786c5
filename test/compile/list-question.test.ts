import { describe, expect, it } from 'vitest';
import { asksForSeveral } from '../../src/compile/list-question.js';

describe('asksForSeveral', () => {
  it.each([
    'What sports does Mei play?',
    'How many cousins does Rain have?',
    'how often do we go swimming',
    'Which countries has Mei visited?',
    'Where have we travelled together?',
    'What has Rain cooked for her parents?',
    'List the books I lent out',
    'What kinds of tea does Rain like?',
    'What kind of films do they watch?',
    'What are her hobbies?',
    'Which of my friends play chess?',
    'Did Mei and Rain both grow up by the sea?',
    'Name all the cafés we liked',
    'What children\u2019s books did she buy?',
  ])('reads %s as asking for several things', (question) => {
    expect(asksForSeveral(question)).toBe(true);
  });

  it.each([
    '我养过哪些宠物？',
    '我去过几次北京？',
    '我一共看了多少部电影？',
    '我们上周都吃了什么？',
    '列出我读过的书',
    '他有几个孩子？',
  ])('reads %s as asking for several things', (question) => {
    expect(asksForSeveral(question)).toBe(true);
  });

  it.each([
    'Where do I live?',
    'What motivates Rain to run?',
    'What helps Mei sleep?',
    'What is the name of her dog?',
    'How did the interview go?',
    'When did Mei move to Suzhou?',
    'What does Rain do for a living?',
    'Why did she quit the band?',
    '我住在哪里？',
    '我每天做什么运动？',
    '明天几点开会？',
    '我几乎忘了那本书叫什么？',
  ])('reads %s as asking for one thing', (question) => {
    expect(asksForSeveral(question)).toBe(false);
  });
});

// Each importer against a small fixture in the tool's real export format (test/fixtures/import/).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addLinesUnderHeading as addLinesUnder } from '../../src/vault/markdown/add-under-heading.js';
import { parseChatGptExport } from '../../src/write/import/chatgpt-export.js';
import { parseClaudeExport } from '../../src/write/import/claude-export.js';
import { detectFileFormat } from '../../src/write/import/detect-format.js';
import type { SkipCounts } from '../../src/write/import/import-types.js';
import { journalDay, parseJournalDay } from '../../src/write/import/journal-folder.js';
import { parseMemoryGraph } from '../../src/write/import/memory-graph.js';
import { parseVtuberHistory } from '../../src/write/import/vtuber-history.js';
import { REPO_ROOT } from '../helpers/make-vault.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/import');
const VTUBER_FILE =
  'vtuber/chat_history/mao_pro_001/4f1c2e9a0b7d4c3e8f6a5b2d1c0e9f8a_2025-11-30_23-50-00.json';
const read = (path: string) => readFile(join(FIXTURES, path), 'utf8');
const rows = (turns: Array<{ speaker?: string; text: string; at?: Date }>) =>
  turns.map((t) => [t.speaker, t.text, t.at?.toISOString()]);

describe('ChatGPT export', () => {
  // Format: the `conversations.json` of ChatGPT's Settings > Data controls > Export data
  // (https://help.openai.com/en/articles/7260999-how-do-i-export-my-chatgpt-history-and-data):
  // conversations with `mapping` (node id -> {id, message, parent, children}) and `current_node`;
  // message `author.role`, `content.content_type`/`parts`, `create_time` in unix seconds (float),
  // `recipient`, `metadata.is_visually_hidden_from_conversation`.
  it('follows the branch ending at current_node, so a regenerated answer is read once', async () => {
    const skipped: SkipCounts = {};
    const [moving, tea] = parseChatGptExport(
      JSON.parse(await read('chatgpt/conversations.json')),
      'c.json',
      skipped,
    );
    expect(moving?.title).toBe('Moving to Shanghai');
    expect(rows(moving?.turns ?? [])).toEqual([
      [
        'user',
        'I move to Shanghai next month. Which district is good for a first job at Lumen Labs?',
        '2025-11-30T15:50:00.123Z',
      ],
      ['assistant', "Jing'an or Xuhui: short commute, lots of cafés.", '2025-11-30T15:51:00.000Z'],
      ['user', 'What does a one-bedroom cost there?', '2025-11-30T16:05:00.000Z'],
      ['assistant', "About 7,000-9,000 RMB a month in Jing'an.", '2025-11-30T16:10:00.000Z'],
    ]);
    // The image part is an asset pointer object: its words are kept; a message without a time takes the conversation's.
    expect(rows(tea?.turns ?? [])).toEqual([
      ['user', 'What tea is this?', '2025-12-02T01:00:00.000Z'],
      ['assistant', 'Looks like oolong: tightly rolled leaves.', '2025-12-02T01:00:00.000Z'],
    ]);
    expect(skipped).toEqual({
      // a1 (the answer regenerated as a2) and e (an empty answer on an abandoned branch)
      'edited or regenerated branch': 2,
      // the hidden system prompt, the browser call and the tool's output
      'system or tool message': 3,
      // custom instructions
      'custom instructions': 1,
    });
  });

  it('without current_node follows the last child from the root', () => {
    const data = [
      {
        title: 't',
        create_time: 1,
        mapping: {
          r: { id: 'r', message: null, parent: null, children: ['u'] },
          u: { id: 'u', parent: 'r', children: ['a', 'b'], message: msg('user', 'hi') },
          a: { id: 'a', parent: 'u', children: [], message: msg('assistant', 'old') },
          b: { id: 'b', parent: 'u', children: [], message: msg('assistant', 'new') },
        },
      },
    ];
    expect(parseChatGptExport(data, 'c.json', {})[0]?.turns.map((t) => t.text)).toEqual(['hi', 'new']);
  });

  it('reads what was said in a voice conversation from its audio transcriptions', () => {
    const voice = {
      author: { role: 'user' },
      create_time: 1_700_000_000,
      content: {
        content_type: 'multimodal_text',
        parts: [
          { content_type: 'audio_transcription', text: 'What time is it in Tokyo?', direction: 'in' },
          { content_type: 'audio_asset_pointer', asset_pointer: 'sediment://file_1', format: 'wav' },
        ],
      },
    };
    const data = [
      {
        title: 'voice',
        current_node: 'u',
        mapping: {
          r: { id: 'r', message: null, parent: null, children: ['u'] },
          u: { id: 'u', parent: 'r', children: [], message: voice },
        },
      },
    ];
    expect(parseChatGptExport(data, 'c.json', {})[0]?.turns.map((t) => t.text)).toEqual([
      'What time is it in Tokyo?',
    ]);
  });

  it('says which conversation is broken', () => {
    expect(() => parseChatGptExport([{ mapping: {}, current_node: 'x' }], 'c.json', {})).toThrow(
      'c.json: conversation 1: current_node or a parent names x, which is not in mapping',
    );
  });
});

function msg(role: string, text: string) {
  return { author: { role }, content: { content_type: 'text', parts: [text] }, create_time: 1_700_000_000 };
}

describe('Claude export', () => {
  // Format: the `conversations.json` of Claude's Settings > Privacy > Export data
  // (https://support.anthropic.com/en/articles/9450526-how-can-i-export-my-claude-ai-data):
  // conversations with `uuid`, `name`, `created_at` and `chat_messages`
  // [{uuid, sender: 'human'|'assistant', text, content: [{type: 'text'|'thinking'|'tool_use'|…}], created_at}].
  it('reads the text blocks of each message with its ISO time, skipping empty ones', async () => {
    const skipped: SkipCounts = {};
    const [weekend, night] = parseClaudeExport(
      JSON.parse(await read('claude/conversations.json')),
      'c.json',
      'Asia/Shanghai',
      skipped,
    );
    expect(weekend?.title).toBe('Weekend plans');
    expect(rows(weekend?.turns ?? [])).toEqual([
      ['user', 'Any idea for Saturday? I want to try bouldering.', '2025-11-29T10:00:00.100Z'],
      // thinking, tool_use and tool_result blocks are the model's work, not the conversation
      ['assistant', 'Try a beginner session at a gym near you; they rent shoes.', '2025-11-29T10:00:20.000Z'],
    ]);
    // An unnamed conversation; a message with only `text` (older exports)
    expect(night?.title).toBe('conversation 2');
    expect(rows(night?.turns ?? [])).toEqual([
      ['user', 'Good night!', '2025-11-30T17:30:00.000Z'],
      ['assistant', 'Sleep well.', '2025-11-30T17:30:05.000Z'],
    ]);
    expect(skipped).toEqual({ 'empty message': 1 });
  });
});

describe('Open-LLM-VTuber chat history', () => {
  // Format: chat_history/<conf_uid>/<history_uid>.json as written by Open-LLM-VTuber's
  // src/open_llm_vtuber/chat_history_manager.py (create_new_history, store_message): a JSON array,
  // first {role: 'metadata', timestamp}, then {role: 'human'|'ai', timestamp, content, name?, avatar?}
  // with local times from datetime.now().isoformat(timespec='seconds') (no offset).
  it("reads local timestamps in the vault's zone and names the AI by its name unless the vault names it", async () => {
    const data = JSON.parse(await read(VTUBER_FILE));
    const skipped: SkipCounts = {};
    const history = parseVtuberHistory(data, 'h.json', 'Asia/Shanghai', {}, skipped);
    expect(rows(history.turns)).toEqual([
      ['user', '今天好累', '2025-11-30T15:50:10.000Z'],
      ['Mao', '早点休息吧，明天还要上班呢。', '2025-11-30T15:50:15.000Z'],
      ['user', '晚安', '2025-11-30T16:02:00.000Z'],
    ]);
    expect(skipped).toEqual({ 'empty message': 1 });
    const named = parseVtuberHistory(data, 'h.json', 'Asia/Shanghai', { assistant: '小满' }, {});
    expect(named.turns[1]?.speaker).toBe('assistant');
  });
});

describe('MCP memory graph', () => {
  // Format: memory.jsonl of the reference MCP memory server (github.com/modelcontextprotocol/servers,
  // src/memory/index.ts saveGraph): one JSON object a line,
  // {"type":"entity","name","entityType","observations":[…]} or {"type":"relation","from","to","relationType"}.
  it('reads entities and relations', async () => {
    const graph = parseMemoryGraph(await read('mcp-memory/memory.jsonl'), 'memory.jsonl');
    expect(graph.entities.map((e) => [e.name, e.entityType, e.observations.length])).toEqual([
      ['default_user', 'person', 2],
      ['Mei', 'person', 1],
      ['Lumen_Labs', 'organization', 1],
    ]);
    expect(graph.relations).toEqual([
      { from: 'default_user', to: 'Lumen_Labs', relationType: 'works_at' },
      { from: 'default_user', to: 'Mei', relationType: 'is_friends_with' },
    ]);
  });

  it('says which line is broken', () => {
    expect(() => parseMemoryGraph('{"type":"entity","name":"a"}\n{"type":"other"}\n', 'm.jsonl')).toThrow(
      'm.jsonl:2: expected {"type":"entity","name",…} or {"type":"relation","from","to","relationType"}',
    );
  });

  it('adds only the facts a section lacks, after its last line, keeping the rest byte for byte', () => {
    const note = '# Mei\n\n## Facts\n- Closest friend\n- (edited by hand)\n\n## Other\ntext\n';
    expect(addLinesUnder(note, 'Facts', ['- Closest friend', '- Likes tea'])).toEqual({
      text: '# Mei\n\n## Facts\n- Closest friend\n- (edited by hand)\n- Likes tea\n\n## Other\ntext\n',
      added: 1,
    });
    expect(addLinesUnder(note, 'Facts', ['- Closest friend'])).toEqual({ text: note, added: 0 });
    expect(addLinesUnder('# Mei\n', 'Relations', ['- knows [[Rain]]']).text).toBe(
      '# Mei\n\n## Relations\n- knows [[Rain]]\n',
    );
  });

  it('reads a heading inside a four-backtick fence as code, as reflect does', () => {
    // The importer's own line scanner closed the ```` fence at its first ``` line.
    const note = '# Mei\n\n````md\n```\n## Facts\n```\n````\n\n## Facts\n- Likes tea\n';
    expect(addLinesUnder(note, 'Facts', ['- Closest friend'])).toEqual({
      text: '# Mei\n\n````md\n```\n## Facts\n```\n````\n\n## Facts\n- Likes tea\n- Closest friend\n',
      added: 1,
    });
  });
});

describe('Markdown journals', () => {
  it('finds the day in any date-named layout', () => {
    expect(
      [
        '2024-03-05.md',
        '2024/03/06.md',
        '20240307.md',
        'Journal/2024_03_08 Friday.md',
        '2024/03/2024-03-09.md',
      ].map(journalDay),
    ).toEqual(['2024-03-05', '2024-03-06', '2024-03-07', '2024-03-08', '2024-03-09']);
    expect(['notes/ideas.md', '2024-02-30.md', 'v1234567890.md'].map(journalDay)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('makes each paragraph and list item an entry, with a leading time when written', async () => {
    expect(parseJournalDay(await read('journals/2024-03-05.md'), '2024-03-05')).toEqual([
      {
        speaker: 'user',
        text: 'Rained all day. Finished the moving checklist\nand booked the truck.',
        day: '2024-03-05',
        time: '00:00',
      },
      { speaker: 'user', text: '[x] call the landlord', day: '2024-03-05', time: '00:00' },
      { speaker: 'user', text: 'Mei called about the goodbye hike', day: '2024-03-05', time: '21:15' },
    ]);
  });
});

describe('format detection', () => {
  it('tells each export from its content', async () => {
    expect(detectFileFormat(await read('chatgpt/conversations.json'), 'conversations.json')).toBe('chatgpt');
    expect(detectFileFormat(await read('claude/conversations.json'), 'conversations.json')).toBe('claude');
    expect(detectFileFormat(await read('mcp-memory/memory.jsonl'), 'memory.jsonl')).toBe('mcp-memory');
    expect(detectFileFormat(await read(VTUBER_FILE), 'h.json')).toBe('vtuber');
    expect(detectFileFormat('', '2024-03-05.md')).toBe('journal');
  });

  it('refuses a file of no known format, naming the formats it reads', async () => {
    expect(() => detectFileFormat(JSON.stringify([{ role: 'user', content: 'hi' }]), 'chat.json')).toThrow(
      /^chat\.json: the content matches no format mem import reads; mem import reads ChatGPT's or Claude's conversations\.json/,
    );
    expect(() => detectFileFormat('[{"title":"x", oops', 'broken.json')).toThrow(
      /^broken\.json: not valid JSON/,
    );
  });
});

// The web page of `mem serve`: the vault's days, recall's score parts, and the context compile
// gave the model for any turn. Everything it shows comes from the JSON routes of the same server.
// Notes are untrusted text: it is only ever set with textContent or as a text node (never as
// markup), and links are built from '#' and URLSearchParams alone. The page's state (the token,
// the day, what the panel shows) lives in the URL fragment, which the browser never sends.

const $ = (id) => document.getElementById(id);

/** The fragment's parameters: token, agent_id, user_id, day, and one of q (with now), turn, note (with at). */
const state = () => new URLSearchParams(location.hash.slice(1));

/** What the panel shows: one of these at a time. */
const PANEL_KEYS = ['q', 'turn', 'note', 'at'];

/** A fragment link that keeps the token (and ids, day, now) and sets `changes` (null removes a key). */
function linkTo(changes) {
  const params = state();
  if (Object.keys(changes).some((key) => PANEL_KEYS.includes(key)))
    for (const key of PANEL_KEYS) params.delete(key);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === '') params.delete(key);
    else params.set(key, value);
  }
  return `#${params.toString()}`;
}

/** An element with properties (`text` sets textContent, `data-*` sets attributes) and children (strings become text nodes). */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined) continue;
    if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else if (key.startsWith('data-') || key.startsWith('aria-')) node.setAttribute(key, String(value));
    else node[key] = value;
  }
  node.append(...children.filter((child) => child !== undefined && child !== null));
  return node;
}

/** A JSON route of this server, with the token and the vault ids of the fragment. */
async function api(path, body) {
  const params = state();
  const headers = {};
  const token = params.get('token');
  if (token) headers.authorization = `Bearer ${token}`;
  const ids = {};
  for (const key of ['agent_id', 'user_id']) if (params.get(key)) ids[key] = params.get(key);
  let url = path;
  const init = { headers };
  if (body) {
    init.method = 'POST';
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify({ ...body, ...ids });
  } else if (Object.keys(ids).length > 0) {
    url += `${path.includes('?') ? '&' : '?'}${new URLSearchParams(ids)}`;
  }
  const response = await fetch(url, init);
  const data = await response.json().catch(() => ({}));
  if (response.status === 401)
    throw new Error('this server asks for its token: open the URL mem serve printed (it ends in #token=…)');
  if (!response.ok) throw new Error(data.error ?? `HTTP ${response.status}`);
  return data;
}

const notePath = (path) => path.split('/').map(encodeURIComponent).join('/');

/** A bar: `used` of `budget` (the fill), its track `share` (0..1) of the widest bar. */
function bar(used, budget, share = 1, label = '') {
  const fill = el('span', { class: used > budget ? 'fill over' : 'fill' });
  fill.style.width = `${budget > 0 ? Math.min(100, (used / budget) * 100) : 0}%`;
  const track = el('span', { class: 'track', 'data-used': used, 'data-budget': budget, title: label }, fill);
  track.style.width = `${Math.max(2, share * 100)}%`;
  return el('span', { class: 'bar' }, track);
}

function showError(where, error) {
  where.replaceChildren(el('p', { class: 'error', role: 'alert', text: error.message ?? String(error) }));
}

function setPanel(title, hint, ...children) {
  $('panel-title').textContent = title;
  $('panel-hint').textContent = hint;
  $('panel-body').replaceChildren(...children.filter((child) => child !== undefined));
}

// --- The timeline ---

let daysShown = false;
/** The newest day: shown until another is picked */
let newestDay = null;
const currentDay = () => state().get('day') ?? newestDay;

async function showDays() {
  if (daysShown) return markCurrent();
  const list = $('day-list');
  try {
    const { days } = await api('/days');
    daysShown = true;
    newestDay = days[0]?.date ?? null;
    if (days.length === 0) list.replaceChildren(el('li', { class: 'hint', text: 'no days written yet' }));
    else
      list.replaceChildren(
        ...days.map((day) =>
          el(
            'li',
            {},
            el(
              'a',
              { class: 'day', href: linkTo({ day: day.date }), 'data-date': day.date },
              el('span', { class: 'date', text: day.date }),
              el('span', {
                class: 'meta',
                text: `${day.entries} entries${day.first ? ` · ${day.first}–${day.last}` : ''}`,
              }),
              el('span', { class: 'speakers', text: day.speakers.join(', ') }),
            ),
          ),
        ),
      );
  } catch (error) {
    showError(list, error);
  }
  markCurrent();
}

/** Marks the open day and turn; day links keep the rest of the fragment current. */
function markCurrent() {
  const params = state();
  for (const link of document.querySelectorAll('a.day')) {
    link.href = linkTo({ day: link.dataset.date });
    link.classList.toggle('current', link.dataset.date === currentDay());
  }
  for (const link of document.querySelectorAll('a.entry')) {
    link.href = linkTo({ turn: link.dataset.id });
    link.classList.toggle('current', link.dataset.id === params.get('turn'));
  }
}

let dayShown = null;
async function showDay(date) {
  if (!date || date === dayShown) return;
  dayShown = date;
  $('day-title').textContent = date;
  const list = $('entries');
  try {
    const { entries } = await api(`/days/${encodeURIComponent(date)}`);
    list.replaceChildren(
      ...entries.map((entry) =>
        el(
          'li',
          {},
          el(
            'a',
            {
              class: 'entry',
              href: linkTo({ turn: entry.id }),
              'data-id': entry.id,
              title: 'the context for this turn',
            },
            el('span', { class: 'time', text: entry.time ?? '' }),
            el('span', { class: 'speaker', text: entry.speaker ?? '' }),
            el('span', { class: 'text', text: entry.text }),
          ),
        ),
      ),
    );
  } catch (error) {
    showError(list, error);
  }
}

// --- The panel: search, a turn's context, a note ---

const PARTS = [
  ['text', 'text'],
  ['graph', 'links'],
  ['recency', 'recency'],
  ['importance', 'importance'],
  ['layer', 'layer'],
  ['semantic', 'semantic'],
];

async function showSearch(query, now) {
  setPanel(`Search: ${query}`, 'The score breakdown mem recall --explain prints, best first.');
  try {
    const result = await api('/recall', { query, k: 10, ...(now ? { now } : {}) });
    const notes = [];
    if (result.range) notes.push(el('p', { class: 'hint', text: `range: ${result.range.reason}` }));
    if (result.warning) notes.push(el('p', { class: 'error', text: result.warning }));
    if (result.hits.length === 0) notes.push(el('p', { class: 'hint', text: 'no memories found' }));
    $('panel-body').replaceChildren(...notes, el('ol', { class: 'hits' }, ...result.hits.map(hitItem)));
  } catch (error) {
    showError($('panel-body'), error);
  }
}

function hitItem(hit) {
  const when = [hit.date, hit.time, hit.speaker].filter(Boolean).join(' ');
  const parts = PARTS.filter(([key]) => hit.parts[key] !== undefined).map(([key, name]) =>
    el(
      'li',
      { class: 'part', 'data-part': key },
      el('span', { class: 'name', text: name }),
      bar(hit.parts[key], 1, 1, `${name} ${hit.parts[key]}`),
      el('span', { class: 'value', text: String(hit.parts[key]) }),
    ),
  );
  return el(
    'li',
    { class: 'hit', 'data-id': hit.id },
    el(
      'div',
      { class: 'head' },
      el('a', { class: 'cite', href: linkTo({ note: hit.path, at: hit.anchor }), text: hit.link }),
      el('span', { class: 'meta', text: [hit.layer, when].filter(Boolean).join(' · ') }),
      el('span', { class: 'score', text: hit.score.toFixed(3) }),
    ),
    el('p', { class: 'snippet', text: hit.snippet }),
    el('ul', { class: 'parts' }, ...parts),
    el('p', { class: 'why', text: `why: ${hit.reasons.join('; ')}` }),
  );
}

async function showTurn(id) {
  setPanel('Context of a turn', 'Loading…');
  try {
    const { entry, now, compile } = await api(`/turn?entry=${encodeURIComponent(id)}`);
    const title = `Context for ${entry.date} ${entry.time ?? ''} ${entry.speaker ?? ''}`.replace(/\s+/g, ' ');
    const widest = Math.max(1, ...compile.sections.map((section) => section.budget));
    const row = (name, used, budget, share) =>
      el(
        'li',
        { class: 'budget-row', 'data-section': name },
        el('span', { class: 'name', text: name }),
        bar(used, budget, share, `${used} of ${budget} tokens`),
        el('span', { class: 'value', text: `${used} / ${budget}` }),
      );
    const budget = el(
      'ol',
      { class: 'budget', 'aria-label': "tokens used of each section's budget" },
      row('total', compile.used, compile.budget, 1),
      ...compile.sections.map((section) =>
        row(section.name, section.used, section.budget, section.budget / widest),
      ),
    );
    const sections = compile.sections.map((section) =>
      el(
        'div',
        { class: 'section', 'data-section': section.name },
        el('h3', { text: `${section.name} · ${section.items.length} items · ${section.used} tokens` }),
        el('ol', { class: 'items' }, ...section.items.map(compiledItem)),
      ),
    );
    setPanel(
      title,
      `compile of this turn's text at ${now} (the vault's time; ${compile.tokenizer}), from the vault as it is now`,
      el('blockquote', { class: 'turn', text: entry.text }),
      budget,
      compile.range ? el('p', { class: 'hint', text: `range: ${compile.range.reason}` }) : undefined,
      ...sections,
      el(
        'details',
        { class: 'document' },
        el('summary', { text: 'the document the model got' }),
        el('pre', { text: compile.markdown }),
      ),
    );
  } catch (error) {
    showError($('panel-body'), error);
  }
}

function compiledItem(item) {
  const link = item.anchor ? `${item.path}#${item.anchor}` : item.path;
  return el(
    'li',
    { class: 'item' },
    el(
      'div',
      { class: 'head' },
      el('a', { class: 'cite', href: linkTo({ note: item.path, at: item.anchor }), text: item.title }),
      el('span', { class: 'meta', text: link }),
      el('span', {
        class: 'meta',
        text: `${item.tokens} tokens · ${item.reason}${item.cut ? ' · cut' : ''} · ${item.score.toFixed(3)}`,
      }),
    ),
    el('p', { class: 'item-text', text: item.text }),
  );
}

async function showNote(path, anchor) {
  setPanel(path, 'Loading…');
  try {
    const note = await api(`/markdown/${notePath(path)}`);
    const lines = note.markdown.split('\n');
    const marked = markedLine(lines, anchor);
    const pre = el(
      'pre',
      { class: 'markdown' },
      ...lines.map((line, i) => el('span', { class: i === marked ? 'line marked' : 'line', text: line })),
    );
    setPanel(note.title, note.path, pre);
    pre.querySelector('.marked')?.scrollIntoView({ block: 'center' });
  } catch (error) {
    showError($('panel-body'), error);
  }
}

/** The line an anchor names: an entry's `^id` at its end, or a heading's text. */
function markedLine(lines, anchor) {
  if (!anchor) return -1;
  if (anchor.startsWith('^')) return lines.findIndex((line) => line.trimEnd().endsWith(` ${anchor}`));
  return lines.findIndex((line) => /^#{1,6}\s/.test(line) && line.replace(/^#+\s+/, '').trim() === anchor);
}

// --- Wiring ---

let panelShown = '';
async function render() {
  const params = state();
  const query = params.get('q');
  if (query !== null && $('query') !== document.activeElement) $('query').value = query;
  if (params.get('now') !== null) $('now').value = params.get('now');
  await showDays();
  await showDay(currentDay());
  markCurrent();
  const panel = PANEL_KEYS.map((key) => `${key}=${params.get(key) ?? ''}`).join('&') + params.get('now');
  if (panel === panelShown) return;
  panelShown = panel;
  if (params.get('note')) await showNote(params.get('note'), params.get('at'));
  else if (params.get('turn')) await showTurn(params.get('turn'));
  else if (query) await showSearch(query, params.get('now'));
}

$('search').addEventListener('submit', (event) => {
  event.preventDefault();
  location.hash = linkTo({ q: $('query').value.trim(), now: $('now').value.trim() });
});

async function showStatus() {
  try {
    const health = await api('/health');
    $('status').textContent = `${health.notes} notes${health.partial ? ' (indexing…)' : ''}`;
  } catch (error) {
    $('status').textContent = error.message;
    $('status').className = 'error';
  }
}

let rendering = Promise.resolve();
const rerender = () => {
  rendering = rendering.then(render, render);
  return rendering;
};
window.addEventListener('hashchange', rerender);
await showStatus();
await rerender();
document.body.dataset.ready = 'true';

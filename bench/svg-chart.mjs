// Log–log line charts as standalone SVG, with no dependency: cost against vault size for
// bench/results/scale-*.svg. A pure function from numbers to text, so a test can check it.

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

/**
 * @typedef {{ x: number, y: number }} Point
 * @typedef {{ name: string, points: Point[], dashed?: boolean }} Series
 * @typedef {{
 *   title: string,
 *   xLabel: string,
 *   yLabel: string,
 *   series: Series[],
 *   width?: number,
 *   height?: number,
 *   formatX?: (value: number) => string,
 *   formatY?: (value: number) => string,
 *   xUnits?: Units,
 *   yUnits?: Units,
 * }} Chart
 * @typedef {[name: string, size: number][]} Units  an axis's units, smallest first, each with its size
 *   in the data's own unit (for MiB data: [['MiB', 1], ['GiB', 1024]])
 */

/** Time in milliseconds. */
export const TIME_UNITS = /** @type {Units} */ ([
  ['ms', 1],
  ['s', 1000],
]);

/** Memory in mebibytes. */
export const SIZE_UNITS = /** @type {Units} */ ([
  ['MiB', 1],
  ['GiB', 1024],
]);

/** 1, 10, 100, 1k, 10k, 1M: a power of ten written short. */
export function formatCount(value) {
  if (value >= 1e6) return `${trim(value / 1e6)}M`;
  if (value >= 1e3) return `${trim(value / 1e3)}k`;
  return trim(value);
}

/** Milliseconds written short: 0.1 ms, 10 ms, 1 s, 100 s. */
export function formatMs(value) {
  return value >= 1000 ? `${trim(value / 1000)} s` : `${trim(value)} ms`;
}

/** Mebibytes written short: 10 MiB, 1 GiB. */
export function formatMiB(value) {
  return value >= 1024 ? `${trim(value / 1024)} GiB` : `${trim(value)} MiB`;
}

/**
 * Tick labels of one axis, all in one unit: the largest unit in which every tick is a round number
 * (three significant digits at most) and the smallest tick is at least 0.1; else the smallest unit.
 * Formatting each tick on its own put "9.77 GiB" above "1000 MiB": two units, and a value nobody
 * chose, on one axis.
 * @param {number[]} ticks
 * @param {Units} units
 * @returns {string[]}
 */
export function axisLabels(ticks, units) {
  const round = (n) => Number(n.toPrecision(3)) === n;
  const fits = ([, size]) => ticks.every((t) => round(t / size)) && Math.min(...ticks) / size >= 0.1;
  const [name, size] = [...units].reverse().find(fits) ?? units[0] ?? ['', 1];
  return ticks.map(
    (t) => `${(t / size).toLocaleString('en', { maximumFractionDigits: 20 })}${name ? ` ${name}` : ''}`,
  );
}

function trim(value) {
  return String(Number(value.toPrecision(3)));
}

function escapeXml(text) {
  return String(text).replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );
}

/** Whole decades that hold every value; at least one decade wide. */
export function decades(values) {
  const logs = values.map(Math.log10);
  let lo = Math.floor(Math.min(...logs));
  let hi = Math.ceil(Math.max(...logs));
  if (hi === lo) hi = lo + 1;
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 1];
  return { lo, hi };
}

const drawable = (p) => Number.isFinite(p.x) && Number.isFinite(p.y) && p.x > 0 && p.y > 0;

/**
 * An SVG line chart with both axes in log10: one gridline per decade, one polyline and one circle
 * per point for each series. Points that a log axis cannot show (zero, negative, missing) are left
 * out and named under the chart, so nothing disappears silently.
 * @param {Chart} chart
 * @returns {string}
 */
export function logLogChart(chart) {
  const width = chart.width ?? 760;
  const height = chart.height ?? 420;
  const formatX = chart.formatX ?? formatCount;
  const formatY = chart.formatY ?? formatCount;
  const margin = { left: 76, right: 250, top: 40, bottom: 56 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const shown = chart.series.map((s) => ({ ...s, points: s.points.filter(drawable) }));
  const hidden = chart.series.flatMap((s) =>
    s.points.filter((p) => !drawable(p)).map((p) => `${s.name} at ${p.x}`),
  );
  const all = shown.flatMap((s) => s.points);
  const xd = decades(all.length ? all.map((p) => p.x) : [1]);
  const yd = decades(all.length ? all.map((p) => p.y) : [1]);
  const px = (x) => margin.left + ((Math.log10(x) - xd.lo) / (xd.hi - xd.lo)) * plotW;
  const py = (y) => margin.top + plotH - ((Math.log10(y) - yd.lo) / (yd.hi - yd.lo)) * plotH;
  const f = (n) => n.toFixed(1);
  const decadeTicks = ({ lo, hi }) => Array.from({ length: hi - lo + 1 }, (_, i) => 10 ** (lo + i));
  const xTicks = decadeTicks(xd);
  const yTicks = decadeTicks(yd);
  const xLabels = chart.xUnits ? axisLabels(xTicks, chart.xUnits) : xTicks.map(formatX);
  const yLabels = chart.yUnits ? axisLabels(yTicks, chart.yUnits) : yTicks.map(formatY);

  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12" data-x-scale="log10" data-y-scale="log10">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${f(margin.left + plotW / 2)}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];
  // Gridlines and tick labels, one per decade; light minor gridlines at 2..9 × each decade.
  for (let d = xd.lo; d <= xd.hi; d++) {
    const x = px(10 ** d);
    out.push(
      `<line class="grid-x" data-value="${10 ** d}" x1="${f(x)}" y1="${margin.top}" x2="${f(x)}" y2="${margin.top + plotH}" stroke="#bbb"/>`,
      `<text class="tick-x" x="${f(x)}" y="${margin.top + plotH + 18}" text-anchor="middle">${escapeXml(xLabels[d - xd.lo] ?? '')}</text>`,
    );
    for (let m = 2; d < xd.hi && m <= 9; m++) {
      const xm = px(m * 10 ** d);
      out.push(
        `<line x1="${f(xm)}" y1="${margin.top}" x2="${f(xm)}" y2="${margin.top + plotH}" stroke="#eee"/>`,
      );
    }
  }
  for (let d = yd.lo; d <= yd.hi; d++) {
    const y = py(10 ** d);
    out.push(
      `<line class="grid-y" data-value="${10 ** d}" x1="${margin.left}" y1="${f(y)}" x2="${margin.left + plotW}" y2="${f(y)}" stroke="#bbb"/>`,
      `<text class="tick-y" x="${margin.left - 6}" y="${f(y + 4)}" text-anchor="end">${escapeXml(yLabels[d - yd.lo] ?? '')}</text>`,
    );
    for (let m = 2; d < yd.hi && m <= 9; m++) {
      const ym = py(m * 10 ** d);
      out.push(
        `<line x1="${margin.left}" y1="${f(ym)}" x2="${margin.left + plotW}" y2="${f(ym)}" stroke="#eee"/>`,
      );
    }
  }
  out.push(
    `<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`,
    `<text x="${f(margin.left + plotW / 2)}" y="${height - 14}" text-anchor="middle">${escapeXml(chart.xLabel)} (log scale)</text>`,
    `<text transform="translate(16 ${f(margin.top + plotH / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)} (log scale)</text>`,
  );
  shown.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const sorted = [...s.points].sort((a, b) => a.x - b.x);
    const dashAttr = s.dashed ? ' stroke-dasharray="6 3"' : '';
    if (sorted.length > 1) {
      const coords = sorted.map((p) => `${f(px(p.x))},${f(py(p.y))}`).join(' ');
      out.push(`<polyline points="${coords}" fill="none" stroke="${color}" stroke-width="2"${dashAttr}/>`);
    }
    for (const p of sorted) {
      out.push(
        `<circle class="point" data-series="${escapeXml(s.name)}" data-x="${p.x}" data-y="${p.y}" cx="${f(px(p.x))}" cy="${f(py(p.y))}" r="4" fill="${color}"><title>${escapeXml(`${s.name}: ${formatX(p.x)} → ${formatY(p.y)}`)}</title></circle>`,
      );
    }
    const ly = margin.top + 8 + i * 20;
    const lx = margin.left + plotW + 14;
    out.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="${color}" stroke-width="2"${dashAttr}/>`,
      `<circle cx="${lx + 11}" cy="${ly}" r="3.5" fill="${color}"/>`,
      `<text x="${lx + 28}" y="${ly + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  if (hidden.length) {
    out.push(
      `<text class="not-drawn" x="${margin.left}" y="${height - 2}" font-size="10" fill="#666">not drawn (no positive value): ${escapeXml(hidden.join(', '))}</text>`,
    );
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { scaleCharts } from '../../bench/scale-report.mjs';
import {
  axisLabels,
  decades,
  formatMiB,
  formatMs,
  logLogChart,
  SIZE_UNITS,
  TIME_UNITS,
  // @ts-expect-error: a plain .mjs script without types
} from '../../bench/svg-chart.mjs';
import { REPO_ROOT } from '../helpers/make-vault.js';

type Circle = { series: string; x: number; y: number; cx: number; cy: number };

function circles(svg: string): Circle[] {
  return [
    ...svg.matchAll(
      /<circle class="point" data-series="([^"]*)" data-x="([^"]+)" data-y="([^"]+)" cx="([^"]+)" cy="([^"]+)"/g,
    ),
  ].map((m) => ({
    series: m[1] ?? '',
    x: Number(m[2]),
    y: Number(m[3]),
    cx: Number(m[4]),
    cy: Number(m[5]),
  }));
}

function gridlines(svg: string, axis: 'x' | 'y'): { value: number; at: number }[] {
  const re =
    axis === 'x'
      ? /<line class="grid-x" data-value="([^"]+)" x1="([^"]+)"/g
      : /<line class="grid-y" data-value="([^"]+)" x1="[^"]+" y1="([^"]+)"/g;
  return [...svg.matchAll(re)].map((m) => ({ value: Number(m[1]), at: Number(m[2]) }));
}

const chart = {
  title: 'Cold index <CPU>',
  xLabel: 'notes',
  yLabel: 'CPU',
  formatY: formatMs,
  series: [
    {
      name: 'mem index',
      points: [
        { x: 1000, y: 6200 },
        { x: 10_000, y: 33_900 },
        { x: 100_000, y: 368_000 },
      ],
    },
    {
      name: 'qmd & co',
      dashed: true,
      points: [
        { x: 1000, y: 1600 },
        { x: 10_000, y: 11_000 },
      ],
    },
  ],
};

describe('logLogChart', () => {
  it('draws every point of every series, at its own value', () => {
    const svg = logLogChart(chart);
    const drawn = circles(svg);
    expect(drawn).toHaveLength(5);
    for (const series of chart.series) {
      for (const p of series.points) {
        expect(drawn).toContainEqual(
          expect.objectContaining({ series: series.name.replace('&', '&amp;'), ...p }),
        );
      }
    }
    // One line per series with more than one point, and a legend entry for each.
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain('stroke-dasharray');
    expect(svg).toContain('>mem index</text>');
    expect(svg).toContain('>qmd &amp; co</text>');
    expect(svg).toContain('Cold index &lt;CPU&gt;');
  });

  it('puts equal ratios at equal distances on both axes (log10 scales)', () => {
    const svg = logLogChart(chart);
    expect(svg).toContain('data-x-scale="log10"');
    const mem = circles(svg).filter((c) => c.series === 'mem index');
    const [a, b, c] = mem.sort((p, q) => p.x - q.x);
    // x: 1k, 10k and 100k are one decade apart each, so equally spaced.
    expect(b!.cx - a!.cx).toBeCloseTo(c!.cx - b!.cx, 0);
    expect(b!.cx - a!.cx).toBeGreaterThan(50);
    // y: the distance between two points is proportional to log10 of their ratio (SVG y grows down).
    const perDecade = (a!.cy - b!.cy) / Math.log10(b!.y / a!.y);
    expect((b!.cy - c!.cy) / Math.log10(c!.y / b!.y)).toBeCloseTo(perDecade, 0);

    // Gridlines are the decades that hold the data, evenly spaced, labelled short.
    const xs = gridlines(svg, 'x');
    expect(xs.map((g) => g.value)).toEqual([1000, 10_000, 100_000]);
    expect(xs[1]!.at - xs[0]!.at).toBeCloseTo(xs[2]!.at - xs[1]!.at, 0);
    expect(xs[0]!.at).toBeCloseTo(a!.cx, 0);
    const ys = gridlines(svg, 'y');
    expect(ys.map((g) => g.value)).toEqual([1000, 10_000, 100_000, 1_000_000]);
    expect(ys[0]!.at - ys[1]!.at).toBeCloseTo(ys[2]!.at - ys[3]!.at, 0);
    expect(ys[0]!.at - ys[1]!.at).toBeCloseTo(perDecade, 0);
    expect(svg).toContain('>1k</text>');
    expect(svg).toContain('>100k</text>');
    expect(svg).toContain('>1 s</text>');
    expect(svg).toContain('>1000 s</text>');
  });

  it('names the points a log axis cannot show instead of dropping them silently', () => {
    const svg = logLogChart({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        {
          name: 'rg',
          points: [
            { x: 1000, y: 0 },
            { x: 10_000, y: 4 },
          ],
        },
      ],
    });
    expect(circles(svg)).toHaveLength(1);
    expect(svg).toMatch(/not drawn \(no positive value\): rg at 1000/);
  });

  it('widens a single value to one whole decade', () => {
    expect(decades([5])).toEqual({ lo: 0, hi: 1 });
    expect(decades([0.3, 2500])).toEqual({ lo: -1, hi: 4 });
  });
});

function tickLabels(svg: string, axis: 'x' | 'y'): string[] {
  const re = new RegExp(`<text class="tick-${axis}"[^>]*>([^<]*)</text>`, 'g');
  return [...svg.matchAll(re)].map((m) => m[1] ?? '');
}

describe('axisLabels', () => {
  it('writes every tick of an axis in one unit, the largest in which each is a round number', () => {
    // Decades of MiB are not round in GiB (10,000 MiB is 9.77 GiB), so the whole axis stays in MiB.
    expect(axisLabels([10, 100, 1000, 10_000], SIZE_UNITS)).toEqual([
      '10 MiB',
      '100 MiB',
      '1,000 MiB',
      '10,000 MiB',
    ]);
    expect(axisLabels([100, 1000, 10_000, 100_000], TIME_UNITS)).toEqual(['0.1 s', '1 s', '10 s', '100 s']);
    // A tick under a tenth of a second keeps the axis in ms.
    expect(axisLabels([0.01, 1, 100, 10_000], TIME_UNITS)).toEqual([
      '0.01 ms',
      '1 ms',
      '100 ms',
      '10,000 ms',
    ]);
    expect(axisLabels([1024, 2048], SIZE_UNITS)).toEqual(['1 GiB', '2 GiB']);
  });

  it('labels a memory axis that crosses 1 GiB in one unit, where formatting each tick alone mixed two', () => {
    const series = [
      {
        name: 'rss',
        points: [
          { x: 1000, y: 150 },
          { x: 100_000, y: 9000 },
        ],
      },
    ];
    const mixed = logLogChart({ title: 't', xLabel: 'x', yLabel: 'y', formatY: formatMiB, series });
    expect(tickLabels(mixed, 'y')).toContain('9.77 GiB');
    const one = logLogChart({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      formatY: formatMiB,
      yUnits: SIZE_UNITS,
      series,
    });
    expect(tickLabels(one, 'y')).toEqual(['100 MiB', '1,000 MiB', '10,000 MiB']);
    // The tooltip of a point still says its own value the short way.
    expect(one).toContain('rss: 100k → 8.79 GiB');
  });
});

describe('the scale charts drawn from the committed results', () => {
  const results = JSON.parse(readFileSync(join(REPO_ROOT, 'bench/results/scale.json'), 'utf8'));
  const charts = scaleCharts(results) as Record<string, string>;

  it('are the SVG files in bench/results (regenerated with node bench/scale-report.mjs)', () => {
    for (const [name, svg] of Object.entries(charts)) {
      expect(readFileSync(join(REPO_ROOT, 'bench/results', name), 'utf8'), name).toBe(svg);
    }
  });

  it('label each y axis in one unit, with round values', () => {
    for (const [name, svg] of Object.entries(charts)) {
      const labels = tickLabels(svg, 'y');
      expect(labels.length, name).toBeGreaterThan(1);
      const units = new Set(labels.map((l) => l.split(' ')[1]));
      expect(units.size, `${name}: ${labels.join(', ')}`).toBe(1);
      for (const label of labels) expect(label, name).toMatch(/^(0\.0*1|(1|10|100)(,000)*) (ms|s|MiB|GiB)$/);
    }
    // Memory in MiB at any size of the committed results (a top tick once read 9.77 GiB above
    // 1000 MiB; the axis crossing 1 GiB has its own test above).
    expect(tickLabels(charts['scale-rss.svg'] ?? '', 'y').at(-1)).toMatch(/^1(0|,000)* MiB$/);
  });

  it('show the query a command line pays by default, the daemon answering, beside qmd', () => {
    const drawn = circles(charts['scale-query.svg'] ?? '');
    const at = (series: string, x: number) => drawn.find((c) => c.series === series && c.x === x);
    const daemon = at('mem recall + its daemon', 100_000);
    const qmd = at('qmd search (process)', 100_000);
    const opening = at('mem recall --no-server (process)', 100_000);
    const vault = results.vaults.find((v: { notes: number }) => v.notes === 100_000);
    expect(daemon?.y).toBe(vault.daemon.recall.totalCpuMs.p50);
    // The text says a daemon-answered query costs about half of a qmd search at 100k notes; the
    // chart must show the same, and the process that opens the index (4× qmd since cache schema 12,
    // 25× before) beside it, above qmd: its point is the results' own median.
    expect(daemon!.y / qmd!.y).toBeGreaterThan(0.3);
    expect(daemon!.y / qmd!.y).toBeLessThan(0.7);
    expect(daemon!.cy).toBeGreaterThan(qmd!.cy);
    expect(opening!.y).toBe(vault.processQuery.mem.cpuMs.p50);
    expect(opening!.y / qmd!.y).toBeGreaterThan(1);
    expect(opening!.cy).toBeLessThan(qmd!.cy);
    expect(at('mem recall + its daemon', 10_000)?.y).toBe(
      results.vaults.find((v: { notes: number }) => v.notes === 10_000).daemon.recall.totalCpuMs.p50,
    );
    // Below daemon.minNotes no daemon starts, so the 1k vault has no such point.
    expect(at('mem recall + its daemon', 1000)).toBeUndefined();
  });
});

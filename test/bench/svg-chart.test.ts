import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { decades, formatMs, logLogChart } from '../../bench/svg-chart.mjs';

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

// Memory-vs-context and memory-vs-batch charts as hand-written SVG (≈ 4 KB of code against uPlot's ≈ 50 KB:
// two static stacked-area charts with a few capacity lines need no zoom, cursor sync or canvas engine).
// Columnar data like uPlot: xs plus one column of bytes per breakdown line; every value comes from the core.
import { el } from './view.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 640; const H = 260;
const PAD = { left: 58, right: 12, top: 12, bottom: 40 };

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// "Nice" tick step for a linear axis: 1, 2 or 5 × 10^k.
function niceStep(span, target) {
  const raw = span / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
}

/**
 * data: { xs, lines: [{key, colour, values[]}], totals[] }; capacities: [{label, bytes}].
 * Returns the <svg>; stacked areas, total line, capacity lines, log-2 x axis.
 */
export function chartSvg(data, { xLabel, title, desc, capacities, f, t }) {
  const { xs, lines, totals } = data;
  const maxY = Math.max(...totals, ...capacities.map((c) => c.bytes)) * 1.08 || 1;
  const x0 = Math.log2(xs[0]); const x1 = Math.log2(xs[xs.length - 1]);
  const sx = (x) => PAD.left + ((Math.log2(x) - x0) / (x1 - x0 || 1)) * (W - PAD.left - PAD.right);
  const sy = (y) => H - PAD.bottom - (y / maxY) * (H - PAD.top - PAD.bottom);
  const root = svg('svg', { xmlns: NS, viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart-svg' });
  root.append(svg('title', {}, title), svg('desc', {}, desc));

  // y grid and labels in the chosen unit
  const unitMax = maxY / f.unitBytes;
  const step = niceStep(unitMax, 5);
  for (let v = 0; v <= unitMax; v += step) {
    const y = sy(v * f.unitBytes);
    root.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: 'grid' }),
      svg('text', { x: PAD.left - 6, y: y + 4, class: 'tick', 'text-anchor': 'end' }, `${f.number(v, step < 1 ? 1 : 0)}`));
  }
  root.append(svg('text', { x: 12, y: PAD.top + 4, class: 'tick', 'text-anchor': 'start' }, f.unit));
  // x ticks at powers of two, thinned to fit
  const p0 = Math.ceil(x0); const p1 = Math.floor(x1);
  const every = Math.max(1, Math.ceil((p1 - p0 + 1) / 8));
  for (let p = p0; p <= p1; p += every) {
    const x = sx(2 ** p);
    root.append(svg('line', { x1: x, x2: x, y1: H - PAD.bottom, y2: H - PAD.bottom + 4, class: 'axis' }),
      svg('text', { x, y: H - PAD.bottom + 16, class: 'tick', 'text-anchor': 'middle' }, compact(2 ** p, f)));
  }
  root.append(svg('text', { x: (PAD.left + W - PAD.right) / 2, y: H - 6, class: 'tick', 'text-anchor': 'middle' }, xLabel));

  // stacked areas, bottom line first
  const base = xs.map(() => 0);
  for (const line of lines) {
    const top = line.values.map((v, i) => base[i] + v);
    const upper = xs.map((x, i) => `${sx(x).toFixed(1)},${sy(top[i]).toFixed(1)}`);
    const lower = xs.map((x, i) => `${sx(x).toFixed(1)},${sy(base[i]).toFixed(1)}`).reverse();
    root.append(svg('polygon', { points: [...upper, ...lower].join(' '), class: `area ${line.colour}` },
    ));
    for (let i = 0; i < base.length; i++) base[i] = top[i];
  }
  root.append(svg('polyline', { points: xs.map((x, i) => `${sx(x).toFixed(1)},${sy(totals[i]).toFixed(1)}`).join(' '), class: 'total-line' }));
  capacities.forEach((c, i) => {
    const y = sy(c.bytes);
    root.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: `capacity capacity-${i}` }),
      svg('text', { x: W - PAD.right - 4, y: y - 5, class: `capacity-label capacity-${i}`, 'text-anchor': 'end' },
        t('charts.capacity', { gpu: c.label, memory: f.bytesShort(c.bytes) })));
  });
  root.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom, class: 'axis' }));
  return root;
}

const compact = (n, f) => (n >= 1048576 ? `${f.number(n / 1048576)}M` : n >= 1024 ? `${f.number(n / 1024)}K` : f.number(n));

// Standalone copy for download: resolve the CSS custom-property colours into attributes.
export function standaloneSvg(live) {
  const copy = live.cloneNode(true);
  const liveNodes = live.querySelectorAll('*');
  copy.querySelectorAll('*').forEach((node, i) => {
    const style = getComputedStyle(liveNodes[i]);
    for (const prop of ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'font-size', 'font-family', 'opacity']) {
      const value = style.getPropertyValue(prop);
      if (value) node.setAttribute(prop, value);
    }
  });
  copy.setAttribute('width', String(W));
  copy.setAttribute('height', String(H));
  copy.insertBefore(svg('rect', { width: W, height: H, fill: getComputedStyle(live).getPropertyValue('--panel') || '#fff' }), copy.firstChild.nextSibling.nextSibling);
  return new XMLSerializer().serializeToString(copy);
}

export function pngBlob(svgText, scale = 2) {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = W * scale; canvas.height = H * scale;
      canvas.getContext('2d').drawImage(img, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('PNG encoding failed'))), 'image/png');
    };
    img.onerror = () => { URL.revokeObjectURL(url); reject(new Error('SVG could not be drawn')); };
    img.src = url;
  });
}

/** A figure: caption, the chart, and its two download buttons (handlers attached by the caller). */
export function fillFigure(figure, caption, chart, t) {
  figure.replaceChildren(el('figcaption', { text: caption }), chart,
    el('div', { class: 'chart-actions' },
      el('button', { type: 'button', 'data-download': 'svg', text: t('charts.svg') }),
      el('button', { type: 'button', 'data-download': 'png', text: t('charts.png') })));
}

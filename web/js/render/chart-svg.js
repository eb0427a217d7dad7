// Memory-vs-context and memory-vs-batch charts as hand-written SVG (≈ 4 KB of code against uPlot's ≈ 50 KB:
// two static stacked-area charts with a few capacity lines need no zoom, cursor sync or canvas engine).
// Columnar data like uPlot: xs plus one column of bytes per breakdown line; every value comes from the core.
import { el } from './view.js';

const NS = 'http://www.w3.org/2000/svg';
// Drawn at the width it is shown at (one SVG unit = one CSS pixel), so its 11 px labels read as 11 px on a phone
// too; 640 when the page cannot say.
const H = 260; const MIN_W = 280;
const PAD = { left: 58, right: 12, top: 12, bottom: 40 };
const LABEL_PX = 11;
// A bold 11 px character is at most this wide: room kept for a label before it is drawn.
const LABEL_CHAR = 7.5;

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

// Where a capacity line's label goes: above or below the line, at the right or left end, the first place where
// it stays clear of the stacked areas (above the total curve); else the plot's top left corner.
function labelPlace(text, lineY, curveY, W) {
  const width = text.length * LABEL_CHAR;
  const right = { x: W - PAD.right - 4, anchor: 'end', from: W - PAD.right - 4 - width };
  const left = { x: PAD.left + 4, anchor: 'start', from: PAD.left + 4 };
  const above = lineY - 5; const below = lineY + LABEL_PX + 4;
  const clear = ({ from }, baseline) => {
    if (baseline - LABEL_PX < PAD.top || baseline > H - PAD.bottom - 2) return false;
    for (let x = from; x <= from + width; x += 2) if (curveY(x) < baseline + 4) return false;
    return true;
  };
  for (const [end, baseline] of [[right, above], [left, above], [left, below], [right, below]]) {
    if (clear(end, baseline)) return { x: end.x, y: baseline, anchor: end.anchor };
  }
  return { x: left.x, y: PAD.top + LABEL_PX, anchor: 'start' };
}

/**
 * data: { xs, lines: [{key, colour, values[]}], totals[] }; capacities: [{label, bytes}]; width: CSS pixels.
 * Returns the <svg>; stacked areas, total line, capacity lines, log-2 x axis.
 */
export function chartSvg(data, { xLabel, title, desc, capacities, f, t, width }) {
  const { xs, lines, totals } = data;
  const W = Math.max(MIN_W, Math.floor(width || 640));
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
  // x ticks at powers of two, thinned to fit (a label such as "128K" takes about 30 px)
  const p0 = Math.ceil(x0); const p1 = Math.floor(x1);
  const ticks = Math.min(8, Math.max(3, Math.floor((W - PAD.left - PAD.right) / 44)));
  const every = Math.max(1, Math.ceil((p1 - p0 + 1) / ticks));
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
  const curve = xs.map((x, i) => [sx(x), sy(totals[i])]);
  root.append(svg('polyline', { points: curve.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' '), class: 'total-line' }));
  // The total curve's height at x (screen units, larger is lower); below the axis outside the curve's span.
  const curveY = (x) => {
    for (let i = 1; i < curve.length; i++) {
      const [xa, ya] = curve[i - 1]; const [xb, yb] = curve[i];
      if (x >= xa && x <= xb) return ya + ((yb - ya) * (x - xa)) / (xb - xa || 1);
    }
    return H;
  };
  capacities.forEach((c, i) => {
    const y = sy(c.bytes);
    const text = t('charts.capacity', { gpu: c.label, memory: f.bytesShort(c.bytes) });
    const place = labelPlace(text, y, curveY, W);
    root.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: `capacity capacity-${i}` }),
      svg('text', { x: place.x, y: place.y, class: `capacity-label capacity-${i}`, 'text-anchor': place.anchor }, text));
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
  const { width: W, height: H } = live.viewBox.baseVal;
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
      canvas.width = img.naturalWidth * scale; canvas.height = img.naturalHeight * scale;
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

// Shared browser-test set-up: serve dist/ on a free loopback port (and web/'s unbundled modules under /src/,
// for tests that call one module directly) and drive Debian's Chromium.
import { chromium } from 'playwright-core';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';

export { openInWatchingShifts } from '../../scripts/watch-shifts.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function openBrowser() {
  const server = await startServer(path.join(root, 'dist'), 0, '127.0.0.1', { '/src/': path.join(root, 'web') });
  const base = `http://127.0.0.1:${server.address().port}`;
  let browser;
  try {
    // playwright gives each launch a fresh profile directory of its own.
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      // Without the networking flags Chromium keeps dialling hosts it cannot reach.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
  } catch (error) {
    server.close();
    throw error;
  }
  return {
    base,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// A page that records console errors, page errors and every request that leaves the origin.
export async function newPage(session, viewport = { width: 1280, height: 900 }) {
  const context = await session.browser.newContext({ viewport });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(session.base) && !url.startsWith('data:') && !url.startsWith('blob:')) problems.push(`foreign request: ${url}`);
  });
  return { page, problems };
}

// A run of words where an English function word stands between two other lowercase words: "is below", "of the".
const ENGLISH = /\b[a-z]{2,}\s+(?:the|is|are|with|of|not|would|their|which)\s+[a-z]{2,}\b/;

/** Whether a text reads as an English sentence (the pattern above). */
export const readsEnglish = (text) => ENGLISH.test(text);

/** Text nodes in the page's results (and the field's message) that read as an English sentence. */
export async function englishTexts(page) {
  return page.evaluate((source) => {
    const pattern = new RegExp(source);
    const areas = [...document.querySelectorAll('section.results, #input-error, #result-error, #file-status')]
      .filter((n) => !n.hidden);
    const found = [];
    for (const area of areas) {
      const walker = document.createTreeWalker(area, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement;
        if (!el || el.closest('[hidden], code, pre, dialog, small.secondary') || !el.checkVisibility?.()) continue;
        if (pattern.test(node.textContent)) found.push(node.textContent.trim());
      }
    }
    return found;
  }, ENGLISH.source);
}

// ---- Layout checks, each run inside the page with page.evaluate (they use nothing from this module) ----

// Words split across two lines by the layout (not at a space, a hyphen or a slash): "Geschwindi gkeit".
export function brokenWords() {
  const found = [];
  const skip = 'code, pre, textarea, select, svg, script, style, dialog, .visually-hidden, [hidden], input';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(skip) || !parent.checkVisibility?.()) continue;
    for (const match of node.textContent.matchAll(/[^\s\-‐–—/·]+/g)) {
      if (match[0].length < 4) continue;
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) found.push(match[0]);
    }
  }
  return found;
}

// Selects whose chosen option is wider than the box shows.
export function cutSelects() {
  const canvas = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('select')].filter((s) => s.checkVisibility?.() && s.selectedIndex >= 0).flatMap((s) => {
    const style = getComputedStyle(s);
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = s.options[s.selectedIndex].textContent;
    // The arrow takes about 20 px at the right, inside the padding.
    const room = s.clientWidth - parseFloat(style.paddingLeft) - Math.max(parseFloat(style.paddingRight), 20) - 4;
    return canvas.measureText(text).width > room ? [`#${s.id}: ${text}`] : [];
  });
}

// Rows of a set of pills (weight precision, unit) that wrapped onto a second line.
export const wrappedPills = () => [...document.querySelectorAll('.segmented')].filter((s) => s.checkVisibility?.())
  .filter((s) => new Set([...s.querySelectorAll('.segment')].map((l) => Math.round(l.getBoundingClientRect().top))).size > 1)
  .map((s) => s.parentElement.querySelector('legend')?.textContent ?? s.id);

// Chart texts smaller than 11 px on screen, and capacity labels drawn over the stacked areas under the total line.
export function chartProblems() {
  const small = []; const over = [];
  for (const chart of document.querySelectorAll('svg.chart-svg')) {
    const scale = chart.getScreenCTM().a;
    for (const node of chart.querySelectorAll('text')) {
      const px = parseFloat(getComputedStyle(node).fontSize) * scale;
      if (px < 10.95) small.push(`${node.textContent}: ${px.toFixed(1)} px`);
    }
    const points = chart.querySelector('.total-line').getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number));
    const curveY = (x) => {
      for (let i = 1; i < points.length; i++) {
        const [x0, y0] = points[i - 1]; const [x1, y1] = points[i];
        if (x >= x0 && x <= x1) return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0 || 1);
      }
      return Infinity;
    };
    for (const label of chart.querySelectorAll('.capacity-label')) {
      const box = label.getBBox();
      for (let x = box.x; x <= box.x + box.width; x += 2) {
        if (curveY(x) < box.y + box.height) { over.push(label.textContent); break; }
      }
    }
  }
  return { small, over };
}

// The key columns of each visible table whose first row's cell lies outside what its box shows without
// scrolling, or is not shown at all (a stacked table's cells count where they are drawn).
export function hiddenKeyColumns(keys) {
  const hidden = [];
  for (const [selector, columns] of Object.entries(keys)) {
    const table = document.querySelector(selector);
    if (!table?.checkVisibility?.()) continue;
    const box = (table.closest('.table-scroll') ?? table).getBoundingClientRect();
    const heads = [...table.querySelectorAll('thead th')];
    const cells = [...table.querySelector('tbody tr').children];
    for (const index of columns) {
      const r = cells[index].getBoundingClientRect();
      if (!cells[index].checkVisibility() || r.width === 0 || r.left < box.left - 1 || r.right > Math.min(box.right, innerWidth) + 1) {
        hidden.push(`${selector}: ${heads[index].textContent.trim()}`);
      }
    }
  }
  return hidden;
}

// Header cells (by index) of each table's key columns: the GPU, its verdict and what stays free.
export const KEY_COLUMNS = {
  '.gpus:not(.ranking)': [0, 3, 5], '.ranking': [0, 1, 2], '[data-testid="devices"]': [0, 6],
};

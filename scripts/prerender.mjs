// Writes the default scenario's answer into dist/index.html, so a visitor of the plain URL sees it in the first
// paint instead of after the .wasm has loaded (on a slow phone, seconds later). The answer is the page's own:
// dist/ is opened in headless Chromium and #summary (and the narrow screens' answer bar) is taken exactly as the
// page rendered it for the URL without a query, in GB — the moment it marks its first result — in English, and in
// German into <template id="prerendered-de">, which js/app.js puts in their place for a German reader before the
// .wasm loads. The page's scripts then render the same answer over it. lang.js keeps it out of sight wherever the
// page will answer something else (a shared link, GiB); css/app.css says how.
// Usage: node scripts/prerender.mjs [DIST]   (after scripts/bundle.mjs; needs Chromium)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const dist = path.resolve(process.argv[2] ?? 'dist');
const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const indexFile = path.join(dist, 'index.html');
const html = readFileSync(indexFile, 'utf8');
if (html.includes('data-prerendered')) throw new Error('prerender: dist/index.html already holds an answer');

const server = await startServer(dist, 0, '127.0.0.1');
const browser = await chromium.launch({ executablePath: chromePath, args: ['--no-sandbox', '--disable-gpu'] });
// #summary and #answer-bar as the page renders them in `lang`.
async function answerIn(lang) {
  const context = await browser.newContext({ serviceWorkers: 'block', locale: 'en-US', viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  // Taken in the same task as the first answer: what the page paints first, before its details follow.
  await page.addInitScript((language) => {
    localStorage.setItem('vramfit.lang', language);
    const mark = performance.mark.bind(performance);
    performance.mark = (name, ...rest) => {
      if (name === 'vramfit:first-result') {
        window.prerendered = ['summary', 'answer-bar'].map((id) => document.getElementById(id).outerHTML);
      }
      return mark(name, ...rest);
    };
  }, lang);
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.prerendered, null, { timeout: 20000 });
  const answer = await page.evaluate(() => window.prerendered);
  if (problems.length) throw new Error(`prerender: the page failed in ${lang}: ${problems.join('; ')}`);
  await context.close();
  return answer;
}
let taken, german;
try {
  taken = await answerIn('en');
  german = await answerIn('de');
} finally {
  await browser.close();
  server.close();
}

// The element from its opening tag to its own closing tag (the page's markup is regular: no tags in attributes).
function elementAt(text, open, tag) {
  const start = text.indexOf(open);
  if (start < 0) throw new Error(`prerender: ${open} not in dist/index.html`);
  const tags = new RegExp(`<${tag}[\\s>]|</${tag}>`, 'g');
  tags.lastIndex = start + 1;
  for (let depth = 1, m; (m = tags.exec(text));) {
    depth += m[0].startsWith('</') ? -1 : 1;
    if (depth === 0) return { start, end: m.index + m[0].length };
  }
  throw new Error(`prerender: ${open} is not closed`);
}
// The CSP (style-src 'self') ignores style attributes in HTML; the bar's segment widths are the only ones, and
// the bar stays invisible until the page has set them (app.css).
const marked = (element) => element.replace(/ style="[^"]*"/g, '').replace(/^<(\w+)/, '<$1 data-prerendered=""');
let out = html;
for (const [element, [open, tag]] of [[taken[0], ['<div id="summary"', 'div']], [taken[1], ['<a id="answer-bar"', 'a']]]) {
  const { start, end } = elementAt(out, open, tag);
  out = out.slice(0, start) + marked(element) + out.slice(end);
}
// The German answer waits, inert, beside the English one.
{
  const { end } = elementAt(out, '<a data-prerendered="" id="answer-bar"', 'a');
  out = `${out.slice(0, end)}\n<template id="prerendered-de">${german.map(marked).join('')}</template>${out.slice(end)}`;
}
const status = '<p id="status" class="status"';
if (!out.includes(status)) throw new Error('prerender: #status not found');
out = out.replace(status, '<p id="status" data-prerendered="" class="status"');
writeFileSync(indexFile, out);
const headline = /id="headline"[^>]*>([^<]*)</.exec(out)?.[1];
const germanHeadline = /id="headline"[^>]*>([^<]*)</.exec(german[0])?.[1];
console.log(`prerender: dist/index.html answers the default URL: "${headline}" / "${germanHeadline}"`);

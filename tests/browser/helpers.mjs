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


// Checks the page's budgets and prints them as a Markdown table for the README. Exit status 1 when one is
// missed. Usage: node scripts/budgets.mjs [--no-lighthouse]   (after scripts/build.sh; needs Chromium)
//   site size     every file of dist/ gzip -9, summed (the single-file build vramfit.html not counted) ≤ 150 KB
//   first result  the headline's text painted (Element Timing) after navigation, localhost, median of 5 ≤ 100 ms
//   recompute     one estimate round trip in the page (JSON in, core, JSON out), median              ≤ 1 ms
//   curve         one 1,000-point curve + one gpu_ranking over the catalogue, median of 7              ≤ 16 ms
//   Lighthouse    12.2.3, desktop preset, headless Debian Chromium: all four categories              = 100
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const results = [];
const record = (name, value, limit, unit, ok = value <= limit) => results.push({ name, value, limit, unit, ok });

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}
const sizes = files(dist).filter((f) => path.basename(f) !== 'vramfit.html')
  .map((f) => ({ file: path.relative(dist, f), gzip: gzipSync(readFileSync(f), { level: 9 }).length }))
  .sort((a, b) => b.gzip - a.gzip);
const siteKB = sizes.reduce((s, f) => s + f.gzip, 0) / 1000;
record('whole site, gzip', Number(siteKB.toFixed(1)), 150, 'KB');

const server = await startServer(dist, 0, '127.0.0.1', { '/src/': path.join(root, 'web') });
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: chromePath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const firstPaints = [];
  const contentfulPaints = [];  // the static page's own first paint, same run: how fast this machine is now
  for (let i = 0; i < 5; i++) {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const page = await context.newPage();
    await page.goto(`${base}/?model=llama-3.1-8b&context=8192`);
    await page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
    // When the headline's text was painted (Element Timing on #headline), not merely put into the DOM.
    firstPaints.push(await page.evaluate(() => new Promise((resolve, reject) => {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.identifier === 'first-result') resolve(e.renderTime || e.loadTime);
      }).observe({ type: 'element', buffered: true });
      setTimeout(() => reject(new Error('no element timing for #headline')), 5000);
    })));
    contentfulPaints.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN));
    if (i === 4) {
      const timing = await page.evaluate(async () => {
        const { openCalculator } = await import('./src/js/core.js');
        const calc = await openCalculator();
        const one = [];
        for (let k = 0; k < 200; k++) {
          const t0 = performance.now();
          calc.answer({ question: 'estimate', model: 'llama-3.1-8b', weights: 'bf16', context: 4096 + k, batch: 1 });
          one.push(performance.now() - t0);
        }
        one.sort((a, b) => a - b);
        // The page's own calls: one curve of 1,000 points and one GPU ranking over the whole catalogue.
        const request = { model: 'llama-3.1-8b', weights: 'bf16', context: 8192, batch: 1 };
        const xs = Array.from({ length: 1000 }, (_, k) => 256 + k * 128);
        // Median of 7 rounds: one round is a few ms of work on a shared machine, so one sample is mostly noise.
        const rounds = [];
        for (let k = 0; k < 7; k++) {
          const t1 = performance.now();
          calc.answer({ ...request, question: 'curve', gpu: 'rtx-4090', axis: 'context', values: xs });
          const t2 = performance.now();
          calc.answer({ ...request, question: 'gpu_ranking' });
          const t3 = performance.now();
          rounds.push({ curve: t3 - t1, curveOnly: t2 - t1, recommend: t3 - t2 });
        }
        rounds.sort((a, b) => a.curve - b.curve);
        return { recompute: one[100], ...rounds[3] };
      });
      record('recompute (evaluate, full catalogue)', Number(timing.recompute.toFixed(3)), 1, 'ms');
      record('1,000-point curve + recommendation', Number(timing.curve.toFixed(1)), 16, 'ms');
      console.log(`  curve ${timing.curveOnly.toFixed(1)} ms, recommend ${timing.recommend.toFixed(1)} ms`);
    }
    await context.close();
  }
  record('first result painted', Number(median(firstPaints).toFixed(1)), 100, 'ms');
  console.log(`  first contentful paint (static page, no result yet) ${median(contentfulPaints).toFixed(0)} ms; ` +
    `the result follows it by ${median(firstPaints.map((p, k) => p - contentfulPaints[k])).toFixed(0)} ms`);
} finally {
  await browser.close();
}

if (!process.argv.includes('--no-lighthouse')) {
  const { default: lighthouse } = await import('lighthouse');
  const { launch } = await import('chrome-launcher');
  const chrome = await launch({ chromePath, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
  try {
    const { lhr } = await lighthouse(`${base}/?model=llama-3.1-8b&context=8192`, { port: chrome.port, output: 'json', logLevel: 'error' },
      { extends: 'lighthouse:default', settings: { formFactor: 'desktop', screenEmulation: { disabled: true }, throttlingMethod: 'provided' } });
    for (const [id, category] of Object.entries(lhr.categories)) {
      record(`Lighthouse ${id}`, Math.round(category.score * 100), 100, '', category.score === 1);
      if (category.score < 1) {
        for (const ref of category.auditRefs) {
          const audit = lhr.audits[ref.id];
          if (ref.weight > 0 && audit.score !== null && audit.score < 1) console.log(`  ${id}: ${ref.id} (${audit.score}) ${audit.displayValue ?? ''}`);
        }
      }
    }
  } finally {
    await chrome.kill();
  }
}
server.close();

console.log('\n| budget | measured | limit | |\n| --- | ---: | ---: | --- |');
for (const r of results) console.log(`| ${r.name} | ${r.value} ${r.unit} | ${r.name.startsWith('Lighthouse') ? '100' : `≤ ${r.limit} ${r.unit}`} | ${r.ok ? 'ok' : 'OVER'} |`);
console.log('\nlargest files (gzip):', sizes.slice(0, 5).map((s) => `${s.file} ${(s.gzip / 1000).toFixed(1)} KB`).join(', '));
process.exitCode = results.every((r) => r.ok) ? 0 : 1;

import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';
const dirs = { old: '/tmp/dist-old', new: '/work/main/dist' };
const servers = {}; for (const [k, d] of Object.entries(dirs)) { const s = await startServer(d, 0, '127.0.0.1', {}); servers[k] = `http://127.0.0.1:${s.address().port}`; }
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const out = { old: [], new: [] };
for (let i = 0; i < 12; i++) for (const k of (i % 2 ? ['old', 'new'] : ['new', 'old'])) {
  const ctx = await browser.newContext({ serviceWorkers: 'block' });
  const page = await ctx.newPage();
  await page.goto(servers[k] + '/' + (process.env.Q ?? ''));
  await page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
  const painted = await page.evaluate(() => new Promise((resolve) => new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.identifier === 'first-result') resolve(e.renderTime); }).observe({ type: 'element', buffered: true })));
  const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0].startTime);
  out[k].push(Math.round(painted - fcp)); await ctx.close();
}
const med = (x) => [...x].sort((a, b) => a - b)[x.length >> 1];
console.log(JSON.stringify(out), 'median old', med(out.old), 'new', med(out.new));
process.exit(0);

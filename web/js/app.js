// The page: one state, one update() — inputs change → one call into the core → every output re-rendered. Its
// rooms are in page/: store.js (the state), answer.js (the answer flow), extras.js (the extras' scheduler),
// inputs.js, gpu-controls.js and also.js (the controls), files.js and file-box.js (files dropped, picked or
// pasted), hub-box.js (a Hub lookup), errors.js, language.js and events.js (the wiring). This file starts it.
import { dom } from './page/dom.js';  // first: it puts the written German answer in place before taking the elements
import { openCalculator } from './core.js';
import { stateCodec } from './state.js';
import { setRanges } from './render/controls.js';
import { initialLanguage } from './i18n/i18n.js';
import { page, view } from './page/store.js';
import { setLanguage } from './page/language.js';
import { refill } from './page/inputs.js';
import { update } from './page/answer.js';
import { afterFirstAnswer, watchChartWidth } from './page/extras.js';
import { wireEvents } from './page/events.js';

// The answer bar (narrow screens) steps aside while the results themselves are on screen.
function watchResults() {
  if (!('IntersectionObserver' in window)) return;
  new IntersectionObserver(([entry]) => dom.answerBar.classList.toggle('away', entry.isIntersecting))
    .observe(dom.summary.closest('section'));
}

// dist/index.html may hold the plain URL's answer (scripts/prerender.mjs); from here on the page answers itself,
// in the same task, so nothing is painted in between.
function forgetPrerendered() {
  for (const node of document.querySelectorAll('[data-prerendered]')) node.removeAttribute('data-prerendered');
}

// The first paint as the browser reports it: its time is when the frame reached the screen, which on a busy
// machine comes frames after the page's own turn. A tab hidden meanwhile paints nothing, and a browser without
// paint timing is given one frame; the timer only keeps a page whose paint is never reported from waiting forever.
const painted = () => new Promise((resolve) => {
  const afterFrame = () => requestAnimationFrame(() => setTimeout(resolve));
  if (!globalThis.PerformanceObserver?.supportedEntryTypes?.includes('paint')) { afterFrame(); return; }
  const done = () => { observer.disconnect(); document.removeEventListener('visibilitychange', done); resolve(); };
  const observer = new PerformanceObserver((list) => {
    if (list.getEntries().some((e) => e.name === 'first-contentful-paint')) done();
  });
  observer.observe({ type: 'paint', buffered: true });
  document.addEventListener('visibilitychange', done);
  setTimeout(done, 1000);
});

// With the plain URL's answer written into the page (and on screen), the .wasm and the work it brings wait for
// that first paint: a slow connection spends its first bytes and time on showing the answer. A German reader's
// page is hidden until its texts are German (lang.js): they, and the German answer, come first.
// A tab opened in the background paints nothing (and its timers crawl): it loads at once, without the turns.
// Between the long steps of starting up, a page already showing its answer gives the browser a turn (a phone
// stays responsive); a page still waiting for its answer goes straight on.
async function waitForWrittenAnswer() {
  if (document.querySelector('[data-prerendered]') && !document.documentElement.classList.contains('other-answer')
      && document.visibilityState === 'visible') {
    setLanguage(initialLanguage());
    await painted();
    return () => (document.visibilityState === 'visible' ? new Promise((resolve) => setTimeout(resolve)) : Promise.resolve());
  }
  return async () => {};
}

function failedToStart(error) {
  forgetPrerendered();
  dom.summary.hidden = true;
  dom.answerBar.hidden = true;
  dom.status.hidden = false;
  dom.status.textContent = view.t('status.failed', { message: error.message });
  document.documentElement.classList.add('ready');
}

async function main() {
  const pause = await waitForWrittenAnswer();
  // Compiling the .wasm runs off the main thread: start it before the locale formatters are built.
  const opening = openCalculator({ pause });
  if (!view.t) setLanguage(initialLanguage());
  try {
    page.calculator = await opening;
  } catch (error) {
    failedToStart(error);
    return;
  }
  page.codec = stateCodec(page.calculator.catalog);
  page.state = page.codec.fromUrl(location.search);
  view.gpu = page.state.gpu;
  view.embedKind = document.querySelector('input[name="embed-kind"]:checked')?.value ?? view.embedKind;
  setRanges(dom.form, page.codec);
  await pause();
  refill();
  wireEvents();
  watchResults();
  watchChartWidth();
  await pause();
  // The inputs show once they hold the catalogue's choices and the first answer's values (they were laid out
  // but invisible until now, so filling them moves nothing on screen); visible before update(), which may move
  // focus to a field in error. Nothing is painted in between.
  document.documentElement.classList.add('ready');
  forgetPrerendered();
  update();
  afterFirstAnswer();
  performance.mark('vramfit:first-result');
  if ('serviceWorker' in navigator && location.protocol.startsWith('http')) {
    navigator.serviceWorker.register('sw.js').catch(() => { /* offline use is a bonus, not a requirement */ });
  }
}

main();

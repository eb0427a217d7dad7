// Runs before the first paint (a classic script in <head>): a page that will switch its texts to German stays
// unpainted until js/app.js has done so, and the inputs stay invisible until they hold their values, so nothing
// on screen moves when they change. Mirrors initialLanguage() in js/i18n/i18n.js.
(() => {
  const html = document.documentElement;
  html.classList.add('js');
  let lang = null;
  try { lang = localStorage.getItem('vramfit.lang'); } catch { /* storage blocked: follow the browser */ }
  if (lang !== 'en' && lang !== 'de') lang = (navigator.language ?? 'en').toLowerCase().startsWith('de') ? 'de' : 'en';
  // dist/index.html holds the answer for the plain URL in GB, in English and German (scripts/prerender.mjs):
  // any other answer the page is about to give keeps it out of sight.
  let unit = null;
  try { unit = localStorage.getItem('vramfit.unit'); } catch { /* the default unit */ }
  if (location.search !== '' || unit === 'GiB') {
    html.classList.add('other-answer');
    // Its answer needs the .wasm at once: it is fetched and compiled from here on, off the main thread, while the
    // page's scripts load (js/core.js takes the module). With the written answer on screen, js/app.js fetches it
    // after the first paint instead, so a slow connection shows that answer first. The single-file build carries
    // it inline.
    if (!html.hasAttribute('data-single-file')) {
      // A server that sends the .wasm under another MIME type defeats streaming: then it compiles from its bytes.
      globalThis.vramfitCompiling = WebAssembly.compileStreaming(fetch('vramfit.wasm')).catch(() =>
        fetch('vramfit.wasm').then((response) => {
          if (!response.ok) throw new Error(`vramfit.wasm: HTTP ${response.status}`);
          return response.arrayBuffer();
        }).then((bytes) => WebAssembly.compile(bytes)));
    }
  }
  if (lang !== 'en') {
    html.classList.add('translating');
    // Should the page's scripts never run, its English texts show rather than nothing.
    setTimeout(() => html.classList.remove('translating'), 3000);
  }
})();

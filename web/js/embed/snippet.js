// The embed snippet for the current scenario: an iframe of embed.html (with the host-side listener that
// applies its vramfit:resize messages) or the <vram-fit> element from one module script.

const attr = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** `codec`: the state's keys and query (state.js); `t`: the page's texts, for the element's own. */
export function embedSnippet(kind, codec, state, report, pageHref, t) {
  const base = new URL('.', pageHref);
  if (kind === 'element') {
    // A context as the core read it ("8k" → 8192; training calls it the sequence).
    const context = report.inputs.context ?? report.inputs.sequence;
    const attrs = codec.keys
      .map((k) => [k, k === 'context' && state.context !== '' ? context : state[k]])
      .filter(([, v]) => v !== '' && v !== null)
      .map(([k, v]) => ` ${k}="${attr(v)}"`).join('');
    // Shown until the element is defined, and for good where its script cannot load (a site that sends no CORS
    // header): a link to the same calculation on the full page.
    const page = new URL(`index.html?${codec.query(state)}`, base);
    const fallback = `<a href="${attr(page)}">${attr(t('embed.fallback', { model: report.model.name }))}</a>`;
    return `<script type="module" src="${attr(new URL('vram-fit.js', base))}"></script>\n<vram-fit${attrs}>${fallback}</vram-fit>`;
  }
  const src = new URL(`embed.html?${codec.query(state)}`, base);
  return [
    `<iframe src="${attr(src)}" title="vramfit: ${attr(report.model.name)}" width="100%" height="260" style="border:0" loading="lazy"></iframe>`,
    `<script>addEventListener('message', (e) => { if (e.origin !== '${attr(base.origin)}' || e.data?.type !== 'vramfit:resize') return;`,
    `  for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.height = e.data.height; });</script>`,
  ].join('\n');
}

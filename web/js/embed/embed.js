// embed.html: the compact answer for the scenario in the query, sized to its content. The page tells its
// parent its height ({type: 'vramfit:resize', height}) whenever that changes, so the iframe never scrolls.
import { openCalculator } from '../core.js';
import { renderCompact, renderUnavailable } from './compact.js';
import { stateCodec } from '../state.js';
import { translator, initialLanguage } from '../i18n/i18n.js';
import { makeFormat } from '../i18n/format.js';

const root = document.getElementById('root');
const params = new URLSearchParams(location.search);
const lang = params.get('lang') ?? initialLanguage();
const t = translator(lang);
const f = makeFormat(t.lang === 'de' ? 'de-DE' : 'en-US', params.get('unit') === 'GiB' ? 'GiB' : 'GB');
document.documentElement.lang = t.lang;

let lastHeight = 0;
function postHeight() {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === lastHeight || window.parent === window) return;
  lastHeight = height;
  // Only a height crosses: nothing private, so any embedding origin may read it.
  window.parent.postMessage({ type: 'vramfit:resize', height }, '*');
}
new ResizeObserver(postHeight).observe(document.documentElement);

try {
  const calculator = await openCalculator();
  const state = stateCodec(calculator.catalog).fromUrl(location.search);
  renderCompact(root, calculator, state, { t, f, siteBase: new URL('.', location.href) });
} catch {
  const named = [...params].map(([name, value]) => ({ name, value }));
  renderUnavailable(root, named, { t, siteBase: new URL('.', location.href) });
}
postHeight();

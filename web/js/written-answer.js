// dist/index.html carries the plain URL's answer in English and, in <template id="prerendered-de">, in German
// (scripts/prerender.mjs). For a German reader the German one takes the English one's place here, before js/app.js
// takes hold of the page's elements: it shows as soon as the page's texts are German, before the .wasm has loaded.
import { initialLanguage } from './i18n/i18n.js';

const german = document.getElementById('prerendered-de');
if (german && initialLanguage() === 'de' && !document.documentElement.classList.contains('other-answer')) {
  for (const node of [...german.content.children]) document.getElementById(node.id)?.replaceWith(node);
}
german?.remove();

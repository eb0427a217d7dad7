// The messages core/ writes, read from its sources: each message("id", "English {param} …", …) call, its string
// literals joined as the compiler joins them. tests/node/messages.test.mjs checks the page's templates against
// them; scripts/messages-en.mjs makes the page's English templates from them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const sources = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory()
  ? sources(join(dir, e.name)) : /\.(?:cpp|hpp)$/.test(e.name) ? [join(dir, e.name)] : []));

// C++ string literals from `at` on while only literals and white space follow: their joined text and the end.
function literals(text, at) {
  let out = '';
  for (;;) {
    const start = text.slice(at).search(/\S/);
    if (start < 0 || text[at + start] !== '"') return { text: out, end: at };
    let i = at + start + 1;
    for (; text[i] !== '"'; i++) {
      if (text[i] === '\\') { i++; out += text[i] === 'n' ? '\n' : text[i]; } else out += text[i];
    }
    at = i + 1;
  }
}

export const paramsOf = (template) => [...new Set([...template.matchAll(/\{(\w+)\}/g)].map((p) => p[1]))].sort();

/** {found: Map id -> {params, where, english}, dynamic: calls whose id or English is not a literal, clashes}. */
export function coreMessages(root) {
  const found = new Map();
  const dynamic = [];
  const clashes = [];
  for (const file of sources(join(root, 'core'))) {
    if (/util\/message\.(?:cpp|hpp)$/.test(file)) continue;  // the type itself
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?<![\w.:>])message\(/g)) {
      const at = m.index + m[0].length;
      const id = literals(text, at);
      const where = `${file.slice(root.length + 1)}:${text.slice(0, m.index).split('\n').length}`;
      if (!id.text || !/^\s*,/.test(text.slice(id.end))) { dynamic.push(where); continue; }
      const english = literals(text, text.indexOf(',', id.end) + 1);
      if (!english.text) { dynamic.push(where); continue; }
      const params = paramsOf(english.text);
      const seen = found.get(id.text);
      if (!seen) found.set(id.text, { params, where, english: english.text });
      else if (params.join() !== seen.params.join()) clashes.push(`${id.text} has other parameters at ${where} than at ${seen.where}`);
    }
  }
  return { found, dynamic, clashes };
}

/** The ids whose English the page writes itself: a text naming a byte count, which the page shows in GB or GiB. */
export const namesBytes = ({ params }) => params.some((p) => p.endsWith('bytes'));

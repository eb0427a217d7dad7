// No function in the page's modules (web/js/) runs over 80 lines, counted from the line of its head to the line
// of its closing brace: a longer one is split into named steps. Parsed with acorn (the project's node_modules, or
// Debian's node-acorn, which the Emscripten build needs anyway).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_LINES = 80;
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

async function loadAcorn() {
  for (const name of ['acorn', '/usr/share/nodejs/acorn/dist/acorn.mjs']) {
    try {
      return await import(name);
    } catch { /* the next place */ }
  }
  throw new Error('acorn not found: npm ci, or apt-get install node-acorn');
}
const { parse } = await loadAcorn();

/** Every function of a module's text: [{ name, line, lines }]. */
export function functionsOf(text) {
  const found = [];
  const visit = (node, name) => {
    if (!node || typeof node.type !== 'string') return;
    if (FUNCTIONS.has(node.type)) {
      const lines = node.loc.end.line - node.loc.start.line + 1;
      found.push({ name: node.id?.name ?? name ?? '(anonymous)', line: node.loc.start.line, lines });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc') continue;
      // A function's name is the binding, property or method that holds it.
      const named = node.type === 'VariableDeclarator' ? node.id?.name
        : node.type === 'Property' || node.type === 'MethodDefinition' ? node.key?.name : undefined;
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child && typeof child === 'object') visit(child, named);
      }
    }
  };
  visit(parse(text, { ecmaVersion: 'latest', sourceType: 'module', locations: true }));
  return found;
}

const modules = readdirSync(path.join(root, 'web/js'), { recursive: true })
  .filter((f) => f.endsWith('.js')).map((f) => path.join('web/js', f));

test('the scan finds a function and counts its lines', () => {
  const text = 'const f = (a) => {\n  return a;\n};\nexport function g() {\n  const h = function () {};\n}\n';
  assert.deepEqual(functionsOf(text).map(({ name, lines }) => [name, lines]), [['f', 3], ['g', 3], ['h', 1]]);
});

test(`no function in web/js/ is longer than ${MAX_LINES} lines`, () => {
  assert.ok(modules.length > 10, 'the page modules were found');
  const long = modules.flatMap((file) => functionsOf(readFileSync(path.join(root, file), 'utf8'))
    .filter((f) => f.lines > MAX_LINES).map((f) => `${file}:${f.line} ${f.name} (${f.lines} lines)`));
  assert.deepEqual(long, []);
});

// No function in core/, cli/ or wasm/ runs over 80 lines, counted from the line of its head to the line of its
// closing brace: a longer one is split into named steps. The scan matches braces in the text with strings, character
// literals, raw strings, comments and preprocessor lines blanked out; a brace at namespace or class scope opens a
// function when its head has a parameter list (or is a lambda bound to a name), a class when its head says
// class/struct/union, and anything else (an initializer, an enum) is skipped whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_LINES = 80;
const FOLDERS = ['core', 'cli', 'wasm'];

/** The text with comments, strings, character literals and preprocessor lines as spaces (newlines kept). */
export function blanked(text) {
  const out = text.split('');
  const blank = (from, to) => {
    for (let i = from; i < to; ++i) if (out[i] !== '\n') out[i] = ' ';
  };
  let i = 0;
  let lineStart = true;
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      lineStart = true;
      ++i;
      continue;
    }
    if (lineStart && c === '#') {  // a directive, with its continuation lines
      let j = i;
      while (j < text.length && !(text[j] === '\n' && text[j - 1] !== '\\')) ++j;
      blank(i, j);
      i = j;
      continue;
    }
    if (c !== ' ' && c !== '\t' && c !== '\r') lineStart = false;
    if (c === '/' && text[i + 1] === '/') {
      let j = i;
      while (j < text.length && text[j] !== '\n') ++j;
      blank(i, j);
      i = j;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const j = text.indexOf('*/', i + 2);
      const end = j < 0 ? text.length : j + 2;
      blank(i, end);
      i = end;
      continue;
    }
    if (c === '"') {
      // A raw string: R"delim( … )delim", its prefix (R, u8R, LR …) just before the quote.
      const raw = /(?:^|[^A-Za-z0-9_])(?:u8|u|U|L)?R$/.test(text.slice(Math.max(0, i - 4), i));
      if (raw) {
        const open = text.indexOf('(', i);
        const close = ')' + text.slice(i + 1, open) + '"';
        const j = text.indexOf(close, open);
        const end = j < 0 ? text.length : j + close.length;
        blank(i + 1, end - 1);
        i = end;
        continue;
      }
      let j = i + 1;
      while (j < text.length && text[j] !== '"' && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      continue;
    }
    if (c === "'") {
      // A digit separator (1'000'000) sits inside a number; a character literal does not.
      const word = text.slice(0, i).match(/[A-Za-z0-9_.]*$/)[0];
      if (/^[0-9]/.test(word)) {
        ++i;
        continue;
      }
      let j = i + 1;
      while (j < text.length && text[j] !== "'" && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      continue;
    }
    ++i;
  }
  return out.join('');
}

/** The index of the brace that closes the one at `open`, in blanked text. */
function closing(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; ++i) {
    if (text[i] === '{') ++depth;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return text.length - 1;
}

/** The head without its leading template parameters, attributes and access labels. */
function core(head) {
  let h = head.trim();
  for (;;) {
    const before = h;
    h = h.replace(/^(public|private|protected)\s*:(?!:)\s*/, '');
    h = h.replace(/^\[\[[^\]]*\]\]\s*/, '');
    if (h.startsWith('template')) {
      // Skip the balanced <…> after `template`.
      let depth = 0;
      let j = h.indexOf('<');
      if (j >= 0) {
        for (; j < h.length; ++j) {
          if (h[j] === '<') ++depth;
          else if (h[j] === '>' && --depth === 0) break;
        }
        h = h.slice(j + 1).trim();
      }
    }
    if (h === before) return h;
  }
}

/** The index of the first `(` outside template arguments, or -1. */
function firstParen(head) {
  let angles = 0;
  for (let i = 0; i < head.length; ++i) {
    const c = head[i];
    if (c === '(') {
      if (angles === 0) return i;
    } else if (c === '<' && !/operator\s*<*$/.test(head.slice(0, i))) ++angles;
    else if (c === '>' && angles > 0 && head[i - 1] !== '-') --angles;
  }
  return -1;
}

/** The index of an initializer's `=` outside parentheses and brackets (not `==`, `<=`, `operator=` …), or -1. */
function topLevelAssign(head) {
  let depth = 0;
  for (let i = 0; i < head.length; ++i) {
    const c = head[i];
    if (c === '(' || c === '[') ++depth;
    else if (c === ')' || c === ']') --depth;
    else if (c === '=' && depth === 0 && head[i + 1] !== '=' && !/[=!<>+\-*/%&|^]$/.test(head.slice(0, i))
             && !/operator\s*$/.test(head.slice(0, i))) return i;
  }
  return -1;
}

/** What a brace's head opens: { kind: 'namespace' | 'class' | 'function' | 'other', name }. */
function classify(rawHead) {
  const head = core(rawHead);
  if (/^(inline\s+)?namespace\b/.test(head) || /^extern\s*"\s*"$/.test(head)) return { kind: 'namespace' };
  if (/^enum\b/.test(head)) return { kind: 'other' };
  const eq = topLevelAssign(head);
  if (eq >= 0) {
    // A lambda bound to a name: `auto f = [](…) {`.
    const rest = head.slice(eq + 1).trim();
    if (rest.startsWith('[')) {
      const name = head.slice(0, eq).trim().match(/([A-Za-z_][A-Za-z0-9_]*)\s*$/);
      return { kind: 'function', name: name ? name[1] : '(lambda)' };
    }
    return { kind: 'other' };
  }
  const paren = firstParen(head);
  if (/^((typedef|using\s+\w+\s*=)\s*)?(class|struct|union)\b/.test(head) && paren < 0) return { kind: 'class' };
  if (paren < 0) return { kind: 'other' };
  const before = head.slice(0, paren).trim();
  const name = before.match(/((?:[A-Za-z_~][A-Za-z0-9_]*(?:<[^()]*>)?::)*(?:operator\s*\S+|~?[A-Za-z_][A-Za-z0-9_]*))$/);
  if (!name || /^(if|for|while|switch|return|sizeof|alignof|decltype|static_assert)$/.test(name[1]))
    return { kind: 'other' };
  return { kind: 'function', name: name[1].replace(/\s+/g, '') };
}

/** Every function body at namespace or class scope in a C++ text: [{ name, line, lines }]. */
export function functionsOf(text) {
  const t = blanked(text);
  const lineAt = [];
  for (let i = 0, line = 1; i <= t.length; ++i) {
    lineAt.push(line);
    if (t[i] === '\n') ++line;
  }
  const found = [];
  // Scans [from, to) at namespace or class scope.
  const scope = (from, to) => {
    let headStart = from;
    let initList = false;  // inside a constructor's member initializers, after `) :`
    let parens = 0;        // open parentheses of the head: a brace inside them is an argument's (`= {}`)
    for (let i = from; i < to; ++i) {
      const c = t[i];
      if (c === '(') ++parens;
      else if (c === ')') --parens;
      if (c === ';' || c === '}') {
        headStart = i + 1;
        initList = false;
        parens = 0;
        continue;
      }
      if (c === ':' && t[i + 1] !== ':' && t[i - 1] !== ':') {
        const head = t.slice(headStart, i).trim();
        if (/^(public|private|protected)$/.test(head)) headStart = i + 1;
        else if (/\)\s*(const|noexcept|\s)*$/.test(head)) initList = true;
        continue;
      }
      if (c !== '{') continue;
      const end = closing(t, i);
      if (parens > 0) {
        i = end;
        continue;
      }
      const head = t.slice(headStart, i);
      // A member initializer's braces (`x_{1}`) belong to the head.
      if (initList && /[A-Za-z0-9_>]\s*$/.test(head)) {
        i = end;
        continue;
      }
      const what = classify(head);
      if (what.kind === 'namespace' || what.kind === 'class') scope(i + 1, end);
      else if (what.kind === 'function') {
        const first = headStart + head.search(/\S/);
        found.push({ name: what.name, line: lineAt[first], lines: lineAt[end] - lineAt[first] + 1 });
      }
      i = end;
      headStart = end + 1;
      initList = false;
      parens = 0;
    }
  };
  scope(0, t.length);
  return found;
}

function sources() {
  return FOLDERS.flatMap((dir) => readdirSync(path.join(root, dir), { recursive: true })
    .filter((f) => /\.(hpp|cpp|h|cc)$/.test(f)).map((f) => path.join(dir, f)));
}

test('the scan finds functions at namespace and class scope and counts their lines', () => {
  const long = Array.from({ length: 79 }, (_, i) => `  x += ${i};  // a } in a comment`).join('\n');
  const text = [
    '#include <string>',
    'namespace a {',
    'namespace {',
    'int shortOne(int x = 1) { return x; }',
    'const char* s = "not { a brace";',
    'const auto lambda = [](int y) {',
    "  return y == '}' ? 1 : 1'000;",
    '};',
    '}  // namespace',
    'struct Holder : Base {',
    '  Holder() : value_{1}, other_(2) {}',
    '  int member(Options o = {}) const {',
    '    return R"x(a ) } raw)x"[0];',
    '  }',
    ' private:',
    '  int value_;',
    '};',
    'enum class E { one, two };',
    'int Holder::tooLong(int x) {',
    long,
    '}',
    '}  // namespace a',
  ].join('\n');
  assert.deepEqual(functionsOf(text).map(({ name, line, lines }) => [name, line, lines]), [
    ['shortOne', 4, 1],
    ['lambda', 6, 3],
    ['Holder', 11, 1],
    ['member', 12, 3],
    ['Holder::tooLong', 19, 81],
  ]);
  assert.deepEqual(functionsOf(text).filter((f) => f.lines > MAX_LINES).map((f) => f.name), ['Holder::tooLong']);
});

test('the scan reads every function of the sources', () => {
  const all = sources().flatMap((file) => functionsOf(readFileSync(path.join(root, file), 'utf8')));
  assert.ok(all.length > 500, `found ${all.length} functions`);
  assert.ok(all.some((f) => f.name === 'evaluate'), 'evaluate() was found');
});

test(`no function in ${FOLDERS.join('/, ')}/ is longer than ${MAX_LINES} lines`, () => {
  const long = sources().flatMap((file) => functionsOf(readFileSync(path.join(root, file), 'utf8'))
    .filter((f) => f.lines > MAX_LINES).map((f) => `${file}:${f.line} ${f.name} (${f.lines} lines)`));
  assert.deepEqual(long, []);
});

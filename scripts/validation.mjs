// Writes docs/validation.md from tests/data/validation.json: each published or measured figure beside vramfit's
// answer to the row's request, grouped by kind and engine, with the median and worst error per group. Also writes
// web/js/validation-summary.js (the count and median error the page shows beside the total's range) and, with
// --html DIR, DIR/validation.html for the site. The answers come from the native CLI's MCP server (`vramfit mcp`),
// one process for every row; tests/unit/json/test_validation.cpp holds the same rows to their tolerances.
// Usage: node scripts/validation.mjs [--cli build/native/cli/vramfit] [--check] [--html DIR]
//   --check: write nothing; exit 1 when the committed files differ from what the rows give now.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const cli = path.resolve(root, arg('--cli') ?? 'build/native/cli/vramfit');
const check = process.argv.includes('--check');
const htmlDir = arg('--html');

const KIND_TITLES = {
  file_size: 'File sizes', param_count: 'Parameter counts', engine_log: 'Engine logs', measured_peak: 'Measured peaks',
  paper: 'Papers and articles',
};
const ENGINE_NAMES = { 'llama.cpp': 'llama.cpp', vllm: 'vLLM', sglang: 'SGLang', ollama: 'Ollama', mlx: 'MLX',
  transformers: 'transformers' };

// The row's request as vramfit is asked it: a config_file's text goes in as the request's config.
export function requestOf(row) {
  const request = { ...row.request };
  if (row.config_file) request.config = JSON.parse(readFileSync(path.join(root, row.config_file), 'utf8'));
  return request;
}

export function pointer(json, p) {
  let v = json;
  for (const part of p.split('/').slice(1)) v = v?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  return v;
}

// Every row's answer from one `vramfit mcp` process.
export function answers(doc, cliPath = cli) {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build the native CLI first`);
  const lines = [{ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18' } },
    ...doc.rows.map((row, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call',
      params: { name: 'estimate', arguments: requestOf(row) } }))];
  const run = spawnSync(cliPath, ['mcp'], { input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
    maxBuffer: 1 << 30, encoding: 'utf8'});
  if (run.status !== 0) throw new Error(`vramfit mcp exited ${run.status}: ${run.stderr}`);
  const replies = new Map(run.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((r) => [r.id, r]));
  return doc.rows.map((row, i) => {
    const result = replies.get(i + 1)?.result;
    if (!result || result.isError) throw new Error(`${row.id}: ${result?.content?.[0]?.text ?? 'no answer'}`);
    return pointer(result.structuredContent, row.answer_path);
  });
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const percent = (x) => `${x < 0 ? '−' : x > 0 ? '+' : ''}${Math.abs(x * 100).toFixed(2)} %`;
const plain = (x) => `${(x * 100).toFixed(2)} %`;
const figureText = (x, unit) => (unit === 'params' || unit === 'tokens' || unit === 'bytes'
  ? `${Number(x).toLocaleString('en-US')} ${unit}` : `${x} ${unit}`);
const cell = (s) => String(s).replaceAll('|', '\\|').replaceAll('\n', ' ');

// The rows with vramfit's figure and error, in groups of kind and engine, each with its median and worst error.
export function evaluated(doc, values) {
  const rows = doc.rows.map((row, i) => {
    const scale = doc.units[row.unit];
    const ours = values[i] / scale;
    return { ...row, ours, error: ours / row.figure - 1 };
  });
  const groups = [];
  for (const kind of Object.keys(KIND_TITLES)) {
    const ofKind = rows.filter((r) => r.kind === kind);
    for (const engine of [...new Set(ofKind.map((r) => r.engine ?? ''))]) {
      const members = ofKind.filter((r) => (r.engine ?? '') === engine);
      const errors = members.map((r) => Math.abs(r.error));
      groups.push({ kind, engine, rows: members, median: median(errors), worst: Math.max(...errors) });
    }
  }
  const unknown = rows.filter((r) => !KIND_TITLES[r.kind]);
  if (unknown.length) throw new Error(`${unknown[0].id}: kind ${unknown[0].kind} is not one of ${Object.keys(KIND_TITLES)}`);
  return { rows, groups, median: median(rows.map((r) => Math.abs(r.error))),
    worst: Math.max(...rows.map((r) => Math.abs(r.error))) };
}

const groupTitle = (g) => `${KIND_TITLES[g.kind]}${g.engine ? `: ${ENGINE_NAMES[g.engine] ?? g.engine}` : ''}`;
const valueText = (x, unit) => figureText(unit === 'params' || unit === 'tokens' || unit === 'bytes'
  ? Math.round(x) : Number(x.toPrecision(6)), unit);

// "file sizes (18 rows) 0.01 %, …": each kind's median error, as the page's link says it.
const kindsText = (result) => kindMedians(result).map((k) =>
  `${KIND_TITLES[k.kind].toLowerCase()} (${k.rows} row${k.rows === 1 ? '' : 's'}) median ${plain(k.median_error)}`).join(', ');

export function markdown(result) {
  const out = [
    '# Validation',
    '',
    '<!-- Written by scripts/validation.mjs from tests/data/validation.json; edit those, not this file. -->',
    '',
    `vramfit checked against ${result.rows.length} published measurements: median error ${plain(result.median)}, ` +
      `worst ${plain(result.worst)}. By kind: ${kindsText(result)}.`,
    '',
    'Each row is a figure measured or published outside vramfit (a line an engine printed, a file\'s size on the ' +
      'Hub, a model card\'s parameter count, a peak a run measured), the request that reproduces its scenario, and ' +
      'vramfit\'s answer to it. The unit tests (tests/unit/json/test_validation.cpp) ask every request and fail ' +
      'when an answer leaves its tolerance, except a known miss, which is said beside its error. To add a row from your own GPU, see ' +
      '[scripts/measure/README.md](../scripts/measure/README.md).',
    '',
    '| Group | Rows | Median error | Worst error |',
    '|---|---:|---:|---:|',
    ...result.groups.map((g) => `| ${groupTitle(g)} | ${g.rows.length} | ${plain(g.median)} | ${plain(g.worst)} |`),
    '',
  ];
  for (const g of result.groups) {
    out.push(`## ${groupTitle(g)}`, '',
      `${g.rows.length} rows, median error ${plain(g.median)}, worst ${plain(g.worst)}.`, '',
      '| What | Published | vramfit | Error | Tolerance | Source |', '|---|---:|---:|---:|---:|---|');
    for (const r of g.rows) {
      const s = r.source;
      const src = `[${cell(s.repo)}, ${cell(s.ref)}](${s.url}): “${cell(s.quote)}”`;
      out.push(`| ${cell(r.what)} | ${figureText(r.figure, r.unit)} | ${valueText(r.ours, r.unit)} | ` +
        `${percent(r.error)}${r.known_miss ? ` (known miss: ${cell(r.known_miss)})` : ''} | ±${plain(r.tolerance)} | ${src} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

const escape = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// The same tables as a page of the site (the page links it beside the total's range).
export function html(result) {
  const parts = [`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
    `content="width=device-width, initial-scale=1"><title>vramfit: validation</title><style>` +
    'body{font:15px/1.5 system-ui,sans-serif;margin:1.5rem auto;max-width:72rem;padding:0 1rem}' +
    'table{border-collapse:collapse;margin-bottom:1.5rem}td,th{border-bottom:1px solid #ccc;padding:.25rem .5rem;' +
    'text-align:left;vertical-align:top}.num{text-align:right;white-space:nowrap}.scroll{overflow-x:auto}' +
    '</style></head><body><p><a href="./">vramfit</a></p><h1>Validation</h1>',
  `<p>vramfit checked against ${result.rows.length} published measurements: median error ${plain(result.median)}, ` +
    `worst ${plain(result.worst)}. By kind: ${escape(kindsText(result))}. Each row is a figure measured or published outside vramfit, the request that ` +
    'reproduces its scenario, and vramfit\'s answer to it; the unit tests fail when an answer leaves its tolerance, ' +
    'except a known miss, which is said beside its error.</p>',
  '<div class="scroll"><table><thead><tr><th>Group</th><th class="num">Rows</th><th class="num">Median error</th>' +
    '<th class="num">Worst error</th></tr></thead><tbody>',
  ...result.groups.map((g) => `<tr><td>${escape(groupTitle(g))}</td><td class="num">${g.rows.length}</td>` +
    `<td class="num">${plain(g.median)}</td><td class="num">${plain(g.worst)}</td></tr>`),
  '</tbody></table></div>'];
  for (const g of result.groups) {
    parts.push(`<h2>${escape(groupTitle(g))}</h2><div class="scroll"><table><thead><tr><th>What</th>` +
      '<th class="num">Published</th><th class="num">vramfit</th><th class="num">Error</th>' +
      '<th class="num">Tolerance</th><th>Source</th></tr></thead><tbody>');
    for (const r of g.rows) {
      parts.push(`<tr><td>${escape(r.what)}</td><td class="num">${escape(figureText(r.figure, r.unit))}</td>` +
        `<td class="num">${escape(valueText(r.ours, r.unit))}</td><td class="num">${percent(r.error)}` +
        `${r.known_miss ? ` (known miss: ${escape(r.known_miss)})` : ''}</td>` +
        `<td class="num">±${plain(r.tolerance)}</td><td><a href="${escape(r.source.url)}">${escape(r.source.repo)}, ` +
        `${escape(r.source.ref)}</a>: “${escape(r.source.quote)}”</td></tr>`);
    }
    parts.push('</tbody></table></div>');
  }
  parts.push('</body></html>');
  return parts.join('\n') + '\n';
}

// The median error of each kind, in KIND_TITLES' order: exact file sizes and parameter counts would otherwise hide
// the engines' figures in one median.
export function kindMedians(result) {
  return Object.keys(KIND_TITLES).map((kind) => {
    const errors = result.rows.filter((r) => r.kind === kind).map((r) => Math.abs(r.error));
    return errors.length ? { kind, rows: errors.length, median_error: Number(median(errors).toFixed(4)) } : null;
  }).filter(Boolean);
}

export function summaryModule(result) {
  const kinds = kindMedians(result).map((k) => `\n  { kind: '${k.kind}', rows: ${k.rows}, median_error: ${k.median_error} },`);
  return '// Written by scripts/validation.mjs from tests/data/validation.json: what the page says beside the ' +
    'total\'s range, the median error per kind of figure.\n' +
    `export const validation = { rows: ${result.rows.length}, median_error: ${Number(result.median.toFixed(4))}, kinds: [` +
    `${kinds.join('')}\n] };\n`;
}

export function generate(cliPath = cli) {
  const doc = JSON.parse(readFileSync(path.join(root, 'tests/data/validation.json'), 'utf8'));
  const result = evaluated(doc, answers(doc, cliPath));
  return { result, markdown: markdown(result), summary: summaryModule(result), html: html(result) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { result, markdown: md, summary, html: page } = generate();
  const files = [['docs/validation.md', md], ['web/js/validation-summary.js', summary]];
  const within = (r) => Math.abs(r.error) <= r.tolerance + 1e-9;
  const outside = result.rows.filter((r) => within(r) === Boolean(r.known_miss)
    || (r.known_miss && Math.abs(r.error) > 2 * r.tolerance));
  for (const r of outside) console.error(r.known_miss ? `${r.id}: ${percent(r.error)}, a known miss, is within ±${plain(r.tolerance)} (drop the mark) or beyond twice it`
    : `${r.id}: ${percent(r.error)} is outside ±${plain(r.tolerance)}`);
  if (check) {
    const stale = files.filter(([f, text]) => !existsSync(path.join(root, f)) || readFileSync(path.join(root, f), 'utf8') !== text);
    for (const [f] of stale) console.error(`${f} is not what tests/data/validation.json gives: run node scripts/validation.mjs`);
    process.exit(stale.length || outside.length ? 1 : 0);
  }
  for (const [f, text] of files) writeFileSync(path.join(root, f), text);
  if (htmlDir) writeFileSync(path.join(path.resolve(htmlDir), 'validation.html'), page);
  console.log(`validation: ${result.rows.length} rows, median error ${plain(result.median)}, worst ${plain(result.worst)}`);
  if (outside.length) process.exit(1);
}

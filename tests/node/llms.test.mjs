// web/llms.txt names every URL key and CLI flag of the inputs table (core/json/inputs.cpp), and the MCP tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const llms = readFileSync(new URL('web/llms.txt', root), 'utf8');
const table = readFileSync(new URL('core/json/inputs.cpp', root), 'utf8');
// A row of kInputs: {"key", "--flag", "url", K::kind, ...
const rows = [...table.matchAll(/\{"([a-z_]+)", "(--[a-z-]+|)", "([a-z0-9]*)", K::([a-z]+)/g)]
  .map(([, key, flag, url, kind]) => ({ key, flag, url, kind }));

test('the inputs table is read', () => {
  assert.ok(rows.length > 40, `${rows.length} rows`);
});

test('llms.txt describes every URL key with its request key, flag and kind', () => {
  for (const { key, flag, url, kind } of rows.filter((r) => r.url)) {
    const line = llms.split('\n').find((l) => l.startsWith(`- \`${url}\` (`));
    assert.ok(line, `URL key ${url} is missing`);
    assert.ok(line.includes(`(${key}, ${flag})`), `${url}: ${line}`);
    assert.ok(line.includes(`: ${kind === 'count' && key === 'gpus' ? 'list' : kind}.`) || key === 'gpus', `${url}: ${line}`);
  }
});

test('llms.txt names the MCP tools and the CLI questions', () => {
  for (const name of ['estimate', 'limits', 'gpu_ranking', 'remedies', 'biggest_model', 'vramfit mcp',
    '--max-context', '--rank-gpus', '--biggest', '--remedies', '--check', '--json']) {
    assert.ok(llms.includes(name), name);
  }
});

// `vramfit mcp`: a Model Context Protocol server over stdio (JSON-RPC 2.0, one message per line), as an assistant's
// client talks to it (modelcontextprotocol.io/specification: lifecycle, tools/list, tools/call, error codes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = process.env.VRAMFIT_CLI ?? path.join(root, 'build/native/cli/vramfit');

/** Sends the messages (objects or raw lines) on stdin and returns the replies, one per line. */
function session(...messages) {
  const input = messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join('\n') + '\n';
  const run = spawnSync(cli, ['mcp'], { input, encoding: 'utf8', env: { ...process.env, HF_HUB_OFFLINE: '1' } });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line));
}
const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

test('initialize agrees on a protocol version; a notification gets no reply; ping answers', () => {
  const replies = session(
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'ping' },
    { jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '1999-01-01' } });
  assert.equal(replies.length, 3);
  assert.equal(replies[0].id, 1);
  assert.equal(replies[0].result.protocolVersion, '2025-03-26');
  assert.deepEqual(replies[0].result.capabilities, { tools: {} });
  assert.equal(replies[0].result.serverInfo.name, 'vramfit');
  assert.deepEqual(replies[1], { jsonrpc: '2.0', id: 2, result: {} });
  assert.equal(replies[2].result.protocolVersion, '2025-06-18');  // not one it speaks: its own latest
});

test('tools/list names the questions, each with an input schema from the request\'s inputs', () => {
  const [reply] = session({ jsonrpc: '2.0', id: 'a', method: 'tools/list' });
  const tools = Object.fromEntries(reply.result.tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(tools), ['estimate', 'limits', 'gpu_ranking', 'remedies', 'biggest_model']);
  const estimate = tools.estimate.inputSchema;
  assert.equal(estimate.type, 'object');
  assert.deepEqual(estimate.properties.context.type, ['integer', 'string']);  // "8k" as people write it
  assert.ok(estimate.properties.engine.enum.includes('vllm'));
  assert.ok(estimate.properties.mode.enum.includes('qlora'));
  assert.ok(!('budget_per_hour' in estimate.properties));  // the ranking's own input
  assert.ok('budget_per_hour' in tools.gpu_ranking.inputSchema.properties);
});

test('tools/call answers with the core\'s JSON; a wrong input is a tool error naming the field', () => {
  const [ok, wrong, unknown] = session(
    call(1, 'estimate', { model: 'llama-3.1-8b', weights: 'bf16', context: '8k', gpu: 'rtx-4090' }),
    call(2, 'estimate', { model: 'llama-3.1-8b', context: -1 }),
    call(3, 'no_such_tool', {}));
  // Llama 3.1 8B: 8,030,261,248 parameters (model card) × 2 B = 16,060,522,496 B; KV at 8,192 tokens (8k):
  // 32 layers × 2 × 8 KV heads × 128 × 2 B = 131,072 B per token × 8,192 = 1,073,741,824 B.
  assert.equal(ok.result.isError, false);
  assert.equal(ok.result.structuredContent.breakdown.weights, 16060522496);
  assert.equal(ok.result.structuredContent.breakdown.kv_cache, 1073741824);
  assert.match(ok.result.structuredContent.verdict.message.text, /^Fits on one GeForce RTX 4090/);
  assert.deepEqual(JSON.parse(ok.result.content[0].text), ok.result.structuredContent);
  assert.equal(wrong.result.isError, true);
  assert.match(wrong.result.content[0].text, /^context: /);
  assert.equal(unknown.error.code, -32602);
});

test('what is not a request gets the protocol\'s errors', () => {
  const replies = session('not json', { jsonrpc: '2.0', id: 7, method: 'resources/list' }, { id: 8, method: 'ping' });
  assert.equal(replies[0].error.code, -32700);
  assert.equal(replies[0].id, null);
  assert.equal(replies[1].error.code, -32601);
  assert.equal(replies[2].error.code, -32600);  // no "jsonrpc": "2.0"
});

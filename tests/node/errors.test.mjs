// Errors a user of the page can trigger, fed to the real vramfit.wasm: broken config.json texts, garbled .gguf and
// .safetensors headers (hand-made bytes, laid out as ggml docs/gguf.md and the safetensors README say), impossible
// parallel splits and bad request values. Each must carry a message id (message_i18n) whose German template exists
// and renders with every {parameter} filled, so the German page never shows one of them in English.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { MESSAGES, messageText } from '../../web/js/i18n/messages.js';
import { makeFormat } from '../../web/js/i18n/format.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = process.env.VRAMFIT_DIST ?? path.join(root, 'dist');
const { default: createVramfit } = await import(path.join(dist, 'vramfit.mjs'));
const module = await createVramfit({ wasmBinary: readFileSync(path.join(dist, 'vramfit.wasm')) });
const answer = (request) => JSON.parse(module.answer(JSON.stringify(request)));
const answerFile = (bytes, name, request = {}, size = bytes.length) =>
  JSON.parse(module.answer_file(Uint8Array.from(bytes), size, name, JSON.stringify(request)));

// --- little-endian bytes -------------------------------------------------------------------------------------
const le = (v, n) => {
  const out = [];
  let x = BigInt(v);
  for (let i = 0; i < n; i++, x >>= 8n) out.push(Number(x & 0xffn));
  return out;
};
const utf8 = (s) => [...Buffer.from(s, 'utf8')];
const ggufString = (s) => { const b = typeof s === 'string' ? utf8(s) : s; return [...le(b.length, 8), ...b]; };
// GGUF v3: magic, version, tensor count, key/value count; then the key/values and the tensor infos.
const gguf = (tensors, kvs, body) => [...utf8('GGUF'), ...le(3, 4), ...le(tensors, 8), ...le(kvs, 8), ...body];
const kv = (key, type, value) => [...ggufString(key), ...le(type, 4), ...value];
const u32kv = (key, v) => kv(key, 4, le(v, 4));
const tensorInfo = (name, dims, type, offset) =>
  [...ggufString(name), ...le(dims.length, 4), ...dims.flatMap((d) => le(d, 8)), ...le(type, 4), ...le(offset, 8)];
const padded = (bytes, extra = 4096) => [...bytes, ...new Array(extra).fill(0)];
// safetensors: an 8-byte header length, the JSON header, then the data buffer.
const safetensors = (header, data = 0) => {
  const text = utf8(typeof header === 'string' ? header : JSON.stringify(header));
  return [...le(text.length, 8), ...text, ...new Array(data).fill(0)];
};

const llama = {
  model_type: 'llama', hidden_size: 4096, intermediate_size: 11008, num_hidden_layers: 32,
  num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000, max_position_embeddings: 4096,
};
const config = (extra) => ({ config: JSON.stringify({ ...llama, ...extra }) });

// [what the case is, its result, the id it must carry]
const cases = () => [
  // config.json texts
  ['layer_types of the wrong length', answer(config({ sliding_window: 1024, layer_types: ['full_attention'] })), 'import.one_per_layer'],
  ['layer_types that are not strings', answer(config({ sliding_window: 1024, layer_types: [1, 2] })), 'import.layer_type_strings'],
  ['an unknown layer type', answer(config({ layer_types: new Array(32).fill('magic_attention') })), 'import.layer_type_unknown'],
  ['OPT with a projected embedding', answer({ config: JSON.stringify({
    model_type: 'opt', hidden_size: 768, ffn_dim: 3072, num_hidden_layers: 12, num_attention_heads: 12,
    vocab_size: 50272, max_position_embeddings: 2048, word_embed_proj_dim: 512 }) }), 'import.opt_projection'],
  ['mlp_only_layers past the last layer', answer({ config: JSON.stringify({
    ...llama, model_type: 'qwen2_moe', num_experts: 8, num_experts_per_tok: 2, moe_intermediate_size: 1408,
    mlp_only_layers: [40] }) }), 'import.layer_numbers_below'],
  ['a Nemotron-H pattern of the wrong length', answer({ config: JSON.stringify({
    ...llama, model_type: 'nemotron_h', hybrid_override_pattern: 'M*', mamba_num_heads: 64, mamba_head_dim: 64,
    ssm_state_size: 128, n_groups: 8 }) }), 'import.one_char_per_layer'],
  ['a Nemotron-H block that is not modelled', answer({ config: JSON.stringify({
    ...llama, num_hidden_layers: 2, model_type: 'nemotron_h', hybrid_override_pattern: 'MX', mamba_num_heads: 64,
    mamba_head_dim: 64, ssm_state_size: 128, n_groups: 8 }) }), 'import.pattern_block_unknown'],
  ['GPTQ with 5 bits', answer(config({ quantization_config: { quant_method: 'gptq', bits: 5, group_size: 128 } })), 'quant.gptq_bits'],
  ['GPTQ with group size 0', answer(config({ quantization_config: { quant_method: 'gptq', bits: 4, group_size: 0 } })), 'quant.group_size'],
  ['compressed-tensors without config_groups', answer(config({ quantization_config: { quant_method: 'compressed-tensors' } })), 'quant.config_groups'],
  ['an hf_quant_config.json without "quantization"', answer({ ...config({}), quant_config: '{"producer": {}}' }), 'quant.quantization_object'],
  ['key-value heads that do not divide the heads', answer(config({ num_key_value_heads: 5 })), 'model.must_divide'],

  // .gguf headers
  ['a GGUF with 2^40 tensors', answerFile(padded(gguf(2n ** 40n, 0, [])), 'm.gguf'), 'gguf.too_many_tensors'],
  ['a GGUF with 2^40 keys', answerFile(padded(gguf(0, 2n ** 40n, [])), 'm.gguf'), 'gguf.too_many_keys'],
  ['a GGUF key of 70,000 bytes', answerFile(padded(gguf(0, 1, le(70000, 8)), 100000), 'm.gguf'), 'gguf.string_over_limit'],
  ['a GGUF string past the end', answerFile(padded(gguf(0, 1, kv('a', 8, le(1e9, 8)))), 'm.gguf'), 'gguf.string_past_end'],
  ['a GGUF value of type 99', answerFile(padded(gguf(0, 1, kv('a', 99, []))), 'm.gguf'), 'gguf.unknown_value_type'],
  ['a GGUF bool of 2', answerFile(padded(gguf(0, 1, kv('a', 7, [2]))), 'm.gguf'), 'gguf.bool_value'],
  ['GGUF arrays nested 9 deep', answerFile(padded(gguf(0, 1, kv('a', 9, new Array(8).fill([...le(9, 4), ...le(1, 8)]).flat()))), 'm.gguf'), 'gguf.arrays_nested'],
  ['a GGUF array past the end', answerFile(padded(gguf(0, 1, kv('a', 9, [...le(4, 4), ...le(2n ** 40n, 8)]))), 'm.gguf'), 'gguf.array_past_end'],
  ['an empty GGUF key', answerFile(padded(gguf(0, 1, kv('', 4, le(1, 4)))), 'm.gguf'), 'gguf.empty_key'],
  ['a GGUF key that is not UTF-8', answerFile(padded(gguf(0, 1, kv([0xff], 4, le(1, 4)))), 'm.gguf'), 'gguf.key_utf8'],
  ['a GGUF key given twice', answerFile(padded(gguf(0, 2, [...u32kv('a', 1), ...u32kv('a', 2)])), 'm.gguf'), 'gguf.duplicate_key'],
  ['a GGUF alignment of 3', answerFile(padded(gguf(0, 1, u32kv('general.alignment', 3))), 'm.gguf'), 'gguf.alignment'],
  ['an empty GGUF tensor name', answerFile(padded(gguf(1, 0, tensorInfo('', [32], 0, 0))), 'm.gguf'), 'gguf.empty_tensor_name'],
  ['a GGUF tensor name that is not UTF-8', answerFile(padded(gguf(1, 0, tensorInfo([0xff], [32], 0, 0))), 'm.gguf'), 'gguf.tensor_name_utf8'],
  ['a GGUF tensor given twice', answerFile(padded(gguf(2, 0, [...tensorInfo('t', [8], 0, 0), ...tensorInfo('t', [8], 0, 32)])), 'm.gguf'), 'gguf.duplicate_tensor'],
  ['a GGUF tensor of 5 dimensions', answerFile(padded(gguf(1, 0, tensorInfo('t', [1, 1, 1, 1, 1], 0, 0))), 'm.gguf'), 'gguf.dimensions'],
  ['a GGUF tensor of 2^64 elements', answerFile(padded(gguf(1, 0, tensorInfo('t', [2n ** 62n, 8], 0, 0))), 'm.gguf'), 'gguf.elements_overflow'],
  ['a GGUF tensor of ggml type 9999', answerFile(padded(gguf(1, 0, tensorInfo('t', [32], 9999, 0))), 'm.gguf'), 'gguf.unknown_type'],
  ['a Q4_0 row of 31 elements', answerFile(padded(gguf(1, 0, tensorInfo('t', [31], 2, 0))), 'm.gguf'), 'gguf.row_block'],
  ['an f32 tensor of 2^64 bytes', answerFile(padded(gguf(1, 0, tensorInfo('t', [2n ** 62n], 0, 0))), 'm.gguf'), 'gguf.size_overflow'],
  ['a GGUF tensor at offset 1', answerFile(padded(gguf(1, 0, tensorInfo('t', [8], 0, 1))), 'm.gguf'), 'gguf.offset_alignment'],
  ['two GGUF tensors on the same bytes', answerFile(padded(gguf(2, 0, [...tensorInfo('a', [8], 0, 0), ...tensorInfo('b', [8], 0, 0)])), 'm.gguf'), 'gguf.overlap'],
  // general.architecture llama with 0 layers: validate() refuses num_hidden_layers, named with the key.
  ['a GGUF llama of 0 layers', answerFile(padded(gguf(0, 6, [
    ...kv('general.architecture', 8, ggufString('llama')), ...u32kv('llama.block_count', 0),
    ...u32kv('llama.embedding_length', 4096), ...u32kv('llama.attention.head_count', 32),
    ...u32kv('llama.feed_forward_length', 11008), ...u32kv('llama.context_length', 4096)])), 'm.gguf'), 'model.range'],

  // .safetensors headers
  ['a safetensors header over 100 MB', answerFile(le(200e6, 8), 'm.safetensors', {}, 300e6), 'safetensors.header_over_limit'],
  ['a safetensors entry that is a number', answerFile(safetensors({ w: 1 }), 'm.safetensors'), 'safetensors.entry_object'],
  ['a safetensors entry without dtype', answerFile(safetensors({ w: { shape: [2], data_offsets: [0, 4] } }), 'm.safetensors'), 'safetensors.dtype_string'],
  ['a safetensors dtype "Q9"', answerFile(safetensors({ w: { dtype: 'Q9', shape: [2], data_offsets: [0, 4] } }), 'm.safetensors'), 'safetensors.unknown_dtype'],
  ['a safetensors shape that is text', answerFile(safetensors({ w: { dtype: 'BF16', shape: 'x', data_offsets: [0, 4] } }), 'm.safetensors'), 'safetensors.shape_array'],
  ['a negative safetensors dimension', answerFile(safetensors({ w: { dtype: 'BF16', shape: [-2], data_offsets: [0, 4] } }), 'm.safetensors'), 'safetensors.shape_integers'],
  ['a safetensors shape of 2^64 elements', answerFile(safetensors({ w: { dtype: 'BF16', shape: [2 ** 40, 2 ** 40], data_offsets: [0, 4] } }), 'm.safetensors'), 'safetensors.elements_overflow'],
  ['safetensors offsets of one number', answerFile(safetensors({ w: { dtype: 'BF16', shape: [2], data_offsets: [0] } }), 'm.safetensors'), 'safetensors.offsets_pair'],
  ['a safetensors end before its begin', answerFile(safetensors({ w: { dtype: 'BF16', shape: [2], data_offsets: [4, 0] } }), 'm.safetensors'), 'safetensors.end_before_begin'],
  ['safetensors offsets that do not hold the shape', answerFile(safetensors({ w: { dtype: 'BF16', shape: [2], data_offsets: [0, 6] } }, 6), 'm.safetensors'), 'safetensors.size_mismatch'],
  ['safetensors __metadata__ that is a number', answerFile(safetensors({ __metadata__: 1 }), 'm.safetensors'), 'safetensors.metadata_object'],
  ['safetensors __metadata__ with a number', answerFile(safetensors({ __metadata__: { format: 1 } }), 'm.safetensors'), 'safetensors.metadata_strings'],
  ['an empty safetensors tensor name', answerFile(safetensors({ '': { dtype: 'BF16', shape: [2], data_offsets: [0, 4] } }, 4), 'm.safetensors'), 'safetensors.tensor_name'],
  ['two safetensors tensors on the same bytes', answerFile(safetensors({
    a: { dtype: 'BF16', shape: [2], data_offsets: [0, 4] }, b: { dtype: 'BF16', shape: [2], data_offsets: [2, 6] } }, 6), 'm.safetensors'), 'safetensors.overlap'],
  ['a file that is neither .gguf nor .safetensors', answerFile([1, 2, 3], 'model.bin'), 'file.not_model_file'],
  ['a prefix longer than the file', answerFile([1, 2, 3, 4], 'm.gguf', {}, 2), 'file.prefix_over_file'],
  ['biggest_model about a model file', answerFile(safetensors({}), 'm.safetensors', { question: 'biggest_model', gpu: 'rtx-4090' }), 'request.biggest_no_file'],

  // request values
  ['an unknown question', answer({ question: 'cost', model: 'llama-3.1-8b' }), 'request.unknown_question'],
  ['question and questions together', answer({ question: 'estimate', questions: ['limits'], model: 'llama-3.1-8b' }), 'request.question_and_questions'],
  ['an empty list of questions', answer({ questions: [], model: 'llama-3.1-8b' }), 'request.questions_array'],
  ['a question that is a number', answer({ questions: [5], model: 'llama-3.1-8b' }), 'request.question_entry'],
  ['biggest_model among questions', answer({ questions: ['biggest_model'], model: 'llama-3.1-8b' }), 'request.biggest_alone'],
  ['a scenario key inside a question', answer({ questions: [{ question: 'estimate', context: 10 }], model: 'llama-3.1-8b' }), 'request.question_key'],
  ['limits of a training mode', answer({ question: 'limits', mode: 'train', model: 'llama-3.1-8b', gpu: 'h100-sxm' }), 'request.training_mode_question'],
  ['limits among a training scenario\'s questions', answer({ questions: ['limits'], mode: 'train', model: 'llama-3.1-8b' }).answers?.[0], 'request.training_mode_question'],
  ['context and sequence that differ', answer({ mode: 'train', model: 'llama-3.1-8b', context: 1024, sequence: 2048 }), 'request.sequence_twice'],
  ['batch and micro_batch that differ', answer({ mode: 'train', model: 'llama-3.1-8b', batch: 2, micro_batch: 4 }), 'request.micro_batch_twice'],
  ['a curve along "width"', answer({ question: 'curve', axis: 'width', model: 'llama-3.1-8b' }), 'request.curve_axis'],
  ['a curve spaced "cubic"', answer({ question: 'curve', spacing: 'cubic', model: 'llama-3.1-8b' }), 'request.curve_spacing'],
  ['a curve at 0 tokens', answer({ question: 'curve', values: [0], model: 'llama-3.1-8b' }), 'request.curve_values'],
  ['a curve of 1 point', answer({ question: 'curve', points: 1, model: 'llama-3.1-8b' }), 'curve.points_range'],
  ['a curve to 10^9 tokens', answer({ question: 'curve', to: 1e9, model: 'llama-3.1-8b' }), 'curve.to_max'],
  ['a curve from above its end', answer({ question: 'curve', from: 5000, to: 100, model: 'llama-3.1-8b' }), 'curve.from_below'],
  ['a curve of 1025 values', answer({ question: 'curve', values: Array.from({ length: 1025 }, (_, i) => i + 1), model: 'llama-3.1-8b' }), 'curve.values_max'],
  ['limits without a GPU', answer({ question: 'limits', model: 'llama-3.1-8b' }), 'limits.needs_gpu'],
  ['biggest_model without a GPU', answer({ question: 'biggest_model' }), 'biggest.needs_gpu'],
  ['a GPU ranking with -ngl', answer({ question: 'gpu_ranking', model: 'llama-3.1-8b', engine: 'llamacpp', gpu_layers: 10 }), 'ranking.gpu_layers'],

  // impossible parallel splits in training
  ['tp 3 over 32 heads', answer({ mode: 'train', model: 'llama-3.1-8b', gpus: 3, tp: 3 }), 'parallel.divide_heads'],
  ['tp above the GPUs', answer({ mode: 'train', model: 'llama-3.1-8b', gpus: 2, tp: 4 }), 'parallel.up_to_gpus'],
  ['pp above the layers', answer({ mode: 'train', model: 'llama-3.1-8b', gpus: 64, pp: 64 }), 'parallel.up_to_layers'],
  ['GPUs that are no multiple of tp × pp', answer({ mode: 'train', model: 'llama-3.1-8b', gpus: 6, tp: 4 }), 'parallel.multiple_of_tp_pp'],
  ['optimizer offload without ZeRO', answer({ mode: 'train', model: 'llama-3.1-8b', offload: 'optimizer', zero: 0 }), 'parallel.offload_zero'],
  ['parameter offload with ZeRO 2', answer({ mode: 'train', model: 'llama-3.1-8b', offload: 'params', zero: 2 }), 'parallel.offload_params_zero3'],
];

const german = (error) => messageText('de', makeFormat('de-DE', 'GB'), error.message);

test('every error a user can trigger carries the expected message id', () => {
  const wrong = [];
  for (const [what, result, id] of cases()) {
    const got = result?.ok === false ? result.error.message?.id : `(no error: ${JSON.stringify(result).slice(0, 80)})`;
    if (got !== id) wrong.push(`${what}: expected ${id}, got ${got} (${result?.error?.field}: ${result?.error?.message?.text})`);
  }
  assert.deepEqual(wrong, []);
});

test('each of those errors has a German template and renders with every parameter filled', () => {
  for (const [what, result] of cases()) {
    if (result?.ok !== false) continue;  // reported by the test above
    const { id, args } = result.error.message;
    assert.ok(MESSAGES.de[id], `${what}: no German template for ${id}`);
    const text = german(result.error);
    assert.notEqual(text, result.error.message.text, `${what}: ${id} renders as the English`);
    assert.doesNotMatch(text, /\{\w+\}/, `${what}: ${id} leaves a parameter: ${text} (args ${JSON.stringify(args)})`);
  }
});

test('the English the CLI prints stays as it was, offsets and keys included', () => {
  // 24 B of header, then the tensor info: 8 + 1 B of name, 4 B n_dimensions, 8 B per dimension: its type at 45.
  const garbled = answerFile(padded(gguf(1, 0, tensorInfo('t', [31], 2, 0))), 'm.gguf');
  assert.equal(garbled.error.field, 'tensor_infos[0].dimensions[0]');
  assert.equal(garbled.error.message.text, 'at offset 45: row length 31 of t is not a multiple of the Q4_0 block (32)');
  const layers = answerFile(padded(gguf(0, 6, [
    ...kv('general.architecture', 8, ggufString('llama')), ...u32kv('llama.block_count', 0),
    ...u32kv('llama.embedding_length', 4096), ...u32kv('llama.attention.head_count', 32),
    ...u32kv('llama.feed_forward_length', 11008), ...u32kv('llama.context_length', 4096)])), 'm.gguf');
  assert.equal(layers.error.field, 'gguf metadata');
  assert.match(layers.error.message.text, /^num_hidden_layers: must be between 1 and 10000, got 0 \(architecture "llama"\)$/);
  const header = answerFile(safetensors({ w: { dtype: 'BF16', shape: [2], data_offsets: [0, 6] } }, 6), 'm.safetensors');
  assert.equal(header.error.message.text, 'at offset 8: 6 bytes do not hold 2 elements of BF16');
  const split = answer({ mode: 'train', model: 'llama-3.1-8b', gpus: 3, tp: 3 });
  // Tensor parallelism splits the query and the key-value heads alike: 32 and 8 heads, whose largest common divisor is 8.
  assert.equal(split.error.message.text, 'must divide both the attention and the key-value heads (their largest common divisor is 8), got 3');
  assert.equal(german(split.error), 'muss die Attention- und die KV-Köpfe ohne Rest teilen (ihr größter gemeinsamer Teiler ist 8), angegeben: 3');
});

// The refactoring guard's corpus: CLI argument lists and binding calls whose whole output (stdout, stderr, exit
// status, or the binding's JSON) is committed under expected/. It does not say the figures are right (the unit
// tests pin those to sources); it says a change that should not move any byte moved none.
const cli = [];
const wasm = [];
const add = (name, args) => cli.push({ name, args });
// answer() with the request's "question"; a request given as text goes as written.
const ask = (name, question, request) =>
  wasm.push({ name, fn: 'answer', request: typeof request === 'string' ? request : { question, ...request } });
// answer_file(): a committed file's first bytes, its size and name, and the request.
const askFile = (name, question, file) =>
  wasm.push({ name, fn: 'answer_file', request: { ...file, request: { question, ...file.request } } });

const models = ['llama-3.1-8b', 'llama-3.1-70b', 'mixtral-8x7b', 'deepseek-v3', 'gemma-2-9b', 'gemma-3-27b',
  'qwen3-8b', 'phi-3-mini', 'gpt2', 'bert-base', 'falcon-40b', 'qwen2.5-0.5b'];
const engines = ['transformers', 'vllm', 'llamacpp'];
for (const m of models) {
  for (const e of engines) {
    add(`${m}-${e}`, ['--model', m, '--engine', e, '--json']);
    add(`${m}-${e}-h100-table`, ['--model', m, '--engine', e, '--gpu', 'h100-sxm', '--context', '8192']);
    ask(`${m}-${e}`, 'estimate', { model: m, engine: e });
    ask(`${m}-${e}-rtx4090`, 'estimate', { model: m, engine: e, gpu: 'rtx-4090', context: 4096, batch: 2 });
  }
}
const formats = ['fp32', 'fp16', 'fp8', 'int8', 'int4', 'nf4', 'bnb-int8', 'gptq-4bit-128g', 'awq-4bit-64g', 'q4_k_m',
  'q8_0', 'gguf-iq2_xxs'];
for (const w of formats) {
  add(`weights-${w}`, ['--model', 'llama-3.1-8b', '--weights', w, '--gpu', 'rtx-4090', '--json']);
  ask(`weights-${w}`, 'estimate', { model: 'llama-3.1-8b', weights: w, gpu: 'rtx-4090' });
}
// A hybrid model's prefill: Gated DeltaNet's recurrence, token by token in llama.cpp, in chunks in vLLM.
add('hybrid-prefill-llamacpp', ['--model', 'qwen3.5-35b-a3b', '--weights', 'q4_0', '--engine', 'llamacpp', '--gpu', 'rtx-4090',
  '--context', '4096', '--prompt', '2048']);
ask('hybrid-prefill-vllm', 'estimate', { model: 'qwen3.5-35b-a3b', engine: 'vllm', gpu: 'h100-sxm', weights: 'fp8',
  context: 32768, prompt_tokens: 8192 });
ask('mamba-prefill-mlx', 'estimate', { model: 'nemotron-h-56b', engine: 'mlx', gpu: 'apple-m3-ultra-512gb', prompt_tokens: 2048 });
add('params-7e9', ['--params', '7e9', '--weights', 'int4']);
add('params-7e9-json', ['--params', '7e9', '--weights', 'fp16', '--json']);
add('kv-fp8', ['--model', 'llama-3.1-8b', '--kv-dtype', 'fp8', '--context', '32k', '--json']);
add('eager-static', ['--model', 'llama-2-7b', '--attention', 'eager', '--kv-allocation', 'static', '--avg-tokens', '1000',
  '--context', '4096', '--batch', '8', '--json']);
add('expandable', ['--model', 'llama-2-13b', '--expandable-segments', '--json']);
add('vllm-util-0.8-table', ['--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--gpu-util', '0.8']);
add('vllm-util-0.8-json', ['--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--gpu-util', '0.8', '--json']);
// Memory other programs already hold (issue 31): each engine's own rule.
add('in-use-transformers', ['--model', 'llama-3.1-8b', '--gpu', 'rtx-4090', '--in-use', '1.5GB', '--json']);
add('in-use-vllm-refuses', ['--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'rtx-a6000', '--context', '8192',
  '--in-use', '15GB']);
// Other models loaded first (--also): a line each, their command lines first; vLLM's shares; Ollama's scheduler.
add('also-llamacpp', ['--model', 'qwen3-8b', '--engine', 'llamacpp', '--gpu', 'rtx-4090', '--context', '8192',
  '--also', 'qwen3-0.6b', '--also', 'llama-3.2-1b@2048']);
add('also-vllm', ['--model', 'qwen3-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--context', '8192',
  '--also', 'llama-3.1-8b@8192', '--json']);
add('also-ollama', ['--model', 'qwen3-8b', '--engine', 'ollama', '--weights', 'q4_k_m', '--gpu', 'rtx-4090',
  '--context', '4096', '--also', 'qwen3-0.6b@4096,llama-3.2-1b@4096,qwen2.5-0.5b@4096']);
add('in-use-sglang', ['--model', 'llama-3.1-8b', '--engine', 'sglang', '--gpu', 'h100-sxm', '--in-use', '6GB', '--json']);
add('in-use-ollama', ['--model', 'llama-3.1-8b', '--engine', 'ollama', '--weights', 'q4_k_m', '--gpu', 'rtx-4090',
  '--in-use', '6GB']);
add('vllm-seqs', ['--model', 'qwen3-8b', '--engine', 'vllm', '--gpu', 'a100-80gb-sxm', '--max-num-seqs', '64',
  '--max-num-batched-tokens', '4096', '--json']);
add('vllm-util-0.8-max-context', ['--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--gpu-util', '0.8',
  '--max-context']);
add('vllm-0.21-eager', ['--model', 'qwen3-32b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--engine-version', '0.21.1', '--enforce-eager']);
add('vllm-0.21-command', ['--model', 'qwen3-32b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--engine-version', '0.21', '--gpu-util', '0.9', '--command']);
add('vllm-util-0.8-remedies', ['--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--gpu-util', '0.8',
  '--remedies', '--json']);
add('llamacpp-ngl', ['--model', 'qwen2.5-7b', '--weights', 'q4_k_m', '--engine', 'llamacpp', '--gpu', 'rtx-4060', '--ngl', '20']);
add('llamacpp-ngl-json', ['--model', 'qwen2.5-7b', '--weights', 'q4_k_m', '--engine', 'llamacpp', '--gpu', 'rtx-4060',
  '--ngl', '20', '--system-bandwidth', '80', '--json']);
add('ollama-vision', ['--model', 'gemma-3-27b', '--engine', 'ollama', '--weights', 'q4_k_m', '--context', '8192',
  '--gpu', 'rtx-4090']);
add('ollama-0.11.10-split', ['--model', 'llama-3.1-8b', '--engine', 'ollama', '--engine-version', '0.11.10', '--gpu',
  'rtx-4060', '--context', '8192']);
ask('ollama-vision-0.31.1', 'estimate', { model: 'gemma-3-27b', engine: 'ollama', engine_version: '0.31.1',
  weights: 'q4_k_m', context: 8192, gpu: 'rtx-4090' });
add('serving-cost', ['--model', 'llama-3.1-8b', '--gpu', 'rtx-4090', '--prompt', '4k', '--usd-per-kwh', '0.3']);
add('serving-cost-json', ['--model', 'llama-3.1-8b', '--gpu', 'l40s', '--prompt', '1024', '--usd-per-kwh', '0.25', '--json']);
add('max-context', ['--model', 'llama-3.1-8b', '--gpu', 'rtx-4090', '--max-context']);
// Issue 34: a card by its numbers, and a catalog card with other memory.
add('custom-gpu', ['--model', 'llama-3.1-8b', '--gpu', 'custom', '--gpu-memory', '48GB', '--gpu-bandwidth', '1008',
  '--gpu-tflops', '165']);
add('custom-gpu-like-json', ['--model', 'llama-3.1-70b', '--weights', 'q4_k_m', '--engine', 'llamacpp', '--gpu', 'rtx-4090',
  '--gpu-memory', '48GB', '--json']);
add('max-context-json', ['--model', 'mixtral-8x7b', '--weights', 'int4', '--gpu', 'a100-80gb-sxm', '--max-batch', '--json']);
add('headroom', ['--model', 'llama-3.1-8b', '--gpu', 'rtx-4090', '--headroom', '0.2', '--max-context']);
add('recommend', ['--model', 'llama-3.1-70b', '--weights', 'awq-4bit-128g', '--rank-gpus', '--budget-per-hour', '10']);
add('recommend-json', ['--model', 'llama-3.1-70b', '--weights', 'awq-4bit-128g', '--rank-gpus', '--json']);
add('recommend-gpus', ['--model', 'llama-3.1-70b', '--engine', 'vllm', '--rank-gpus', '--gpus', 'h100-sxm,l40s,a100-80gb-sxm']);
add('biggest', ['--biggest', '--gpu', 'rtx-3090', '--engine', 'llamacpp', '--context', '8192']);
add('biggest-json', ['--biggest', '--gpu', 'rtx-4090', '--json']);
add('remedies', ['--model', 'llama-2-13b', '--gpu', 'rtx-4090', '--remedies']);
add('remedies-vllm-b200', ['--model', 'llama-3.1-70b', '--engine', 'vllm', '--gpu', 'b200', '--remedies']);
add('nvfp4-rtx5090-speed', ['--model', 'llama-3.1-8b', '--engine', 'vllm', '--weights', 'nvfp4', '--gpu', 'rtx-5090', '--json']);
add('remedies-json', ['--model', 'llama-2-13b', '--gpu', 'rtx-4090', '--remedies', '--json']);
add('remedies-llamacpp', ['--model', 'llama-3.1-70b', '--engine', 'llamacpp', '--weights', 'q4_k_m', '--gpu', 'rtx-4090',
  '--remedies', '--json']);
add('remedies-train', ['--mode', 'train', '--model', 'llama-3.1-8b', '--gpu', 'a100-80gb-sxm', '--remedies']);
add('remedies-train-json', ['--mode', 'train', '--model', 'llama-3.1-8b', '--gpu', 'a100-80gb-sxm', '--remedies', '--json']);
add('qlora', ['--mode', 'qlora', '--model', 'llama-2-7b', '--gpu', 'rtx-4090']);
add('qlora-json', ['--mode', 'qlora', '--model', 'llama-2-7b', '--gpu', 'rtx-4090', '--json']);
add('grpo', ['--mode', 'grpo', '--policy', 'lora', '--model', 'qwen2.5-0.5b', '--gpu', 'rtx-4090']);
add('grpo-vllm-json', ['--mode', 'grpo', '--model', 'llama-3.1-8b', '--beta', '0.04', '--sampler', 'vllm-colocate',
  '--gpu', 'h100-sxm', '--completion', '1024', '--json']);
add('lora-json', ['--mode', 'lora', '--model', 'mistral-7b', '--lora-rank', '64', '--lora-targets', 'q,v', '--seq', '4096',
  '--json']);
add('train-zero3', ['--mode', 'train', '--model', 'llama-3.1-70b', '--gpus', '8', '--zero', '3', '--offload', 'optimizer',
  '--gpu', 'h100-sxm', '--tokens', '1e9']);
add('train-zero3-json', ['--mode', 'train', '--model', 'llama-3.1-70b', '--gpus', '8', '--zero', '3', '--offload', 'optimizer',
  '--gpu', 'h100-sxm', '--tokens', '1e9', '--json']);
add('train-3d', ['--mode', 'train', '--model', 'llama-3.1-70b', '--gpus', '16', '--tp', '4', '--pp', '2', '--sp',
  '--micro-batch', '2', '--grad-accum', '8', '--checkpointing', 'selective', '--gpu', 'h100-sxm', '--json']);
add('train-options', ['--mode', 'train', '--model', 'gpt2', '--precision', 'fp32', '--optimizer', 'sgd-momentum',
  '--flash-attention', 'off', '--dropout', 'on', '--grad-dtype', 'half', '--mfu', '35', '--json']);
add('train-bare', ['--mode', 'train', '--params', '1.5B', '--optimizer', 'adamw-8bit', '--checkpointing', 'full']);
add('train-fsdp', ['--mode', 'train', '--model', 'llama-2-13b', '--gpus', '4', '--zero', 'FULL_SHARD', '--gpu', 'a100-40gb-sxm']);
add('list-models', ['--list-models']);
add('list-gpus', ['--list-gpus']);
add('list-json', ['--list-models', '--json']);
add('help', ['--help']);
add('config-file', ['--model', 'tests/corpus/files/config.json', '--gpu', 'rtx-4090', '--json']);
add('config-file-train', ['--mode', 'lora', '--model', 'tests/corpus/files/config.json', '--json']);
// An NVIDIA checkpoint's config.json with its hf_quant_config.json beside it, read with it (and said so).
add('config-nvidia-beside', ['--model', 'tests/data/configs/nvidia--Llama-3.1-70B-Instruct-FP8_config.json', '--gpu', 'h100-sxm']);
// A model file by its header: a toy safetensors checkpoint with no config.json beside it, and a GGUF file whose
// header names tensor data past its end (the first 4 KiB of tests/data's file).
add('safetensors-file', ['--model', 'tests/corpus/files/bare/model.safetensors', '--gpu', 'rtx-4090']);
add('safetensors-file-json', ['--mode', 'train', '--model', 'tests/corpus/files/bare/model.safetensors', '--json']);
// Wrong input: the message and the exit status are part of the contract.
add('err-unknown-flag', ['--modle', 'llama-3.1-8b']);
add('err-unknown-model', ['--model', 'llama-9000', '--offline']);
add('err-context', ['--model', 'llama-3.1-8b', '--context', '0']);
add('err-huge-context', ['--model', 'llama-3.1-8b', '--context', '999999999999']);
add('err-weights', ['--model', 'llama-3.1-8b', '--weights', 'fp12']);
add('err-gpu', ['--model', 'llama-3.1-8b', '--gpu', 'h1000']);
add('err-engine', ['--model', 'llama-3.1-8b', '--engine', 'tgi']);
add('err-gpu-util', ['--model', 'llama-3.1-8b', '--gpu-util', '1.5']);
add('err-headroom', ['--model', 'llama-3.1-8b', '--headroom', '0.95']);
add('err-twice', ['--model', 'llama-3.1-8b', '--context', '1', '--context', '2']);
add('err-training-flag', ['--model', 'llama-3.1-8b', '--zero', '3']);
add('err-mode', ['--mode', 'pretrain', '--model', 'llama-3.1-8b']);
add('err-train-recommend', ['--mode', 'train', '--model', 'llama-3.1-8b', '--rank-gpus']);
add('err-optimizer', ['--mode', 'train', '--model', 'llama-3.1-8b', '--optimizer', 'adam9']);
add('err-no-model', ['--context', '8192']);
add('err-limits-no-gpu', ['--model', 'llama-3.1-8b', '--max-context']);
add('err-missing-file', ['--model', './does-not-exist.json']);
add('err-truncated-gguf', ['--model', 'tests/corpus/files/truncated.gguf', '--gpu', 'rtx-4090']);

wasm.push({ name: 'catalog', fn: 'catalog', request: null });
ask('solve', 'limits', { model: 'llama-3.1-8b', gpu: 'rtx-4090' });
ask('solve-vllm-0.8', 'limits', { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm', gpu_util: 0.8 });
ask('curve-context', 'curve', { model: 'llama-3.1-8b', axis: 'context', points: 16 });
ask('curve-batch', 'curve', { model: 'mixtral-8x7b', engine: 'vllm', gpu: 'h100-sxm', axis: 'batch', points: 8 });
ask('curve-values', 'curve', { model: 'gemma-2-9b', axis: 'context', values: [1, 4096, 8192, 100000] });
ask('recommend', 'gpu_ranking', { model: 'llama-3.1-70b', weights: 'awq-4bit-128g', budget_per_hour: 10 });
ask('recommend-gpus', 'gpu_ranking', { model: 'llama-3.1-8b', gpus: ['rtx-4090', 'h100-sxm'] });
ask('biggest', 'biggest_model', { gpu: 'rtx-3090', engine: 'llamacpp', context: 8192 });
ask('help', 'remedies', { model: 'llama-2-13b', gpu: 'rtx-4090' });
ask('help-vllm-0.8', 'remedies', { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm', gpu_util: 0.8 });
ask('help-train', 'remedies', { mode: 'train', model: 'llama-3.1-8b', gpu: 'a100-80gb-sxm' });
ask('help-qlora', 'remedies', { mode: 'qlora', model: 'llama-2-7b', gpu: 'rtx-4090' });
ask('train', 'estimate', { mode: 'train', model: 'llama-3.1-70b', gpus: 8, zero: '3', offload: 'optimizer', gpu: 'h100-sxm', tokens: '1e9' });
ask('train-lora', 'estimate', { mode: 'lora', model: 'mistral-7b', lora_rank: 64, sequence: 4096, gpu: 'rtx-4090' });
ask('train-qlora', 'estimate', { mode: 'qlora', model: 'llama-2-7b', gpu: 'rtx-4090' });
ask('train-grpo', 'estimate', { mode: 'grpo', policy: 'qlora', model: 'llama-3.1-8b', gpu: 'rtx-4090', num_generations: 4 });
ask('help-grpo', 'remedies', { mode: 'grpo', model: 'llama-3.1-8b', gpu: 'rtx-4090' });
ask('train-3d', 'estimate', { mode: 'train', model: 'llama-3.1-70b', gpus: 16, tp: 4, pp: 2, sp: true, micro_batch: 2, grad_accum: 8, checkpointing: 'selective', gpu: 'h100-sxm' });
ask('vllm-0.8', 'estimate', { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm', gpu_util: 0.8 });
ask('llamacpp-ngl', 'estimate', { model: 'qwen2.5-7b', weights: 'q4_k_m', engine: 'llamacpp', gpu: 'rtx-4060', gpu_layers: 20 });
ask('serving', 'estimate', { model: 'llama-3.1-8b', gpu: 'l40s', prompt_tokens: 1024, usd_per_kwh: 0.25 });
ask('config', 'estimate', { config: 'FILE:tests/corpus/files/config.json', gpu: 'rtx-4090' });
// The same config.json alone: counted as bf16, its hf_quant_config.json asked for (missing_files, a note).
ask('config-nvidia-alone', 'estimate', { config: 'FILE:tests/data/configs/nvidia--Llama-3.1-70B-Instruct-FP8_config.json',
  config_name: 'nvidia--Llama-3.1-70B-Instruct-FP8_config.json', gpu: 'h100-sxm' });
ask('err-json', 'estimate', '{not json');
ask('err-context', 'estimate', { model: 'llama-3.1-8b', context: 0 });
ask('err-unknown-key', 'estimate', { model: 'llama-3.1-8b', contxt: 8192 });
ask('err-weights', 'estimate', { model: 'llama-3.1-8b', weights: 'fp12' });
ask('err-train-key', 'estimate', { mode: 'train', model: 'llama-3.1-8b', zero: '7' });
ask('err-solve-no-gpu', 'limits', { model: 'llama-3.1-8b' });
askFile('gguf-file', 'estimate', { file: 'tests/data/tiny_llama_v3.gguf.head', name: 'tiny_llama_v3.gguf', size: 4096,
  request: { gpu: 'rtx-4090' } });
askFile('gguf-file-big', 'estimate', { file: 'tests/data/tiny_llama_v3.gguf.head', name: 'tiny_llama_v3.gguf',
  size: 2_000_000_000, request: { engine: 'llamacpp', gpu: 'rtx-4060' } });
ask('err-question', 'cost', { model: 'llama-3.1-8b' });
askFile('gguf-file-curve', 'curve', { file: 'tests/data/tiny_llama_v3.gguf.head', name: 'tiny_llama_v3.gguf', size: 758032,
  request: { axis: 'batch', points: 4 } });
askFile('err-gguf-file-biggest', 'biggest_model', { file: 'tests/data/tiny_llama_v3.gguf.head', name: 'tiny_llama_v3.gguf',
  size: 4096, request: { gpu: 'rtx-4090' } });
// Several questions about one scenario in one request, as the page asks them on every change.
const curves = [{ question: 'curve', axis: 'context', points: 16, spacing: 'log' },
  { question: 'curve', axis: 'batch', points: 8, spacing: 'log' }];
const pageQuestions = ['estimate', { question: 'estimate', every_gpu: true }, { question: 'gpu_ranking', every_gpu: true },
  'remedies', ...curves];
ask('several', undefined, { questions: pageQuestions, model: 'llama-2-13b', gpu: 'rtx-4090' });
ask('several-vllm-0.8', undefined, { questions: pageQuestions, model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm',
  gpu_util: 0.8 });
ask('several-no-gpu', undefined, { questions: ['estimate', 'gpu_ranking', 'remedies', 'limits', ...curves],
  model: 'qwen2.5-7b', weights: 'q4_k_m', engine: 'llamacpp' });
ask('several-train', undefined, { questions: ['estimate', { question: 'estimate', every_gpu: true }, 'remedies', ...curves,
  'gpu_ranking'], mode: 'train', model: 'llama-3.1-8b', gpu: 'a100-80gb-sxm', tokens: '1e9' });
ask('curve-qlora', 'curve', { mode: 'qlora', model: 'llama-2-7b', axis: 'context', values: [512, 1024, 2048, 4096] });
askFile('gguf-file-several-lora', undefined, { file: 'tests/data/tiny_llama_v3.gguf.head', name: 'tiny_llama_v3.gguf',
  size: 758032, request: { questions: ['estimate', ...curves], mode: 'lora' } });
ask('err-several-biggest', undefined, { questions: ['estimate', 'biggest_model'], model: 'llama-3.1-8b', gpu: 'rtx-4090' });

// Speculative decoding's draft (issue 31): a draft model per slot in llama-server, an EAGLE-3 head in vLLM's pool, a
// model's own MTP layers in SGLang's.
add('draft-llamacpp-4090', ['--model', 'qwen2.5-7b', '--engine', 'llamacpp', '--weights', 'q4_k_m', '--context', '4096',
  '--batch', '2', '--draft', 'qwen2.5-0.5b', '--gpu', 'rtx-4090']);
add('draft-eagle3-vllm-json', ['--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--draft-tokens', '3',
  '--draft', 'tests/data/drafts/yuhuili--EAGLE3-LLaMA3.1-Instruct-8B_config.json', '--json']);
add('draft-mtp-sglang', ['--model', 'deepseek-v3', '--engine', 'sglang', '--tp', '8', '--gpu', 'h200-sxm', '--draft', 'mtp',
  '--acceptance', '0.7']);

export { cli, wasm };

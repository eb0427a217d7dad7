// A client written against wasm/vramfit.d.ts, as an embedder would write one: tests/node/declarations.test.mjs
// compiles it with tsc (it is never run), so a change to the declared API that breaks such a client fails there.
import createVramfit from './vramfit';
import type { Answer, Catalog, EstimateAnswer, InferenceRequest, KeptRead, ModelRead, NameReading, Request, TrainingRequest } from './vramfit';

export async function headline(wasm: Uint8Array): Promise<string> {
  const vramfit = await createVramfit({ wasmBinary: wasm });
  const request: InferenceRequest = { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'rtx-4090', context: 8192 };
  const answer = JSON.parse(vramfit.answer(JSON.stringify(request))) as Answer;
  if (!answer.ok) return `${answer.error.field}: ${answer.error.message.text}`;
  if (!('range' in answer)) return '';
  const estimate: EstimateAnswer = answer;
  const placed = estimate.verdict.placement;
  const ram = placed ? ` (${placed.ram_bytes} B in system RAM)` : '';
  return `${estimate.verdict.message.text}: ${estimate.breakdown.total} B${ram}`;
}

export async function pickers(wasm: ArrayBuffer): Promise<string[]> {
  const vramfit = await createVramfit({ wasmBinary: wasm, print: () => {}, printErr: () => {} });
  const catalog = JSON.parse(vramfit.catalog()) as Catalog;
  const name = JSON.parse(vramfit.read_model_name('meta-llama/Llama-3.1-8B', 'main')) as NameReading;
  const training: TrainingRequest = { mode: 'lora', model: 'llama-2-7b', gpu: 'rtx-4090' };
  const several: Request = { questions: ['estimate', 'limits'], model: 'llama-3.1-8b' };
  // A card by its numbers, and a catalog card with other memory.
  const own: InferenceRequest = { model: 'llama-3.1-8b', gpu: 'custom', gpu_memory: '48GB', gpu_bandwidth: 1008, gpu_tflops: 165 };
  const like: TrainingRequest = { mode: 'lora', model: 'llama-2-7b', gpu: 'rtx-4090', gpu_memory: 48 };
  JSON.parse(vramfit.answer(JSON.stringify(own)));
  JSON.parse(vramfit.answer(JSON.stringify(like)));
  JSON.parse(vramfit.answer(JSON.stringify(training)));
  JSON.parse(vramfit.answer(JSON.stringify(several)));
  return [...catalog.gpus.map((g) => g.id), name.ok ? name.kind : name.error.field];
}

export async function fromFile(wasm: Uint8Array, file: Uint8Array, size: number): Promise<number> {
  const vramfit = await createVramfit({ wasmBinary: wasm });
  const answer = JSON.parse(vramfit.answer_file(file, size, 'model.gguf', '{}')) as Answer;
  return answer.ok && 'need_prefix_bytes' in answer ? answer.need_prefix_bytes : 0;
}

// A draft read once (its config.json here) and named by its key in every request after.
export async function keptDraft(wasm: Uint8Array, config: string): Promise<string> {
  const vramfit = await createVramfit({ wasmBinary: wasm });
  const read: ModelRead = { name: 'qwen3-0.6b', config };
  const kept = JSON.parse(vramfit.keep_read('draft_read', JSON.stringify(read))) as KeptRead;
  if (!kept.ok) return `${kept.error.field}: ${kept.error.message.text}`;
  const request: InferenceRequest = { model: 'qwen3-8b', engine: 'vllm', draft: kept.name, draft_read: kept.key };
  const answer = JSON.parse(vramfit.answer(JSON.stringify(request))) as Answer;
  vramfit.forget_read(kept.key);
  return answer.ok ? kept.name : `${answer.error.field}: ${answer.error.message.text}`;
}

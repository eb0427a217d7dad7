// Facade over the wasm module: JSON in and out, so page code never sees Embind handles.
// The single-file build (dist/vramfit.html) inlines the .wasm and sets globalThis.vramfitWasmBinary
// before this runs, so the module never fetches anything (file:// cannot).
import createVramfit from '../vramfit.mjs';

let modulePromise;

function load() {
  const wasmBinary = globalThis.vramfitWasmBinary;
  modulePromise ??= createVramfit(wasmBinary ? { wasmBinary } : {});
  return modulePromise;
}

export async function openCalculator() {
  const module = await load();
  const catalog = JSON.parse(module.catalog());
  return {
    catalog,
    /** @returns {{ok: true, breakdown: object, gpus: object[]} | {ok: false, error: {field: string, message: string}}} */
    evaluate(request) {
      return JSON.parse(module.evaluate(JSON.stringify(request)));
    },
    /**
     * A .gguf / .safetensors file by its header: `prefix` is a Uint8Array of the file's first bytes. Answers
     * {ok: true, need_prefix_bytes} while the header runs past the prefix, then the report for `request`.
     */
    evaluateFile: typeof module.evaluate_file === 'function'
      ? (prefix, size, name, request) => JSON.parse(module.evaluate_file(prefix, size, name, JSON.stringify(request)))
      : null,
    /**
     * A sharded safetensors checkpoint by its shard headers: `files` is [{name, size, bytes}] with each shard's
     * first bytes, `index` the model.safetensors.index.json text ('' without one). Answers
     * {ok: true, need_prefix_bytes, need_file} until every shard header is in hand, then the report.
     */
    evaluateShards: typeof module.evaluate_shards === 'function'
      ? (files, index, request) => JSON.parse(module.evaluate_shards(files, index ?? '', JSON.stringify(request)))
      : null,
    /** What would help: the source article's strategies applied one at a time, {ok, bytes, fit, remedies}. */
    help: typeof module.help === 'function' ? (request) => JSON.parse(module.help(JSON.stringify(request))) : null,
    /** The ranking of GPU type × count for an inference request: {ok, recommendations, cheapest_per_hour, …}. */
    recommend: typeof module.recommend === 'function'
      ? (request) => JSON.parse(module.recommend(JSON.stringify(request)))
      : null,
    /** Memory against context or batch, every point a full core estimate, in one call. */
    curve: typeof module.memory_curve === 'function'
      ? (request) => JSON.parse(module.memory_curve(JSON.stringify(request)))
      : null,
  };
}

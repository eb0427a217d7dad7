// Facade over the wasm module (wasm/README.md): JSON in and out, so page code never sees Embind handles.
// The single-file build (dist/vramfit.html) inlines the .wasm and sets globalThis.vramfitWasmBinary
// before this runs, so the module never fetches anything (file:// cannot).
import createVramfit from '../vramfit.mjs';

let modulePromise;

// The .wasm is fetched and compiled off the main thread: from lang.js on where the page answers at once
// (globalThis.vramfitCompiling), else from the first call on, while the page sets its language; left to the
// glue, the compile would wait for the main thread to be free first.
function load() {
  const wasmBinary = globalThis.vramfitWasmBinary;
  // A server that sends the .wasm under another MIME type defeats streaming: then it compiles from its bytes.
  const compiling = modulePromise || wasmBinary ? null : globalThis.vramfitCompiling
    ?? fetch(new URL('../vramfit.wasm', import.meta.url), { credentials: 'same-origin' }).then((response) => {
      if (!response.ok) throw new Error(`vramfit.wasm: HTTP ${response.status}`);
      return WebAssembly.compileStreaming(response.clone())
        .catch(() => response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes)));
    });
  modulePromise ??= wasmBinary ? createVramfit({ wasmBinary }) : new Promise((resolve, reject) => {
    createVramfit({
      instantiateWasm(imports, receive) {
        compiling.then((module) => WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module)))
          .catch(reject);  // a failed fetch or compile reaches the page's error, not a wait without end
        return {};  // the exports arrive through receive()
      },
    }).then(resolve, reject);
  });
  return modulePromise;
}

/** `pause`, when given, is awaited between instantiating the module and reading its catalogue (a page that is
 * already showing an answer lets the browser breathe between the two long steps). */
export async function openCalculator({ pause } = {}) {
  const module = await load();
  await pause?.();
  const catalog = JSON.parse(module.catalog());
  return {
    catalog,
    /**
     * One question of the core: `request.question` is 'estimate' (the default; training by `mode`), 'limits',
     * 'curve', 'gpu_ranking', 'biggest_model' or 'remedies'; the other keys are its inputs. With `questions` (a list)
     * instead, several questions about one scenario: {ok: true, answers: [one per question]}.
     * @returns {{ok: true} & object | {ok: false, error: {field: string, message: string}}}
     */
    answer(request) {
      return JSON.parse(module.answer(JSON.stringify(request)));
    },
    /**
     * The same question about a .gguf / .safetensors file by its header: `prefix` is a Uint8Array of the file's
     * first bytes. Answers {ok: true, need_prefix_bytes} while the header runs past the prefix.
     */
    answerFile(prefix, size, name, request) {
      return JSON.parse(module.answer_file(prefix, size, name, JSON.stringify(request)));
    },
    /**
     * A sharded safetensors checkpoint by its shard headers: `files` is [{name, size, bytes}] with each shard's
     * first bytes, `index` the model.safetensors.index.json text ('' without one). Answers
     * {ok: true, need_prefix_bytes, need_file} until every shard header is in hand.
     */
    answerShards(files, index, request) {
      return JSON.parse(module.answer_shards(files, index ?? '', JSON.stringify(request)));
    },
    /**
     * What a typed model name is: {kind: 'preset', model}, {kind: 'hub', repo, revision, quant, file, listing} (the
     * Hub model API's path), {kind: 'ollama', name, tag, preset_error} or {ok: false, error}.
     */
    readModelName(name, revision = '') {
      return JSON.parse(module.read_model_name(name, revision));
    },
    /**
     * After the Hub's model API answered `listing` (its JSON text): which texts to read whole and which files by
     * their first bytes, a GGUF repository's quantizations, and a summary of what is read (paths relative to
     * https://huggingface.co).
     */
    planHubReads(name, revision, listing) {
      return JSON.parse(module.plan_hub_reads(name, revision ?? '', listing));
    },
    /**
     * Reads what was read about a draft or another model (draft_read's description) once and keeps it under `key`,
     * in place of what the key held: requests then name it by the key (`draft_read: key`, `also_read: {name: key}`),
     * so its header is not sent and decoded again with every answer. {ok: true, key, name} or {ok: false, error}.
     */
    keepRead(key, description) {
      return JSON.parse(module.keep_read(key, JSON.stringify(description)));
    },
    /** Lets go of what keepRead kept under `key` (nothing when it holds nothing). */
    forgetRead(key) {
      module.forget_read(key);
    },
    /** A failed lookup ({service, name, status, error_code, token, gated, failure, limit}) as the error a person reads. */
    lookupFailure(failure) {
      return JSON.parse(module.lookup_failure(JSON.stringify(failure)));
    },
  };
}

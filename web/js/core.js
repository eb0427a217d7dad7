// Facade over the wasm module: JSON in and out, so page code never sees Embind handles.
import createVramfit from '../vramfit.mjs';

let modulePromise;

function load() {
  modulePromise ??= createVramfit();
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
  };
}

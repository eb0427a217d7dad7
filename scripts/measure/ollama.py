#!/usr/bin/env python3
"""Validation rows from Ollama: the KV cache and compute graph its server log prints when it loads a model.

  OLLAMA_DEBUG=1 ollama serve 2>&1 | tee ollama.log &
  ollama run llama3.2:3b "hi" --verbose    # or a request with "options": {"num_ctx": 8192}
  python3 scripts/measure/ollama.py --log ollama.log --model llama-3.2-3b --context 4096 --version 0.9.0 \
      --gpu rtx-4090 --id ollama-llama32-3b-4k --source-url https://github.com/<you>/vramfit/issues/<n>

Up to 0.11.10 the estimator prints one line (llm/memory.go): msg="offload to cuda" ... memory.required.kv="896.0 MiB"
... memory.graph.full="424.0 MiB" memory.graph.partial="570.7 MiB", read as /ollama/kv_bytes,
/ollama/graph_full_bytes and /ollama/graph_partial_bytes. Later versions print what the runner allocated
(llm/server.go): msg="kv cache" device=CUDA0 size="896.0 MiB" and msg="compute graph" device=CUDA0 size="..."
(read as /breakdown/kv_cache and /breakdown/activations). Give --context as the num_ctx the model ran with (the log's
KvSize is num_ctx × parallel: give --batch for OLLAMA_NUM_PARALLEL) and --flash-attention when
OLLAMA_FLASH_ATTENTION=1.
"""
import argparse
import re

from row import make_row, print_rows, read_log, source_args

UNITS = {"B": "bytes", "KiB": "KiB", "MiB": "MiB", "GiB": "GiB"}
ESTIMATOR = [("memory.required.kv", "/ollama/kv_bytes", "KV cache"),
             ("memory.graph.full", "/ollama/graph_full_bytes", "compute graph, all layers on the GPU"),
             ("memory.graph.partial", "/ollama/graph_partial_bytes", "compute graph, some layers on the CPU")]
ALLOCATED = [("kv cache", "/breakdown/kv_cache", "KV cache"), ("compute graph", "/breakdown/activations", "compute graph")]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log", required=True, help="ollama serve's output (- for stdin)")
    p.add_argument("--model", required=True, help="vramfit's preset id or the Ollama tag (qwen3:8b)")
    p.add_argument("--context", type=int, required=True, help="num_ctx")
    p.add_argument("--batch", type=int, default=1, help="OLLAMA_NUM_PARALLEL")
    p.add_argument("--weights", help="the tag's quantization, when not the preset's default (q4_k_m)")
    p.add_argument("--flash-attention", action="store_true", help="OLLAMA_FLASH_ATTENTION=1")
    p.add_argument("--version", required=True, help="ollama --version")
    source_args(p)
    args = p.parse_args()
    log = read_log(args.log)
    request = {"model": args.model, "engine": "ollama", "gpu": args.gpu, "context": args.context,
               "engine_version": args.version}
    if args.batch > 1:
        request["batch"] = args.batch
    if args.weights:
        request["weights"] = args.weights
    if args.flash_attention:
        request["attention"] = "sdpa"
    rows = []
    ref = f"Ollama {args.version}"
    for key, pointer, what in ESTIMATOR:
        m = re.search(re.escape(key) + r'="([\d.]+) (B|KiB|MiB|GiB)"', log)
        if m:
            rows.append(make_row(args, kind="engine_log", engine="ollama", what=f"{args.model}: {what}", ref=ref,
                                 quote=m.group(0), request=request, answer_path=pointer, figure=float(m.group(1)),
                                 unit=UNITS[m.group(2)], suffix="-" + key.rsplit(".", 1)[1]))
    for msg, pointer, what in ALLOCATED:
        m = re.search(r'msg="' + msg + r'" device=(\S+) size="([\d.]+) (B|KiB|MiB|GiB)"', log)
        if m and m.group(1) != "CPU":
            rows.append(make_row(args, kind="engine_log", engine="ollama", what=f"{args.model}: {what}", ref=ref,
                                 quote=m.group(0), request=request, answer_path=pointer, figure=float(m.group(2)),
                                 unit=UNITS[m.group(3)], suffix="-" + msg.replace(" ", "-")))
    print_rows(rows)


if __name__ == "__main__":
    main()

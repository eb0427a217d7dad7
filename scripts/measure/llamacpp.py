#!/usr/bin/env python3
"""Validation rows from a llama.cpp log (llama-server or llama-cli): the KV cache and compute buffers it allocated.

  llama-server -m Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -c 8192 -ngl 99 2>&1 | tee llama.log
  # stop it once it prints "server is listening", then:
  python3 scripts/measure/llamacpp.py --log llama.log --model llama-3.1-8b --weights q4_k_m --context 8192 \
      --gpu rtx-4090 --id llamacpp-llama31-8b-q4km-8k --source-url https://github.com/<you>/vramfit/issues/<n>

The lines read (src/llama-kv-cache.cpp, src/llama-context.cpp; one GPU, every layer on it):
  "llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (f16): ..."  -> /breakdown/kv_cache
  "llama_context:      CUDA0 compute buffer size =   560.00 MiB"                           -> /llamacpp/compute_buffer_bytes
Older builds print "llama_kv_cache_unified: size = ..." or "llama_kv_cache_init: CUDA0 KV buffer size = ..."; both
are read. Give vramfit the same -c, -ngl, -fa and --cache-type-k/v (as --kv-dtype) as the run; --fit off keeps
llama.cpp from changing the context (with --fit on, give no context: vramfit plans the fit as llama.cpp does).
"""
import argparse
import re

from row import make_row, print_rows, read_log, source_args

KV = [r"llama_kv_cache(?:_unified)?: size = +([\d.]+) MiB", r"llama_kv_cache_init: +CUDA0 KV buffer size = +([\d.]+) MiB"]
COMPUTE = r"CUDA0 compute buffer size = +([\d.]+) MiB"


def first(patterns, log):
    for pattern in patterns:
        m = re.search(pattern, log)
        if m:
            return m
    return None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log", required=True, help="llama-server's output (- for stdin)")
    p.add_argument("--model", required=True, help="vramfit's preset id or Hugging Face id of the GGUF")
    p.add_argument("--weights", required=True, help="the GGUF's type: q4_k_m, q8_0, f16 ...")
    p.add_argument("--context", type=int, help="-c, if given")
    p.add_argument("--kv-dtype", help="--cache-type-k/-v, if not f16 (q8_0, q4_0)")
    p.add_argument("--flash-attn", choices=["on", "off"], help="-fa, if given")
    p.add_argument("--build", default="", help="llama.cpp's build, e.g. b6895 (read from the log when printed)")
    source_args(p)
    args = p.parse_args()
    log = read_log(args.log)
    build = args.build
    if not build:
        m = re.search(r"build: (\d+) \((\w+)\)", log)
        build = f"build {m.group(1)} ({m.group(2)})" if m else ""
    request = {"model": args.model, "engine": "llamacpp", "weights": args.weights, "gpu": args.gpu}
    if args.context:
        request["context"] = args.context
    if args.kv_dtype:
        request["kv_dtype"] = args.kv_dtype
    if args.flash_attn:
        request["attention"] = "sdpa" if args.flash_attn == "on" else "eager"
    rows = []
    ref = build or "llama.cpp"
    kv = first(KV, log)
    if kv:
        rows.append(make_row(args, kind="engine_log", engine="llama.cpp", what=f"{args.model} {args.weights}: KV cache",
                             ref=ref, quote=kv.group(0).strip(), request=request, answer_path="/breakdown/kv_cache",
                             figure=float(kv.group(1)), unit="MiB", suffix="-kv"))
    compute = re.search(COMPUTE, log)
    if compute:
        rows.append(make_row(args, kind="engine_log", engine="llama.cpp",
                             what=f"{args.model} {args.weights}: compute buffer", ref=ref, quote=compute.group(0).strip(),
                             request=request, answer_path="/llamacpp/compute_buffer_bytes",
                             figure=float(compute.group(1)), unit="MiB", suffix="-compute"))
    print_rows(rows)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A validation row from an SGLang startup log: the tokens its KV pool holds and the weights it loaded.

  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32768 2>&1 | tee sglang.log
  # stop it once it prints "The server is fired up and ready to roll!", then:
  python3 scripts/measure/sglang.py --log sglang.log --model qwen3-8b --gpu h100-sxm --context 32768 \
      --id sglang-qwen3-8b-h100 --source-url https://github.com/<you>/vramfit/issues/<n>

The lines read (python/sglang/srt/model_executor/model_runner.py, managers/scheduler.py):
  "Load weight end. ... mem usage=15.27 GB"                 -> /sglang/weights_bytes (SGLang's "GB" is GiB)
  "max_total_num_tokens=420455, chunked_prefill_size=..."   -> /sglang/max_total_num_tokens
Give vramfit the same --mem-fraction-static, --tp and --max-total-tokens as the server; the version is read from
the log ("sglang version") or given.
"""
import argparse
import re

from row import print_rows, read_log, rows_from_log, source_args

PATTERNS = [
    # (regex, answer pointer, unit, what, id suffix)
    (r"Load weight end\..*?mem usage=([\d.]+) GB", "/sglang/weights_bytes", "GiB", "weights SGLang loaded", "-weights"),
    (r"max_total_num_tokens=(\d+)", "/sglang/max_total_num_tokens", "tokens", "KV pool in tokens", "-tokens"),
]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log", required=True, help="launch_server's output (- for stdin)")
    p.add_argument("--model", required=True, help="vramfit's preset id or the Hugging Face id you served")
    p.add_argument("--context", type=int, required=True, help="--context-length")
    p.add_argument("--tp", type=int, default=1)
    p.add_argument("--mem-fraction-static", type=float)
    p.add_argument("--max-total-tokens", type=int)
    p.add_argument("--version", help="SGLang's version, e.g. 0.5.9")
    source_args(p)
    args = p.parse_args()
    log = read_log(args.log)
    version = args.version
    if not version:
        m = re.search(r"sglang(?: version|==)\s*:?\s*v?([\d.]+)", log, re.I)
        version = m.group(1) if m else ""
    request = {"model": args.model, "engine": "sglang", "gpu": args.gpu, "context": args.context}
    if version:
        request["engine_version"] = version
    if args.tp > 1:
        request["tp"] = args.tp
    if args.mem_fraction_static is not None:
        request["mem_fraction_static"] = args.mem_fraction_static
    if args.max_total_tokens is not None:
        request["max_total_tokens"] = args.max_total_tokens
    rows = rows_from_log(args, log, PATTERNS, engine="sglang", ref=f"SGLang {version}" if version else "SGLang",
                         request=request)
    print_rows(rows)


if __name__ == "__main__":
    main()

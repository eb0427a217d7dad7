#!/usr/bin/env python3
"""A validation row from a vLLM startup log: the KV pool vLLM sized, in bytes and tokens, and its weights.

Run the server as you would, with its log kept (GPU memory is read once at startup; nothing else may run on it):

  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 16000 2>&1 | tee vllm.log
  # stop it (Ctrl-C) once it prints "Application startup complete", then:
  python3 scripts/measure/vllm.py --log vllm.log --model llama-3.1-8b --gpu h100-sxm --context 16000 \
      --id vllm-llama31-8b-h100-16k --source-url https://github.com/<you>/vramfit/issues/<n>

The lines read are the ones vLLM V1 prints at INFO (vllm/v1/worker/gpu_worker.py, vllm/v1/core/kv_cache_utils.py):
  "Model loading took 14.99 GiB"            -> /vllm/weights_bytes
  "Available KV cache memory: 51.38 GiB"    -> /vllm/kv_capacity_bytes
  "GPU KV cache size: 420,880 tokens"       -> /vllm/kv_capacity_tokens
Give the same flags to vramfit as to vllm serve (--gpu-memory-utilization, --tensor-parallel-size, --kv-cache-dtype,
--max-num-seqs, --max-num-batched-tokens, --enforce-eager); the version is read from the log when it prints it.
"""
import argparse
import re

from row import print_rows, read_log, rows_from_log, source_args

PATTERNS = [
    # (regex, answer pointer, unit, what, id suffix)
    (r"Model loading took:? ([\d.]+) ?GiB", "/vllm/weights_bytes", "GiB", "weights vLLM loaded", "-weights-bytes"),
    (r"Available KV cache memory: ([\d.]+) ?GiB", "/vllm/kv_capacity_bytes", "GiB", "KV cache pool",
     "-kv-capacity-bytes"),
    (r"GPU KV cache size: ([\d,]+) tokens", "/vllm/kv_capacity_tokens", "tokens", "KV cache pool in tokens",
     "-kv-capacity-tokens"),
]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log", required=True, help="vllm serve's output (- for stdin)")
    p.add_argument("--model", required=True, help="vramfit's preset id or the Hugging Face id you served")
    p.add_argument("--context", type=int, required=True, help="--max-model-len")
    p.add_argument("--gpu-util", type=float, help="--gpu-memory-utilization, if given")
    p.add_argument("--tp", type=int, default=1, help="--tensor-parallel-size")
    p.add_argument("--kv-dtype", help="--kv-cache-dtype, if not auto (fp8)")
    p.add_argument("--max-num-seqs", type=int)
    p.add_argument("--max-num-batched-tokens", type=int)
    p.add_argument("--enforce-eager", action="store_true")
    p.add_argument("--version", help="vLLM's version, when the log does not print it")
    source_args(p)
    args = p.parse_args()
    log = read_log(args.log)
    version = args.version
    if not version:
        m = re.search(r"vLLM API server version ([\w.+-]+)", log) or re.search(r"V1 LLM engine \(v([\w.+-]+)\)", log)
        version = m.group(1) if m else ""
    request = {"model": args.model, "engine": "vllm", "gpu": args.gpu, "context": args.context}
    if version:
        request["engine_version"] = version.split("+")[0]
    for key, value in (("gpu_util", args.gpu_util), ("kv_dtype", args.kv_dtype), ("max_num_seqs", args.max_num_seqs),
                       ("max_num_batched_tokens", args.max_num_batched_tokens)):
        if value is not None:
            request[key] = value
    if args.tp > 1:
        request["tp"] = args.tp
    if args.enforce_eager:
        request["enforce_eager"] = True
    rows = rows_from_log(args, log, PATTERNS, engine="vllm", ref=f"vLLM {version}" if version else "vLLM",
                         request=request)
    print_rows(rows)


if __name__ == "__main__":
    main()

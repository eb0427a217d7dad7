#!/usr/bin/env python3
"""A validation row from mlx_lm on a Mac: the peak memory of one generation, as mx.get_peak_memory() reads it.

  pip install mlx-lm
  python3 scripts/measure/mlx_lm_peak.py --hf mlx-community/Meta-Llama-3.1-8B-Instruct-4bit --model llama-3.1-8b \
      --weights mlx-4bit --prompt-tokens 8192 --max-tokens 100 --gpu apple-m4-max-128gb \
      --id mlx-llama31-8b-4bit-8k --source-url https://github.com/<you>/vramfit/issues/<n>

The peak is what mlx_lm.generate prints as "Peak memory: X GB" (mlx_lm/generate.py: mx.get_peak_memory() / 1e9):
the weights, the cache at prompt + generated tokens, and the largest prefill step. It is compared with
/breakdown/total for the request {"engine": "mlx", "context": prompt + max_tokens}. Nothing else should run in
the process; the prompt is made of repeated tokens, so its length is exact.
"""
import argparse

from row import make_row, print_rows, source_args


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hf", required=True, help="the MLX checkpoint on the Hub")
    p.add_argument("--model", required=True, help="vramfit's preset id or Hugging Face id of the base model")
    p.add_argument("--weights", required=True, help="mlx-4bit, mlx-8bit, bf16 ...")
    p.add_argument("--prompt-tokens", type=int, default=4096)
    p.add_argument("--max-tokens", type=int, default=100)
    source_args(p)
    args = p.parse_args()
    import mlx.core as mx
    from mlx_lm import load, generate
    from mlx_lm.sample_utils import make_sampler

    model, tokenizer = load(args.hf)
    prompt = [tokenizer.bos_token_id or 1] + [tokenizer.encode(" the", add_special_tokens=False)[0]] * (args.prompt_tokens - 1)
    mx.reset_peak_memory()
    generate(model, tokenizer, prompt=prompt, max_tokens=args.max_tokens, sampler=make_sampler(temp=0.0))
    peak_gb = mx.get_peak_memory() / 1e9
    import mlx_lm
    request = {"model": args.model, "engine": "mlx", "weights": args.weights, "gpu": args.gpu,
               "context": args.prompt_tokens + args.max_tokens}
    print_rows([make_row(args, kind="measured_peak", engine="mlx",
                         what=f"{args.model} {args.weights}, {args.prompt_tokens}-token prompt + {args.max_tokens}: peak",
                         ref=f"mlx {mx.__version__}, mlx-lm {mlx_lm.__version__}",
                         quote=f"Peak memory: {peak_gb:.3f} GB", request=request, answer_path="/breakdown/total",
                         figure=round(peak_gb, 3), unit="GB")])


if __name__ == "__main__":
    main()

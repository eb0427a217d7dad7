#!/usr/bin/env python3
"""A validation row from one PyTorch training step on a CUDA GPU: the peak memory of a full fine-tune in bf16 or a
LoRA step, as the process holds it (the CUDA context plus what PyTorch's caching allocator reserved).

  pip install torch transformers peft
  python3 scripts/measure/torch_train_step.py --hf meta-llama/Llama-3.2-1B --model llama-3.2-1b --mode train \
      --seq 2048 --micro-batch 1 --gpu h100-sxm --id torch-llama32-1b-bf16-2k \
      --source-url https://github.com/<you>/vramfit/issues/<n>

The model is loaded in bf16 with SDPA attention; a full fine-tune steps torch.optim.AdamW over bf16 parameters
(vramfit's precision bf16: bf16 weights, gradients and moments), LoRA steps PEFT adapters (r 16 on every linear
layer, vramfit's lora_targets all-linear) with the base frozen. Two steps run; the second's peak counts, after
the optimizer's states exist. Figure: torch.cuda.max_memory_reserved() + the CUDA context (the device's used
memory before the model, read with torch.cuda.mem_get_info), compared with /breakdown/total.
"""
import argparse

from row import make_row, print_rows, source_args


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hf", required=True, help="the checkpoint on the Hub")
    p.add_argument("--model", required=True, help="vramfit's preset id or the Hugging Face id")
    p.add_argument("--mode", choices=["train", "lora"], default="train")
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument("--checkpointing", choices=["none", "full"], default="none")
    source_args(p)
    args = p.parse_args()
    import torch
    import transformers
    from transformers import AutoModelForCausalLM

    torch.cuda.init()
    torch.empty(1, device="cuda")
    free, total = torch.cuda.mem_get_info()
    context = total - free - torch.cuda.memory_reserved()
    model = AutoModelForCausalLM.from_pretrained(args.hf, torch_dtype=torch.bfloat16, attn_implementation="sdpa").cuda()
    model.config.use_cache = False
    if args.checkpointing == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if args.mode == "lora":
        from peft import LoraConfig, get_peft_model
        if args.checkpointing == "full":
            model.enable_input_require_grads()
        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", lora_dropout=0.0))
    optimizer = torch.optim.AdamW([q for q in model.parameters() if q.requires_grad], lr=1e-5)
    vocab = model.config.vocab_size
    for step in range(2):
        if step == 1:
            torch.cuda.reset_peak_memory_stats()
        ids = torch.randint(0, vocab, (args.micro_batch, args.seq), device="cuda")
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_reserved() + context
    request = {"model": args.model, "mode": args.mode, "gpu": args.gpu, "sequence": args.seq,
               "micro_batch": args.micro_batch, "checkpointing": args.checkpointing, "attn_implementation": "sdpa",
               "optimizer": "adamw"}
    if args.mode == "train":
        request["precision"] = "bf16"
    else:
        request.update({"lora_rank": 16, "lora_targets": "all-linear"})
    print_rows([make_row(args, kind="measured_peak", engine="transformers",
                         what=f"{args.model} {args.mode}, {args.micro_batch} × {args.seq} tokens: peak of a training step",
                         ref=f"torch {torch.__version__}, transformers {transformers.__version__}",
                         quote=f"max_memory_reserved {torch.cuda.max_memory_reserved()} B + CUDA context {context} B",
                         request=request, answer_path="/breakdown/total", figure=peak, unit="bytes")])


if __name__ == "__main__":
    main()

#include "json/inputs.hpp"

#include "util/text.hpp"  // lower_ascii

#include <limits>  // std::numeric_limits

#include "memory/activations.hpp"   // checkpointing_names
#include "memory/engines/engine.hpp"        // kEngineNames, kAttentionNames, kKvAllocationNames
#include "memory/grpo.hpp"          // kMaxGrpoGenerations, grpo_sampler_names, is_grpo_mode
#include "memory/inference.hpp"     // kMaxContextTokens, kMaxBatch
#include "memory/kv_cache.hpp"      // kv_dtype_names
#include "memory/parallelism.hpp"   // kMaxGpus, kMaxGradientAccumulation, offload_names, zero_names
#include "memory/training.hpp"      // kMaxLoraRank, precision_names, optimizer_names, grad_dtype_names
#include "hardware/gpu.hpp"         // gpu_vendor_names, parse_gpu_vendor

namespace vramfit {

namespace {

using K = InputKind;
using U = InputUse;
using E = Engines;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTokens = static_cast<double>(kMaxContextTokens);
constexpr bool kAboveMin = true;
constexpr std::uint64_t kMaxWiredLimitMib = 1u << 20;  // 1 TiB: above every Mac's RAM; the GPU's own RAM is checked later

// Ordered as the CLI's help lists them: what the model is, how it runs, where, then training.
constexpr Input kInputs[] = {
    {"model", "--model", "model", K::text, 0, 0, "ID|PATH",
     "model preset id (see --list-models); a Hugging Face id or link (owner/name, owner/name-GGUF:Q4_K_M) or an Ollama "
     "name (phi4, qwen3:32b) to look up; or a path to a config.json (or its checkpoint folder), .gguf or .safetensors"},
    {"config", "", "", K::config, 0, 0, "", "a config.json's architecture fields, as an object or its text"},
    {"model_name", "", "", K::text, 0, 0, "", "the name shown for a config.json or model file (a looked-up repository's id)"},
    {"model_repo", "", "", K::text, 0, 0, "",
     "the Hugging Face repository a looked-up model file was read from (owner/name): llama.cpp's command fetches "
     "a GGUF from it by its quantization (-hf owner/name:QUANT)"},
    {"model_revision", "", "", K::text, 0, 0, "",
     "the revision (branch, tag or commit) of model_repo the file was read at; none: the default branch"},
    {"model_hf_file", "", "", K::text, 0, 0, "",
     "the file of model_repo that was read, when llama-server's -hf owner/name:QUANT would fetch another"},
    {"ollama_tag", "", "", K::text, 0, 0, "",
     "the Ollama tag a looked-up model file is (\"phi4:14b\"): the engine is Ollama unless one is given",
     U::inference},
    {"quant_config", "--quant-config", "", K::config, 0, 0, "FILE",
     "an NVIDIA ModelOpt hf_quant_config.json read with the config.json (the one beside --model's config.json is "
     "read by itself)"},
    {"config_name", "", "", K::text, 0, 0, "",
     "the config.json's file or folder name: one that says FP8 or NVFP4 (an NVIDIA checkpoint's) over a config.json "
     "naming no quantization asks for its hf_quant_config.json"},
    {"params", "--params", "", K::quantity, 1, 1e14, "N", "bare parameter count instead of a model: 7e9, 7B, 1.5T, 500M"},
    {"mode", "--mode", "", K::choice, 0, 0, "MODE",
     "inference (default), train (full fine-tune), lora, qlora or grpo (RL fine-tuning as TRL's GRPOTrainer runs it)"},
    {"weights", "--weights", "weights", K::text, 0, 0, "FORMAT",
     "weight format: fp32 fp16 bf16 fp8 int8 int4 nf4 nf4-no-dq bnb-int8 gptq-4bit-128g awq-4bit-64g q4_k_m q8_0 "
     "gguf-iq2_xxs ... (default: the config's quantization, else bf16)"},
    {"kv_dtype", "--kv-dtype", "kv", K::choice, 0, 0, "DTYPE",
     "KV cache precision: fp32, fp16, bf16, fp8, q8_0, q4_0 (MLX: q8_0 and q4_0 are --kv-bits 8 and 4) (default: the engine's)", U::inference},
    {"context", "--context", "context", K::tokens, 1, kTokens, "TOKENS",
     "context length in tokens, e.g. 8192 or 8k (default: the engine's default context)"},
    {"batch", "--batch", "batch", K::count, 1, static_cast<double>(kMaxBatch), "N", "concurrent sequences (default 1)"},
    {"engine", "--engine", "engine", K::choice, 0, 0, "NAME", "transformers, vllm, llamacpp, sglang, ollama or mlx (mlx-lm, LM Studio's MLX runtime; Apple GPUs) (default transformers)",
     U::inference},
    {"attention", "--attention", "", K::choice, 0, 0, "KIND",
     "sdpa or eager (transformers); llama.cpp: sdpa = -fa on, eager = -fa off (default sdpa); Ollama: sdpa = "
     "OLLAMA_FLASH_ATTENTION=1 (default: unset, llama-server's auto; up to 0.11.10 off)", U::inference},
    {"kv_allocation", "--kv-allocation", "", K::choice, 0, 0, "KIND",
     "static (reserve the full context) or paged (blocks of 16) (default: the engine's)", U::inference},
    {"avg_tokens", "--avg-tokens", "", K::tokens, 1, kTokens, "TOKENS",
     "average actual tokens per sequence, for the paged-allocation cost", U::inference},
    {"expandable_segments", "--expandable-segments", "", K::toggle, 0, 0, "",
     "PyTorch allocator with expandable_segments:True (no fragmentation reserve)", U::inference, false,
     E::transformers},
    {"gpu", "--gpu", "gpu", K::text, 0, 0, "NAME",
     "report the fit, speed and cost on this GPU only (see --list-gpus); vLLM needs it for the KV capacity"},
    {"gpu_memory", "--gpu-memory", "gpumem", K::size, 1, 16384, "SIZE",
     "a card not in the catalog (--gpu custom), or --gpu's card with other memory (--gpu rtx-4090 --gpu-memory "
     "48GB): its memory, e.g. 48GB or 24 GiB (a card's GB are GiB, as its maker counts them)"},
    {"gpu_bandwidth", "--gpu-bandwidth", "gpubw", K::number, 0, 100'000, "GB/S",
     "that card's memory bandwidth in GB/s (for the speed; --gpu custom: not known unless given)", U::both, kAboveMin},
    {"gpu_tflops", "--gpu-tflops", "gputflops", K::number, 0, 100'000, "TFLOPS",
     "that card's dense BF16/FP16 tensor TFLOPS (prefill speed, training time)", U::both, kAboveMin},
    {"gpu_tflops_fp8", "--gpu-tflops-fp8", "gpufp8", K::number, 0, 100'000, "TFLOPS",
     "that card's dense FP8 tensor TFLOPS", U::both, kAboveMin},
    {"gpu_tflops_fp4", "--gpu-tflops-fp4", "gpufp4", K::number, 0, 100'000, "TFLOPS",
     "that card's dense FP4 tensor TFLOPS", U::both, kAboveMin},
    {"gpu_vendor", "--gpu-vendor", "gpuvendor", K::choice, 0, 0, "NAME",
     "--gpu custom: nvidia, amd, intel or apple (default: not known)"},
    {"gpu_unified", "--gpu-unified", "gpuunified", K::toggle, 0, 0, "yes|no",
     "--gpu custom: the GPU shares the computer's memory (--gpu-memory is the RAM; needs --gpu-vendor apple, amd or "
     "nvidia) (default: no; yes for apple)"},
    {"wired_limit_mb", "--wired-limit-mb", "wired", K::count, 0, static_cast<double>(kMaxWiredLimitMib), "MB",
     "a GPU that shares the machine's memory: what it may use, in MB. Apple: as `sudo sysctl iogpu.wired_limit_mb=N` "
     "sets it (or the recommendedMaxWorkingSetSize your Mac reports); 0: macOS's default (2/3 of RAM up to 32 GB, 3/4 "
     "above). Strix Halo: the GTT limit (ttm.pages_limit), the BIOS carve-out or Windows' Variable Graphics Memory; 0: "
     "Linux's default (half the RAM). DGX Spark, Jetson: what the machine has free; 0: the total CUDA reports", U::both},
    {"gpu_util", "--gpu-util", "gpuutil", K::fraction, 0, 1, "FRACTION",
     "vLLM gpu_memory_utilization, above 0 up to 1 (default 0.92; 0.9 up to vLLM 0.20; GRPO's colocated vLLM 0.3, as TRL)", U::both, kAboveMin,
     E::vllm},
    {"engine_version", "--engine-version", "version", K::text, 0, 0, "VERSION",
     "vLLM's version, for its memory rule: 0.9.2 to 0.20 (as 0.11: CUDA graphs outside --gpu-util, default 0.9), 0.21 "
     "to 0.24 (CUDA graphs inside --gpu-util, default 0.92), 0.25 to 0.26 (dense models on Model Runner V2, their CUDA "
     "graphs outside) or 0.27 (default: also prefix caching for hybrid models; 0.28 and later are refused, not yet "
     "modelled); SGLang's: up to 0.5.2 (mem_fraction_static by TP), 0.5.3 to 0.5.9 (by GPU memory) or 0.5.10 and "
     "later (default: by GPU memory, less the prefill CUDA graphs; releases after 0.5.10 are assumed to keep its "
     "rule); Ollama's: up to 0.6.6 (num_ctx 2048), 0.6.7 to 0.11.10 (its estimator, 4096), or 0.30 and later "
     "(llama-server's --fit; num_ctx by GPU memory; a vision projector on the GPU from 0.30.11, room kept for it from "
     "0.31.2; default: as 0.32.15, and releases after it are assumed to run as it does); mlx-lm's: 0.22.2 to 0.26.4 "
     "(the prompt's last chunk computes logits for each of its tokens) or 0.27 and later (default: as 0.31.3, the last "
     "token's only, assumed for later releases); llama.cpp's build: b9297 to b9304 (--fit keeps no room for a draft "
     "model) or b9305 to b10488 (default: b10488, room for the draft; other builds are refused)",
     U::inference, false, E::vllm | E::sglang | E::ollama | E::mlx | E::llamacpp},
    {"enforce_eager", "--enforce-eager", "", K::toggle, 0, 0, "", "vLLM --enforce-eager: no CUDA graphs", U::inference, false, E::vllm},
    {"language_model_only", "--language-model-only", "", K::toggle, 0, 0, "",
     "vLLM --language-model-only: a vision model's language model alone (no vision tower, no image profiling)",
     U::inference, false, E::vllm},
    {"max_num_batched_tokens", "--max-num-batched-tokens", "", K::tokens, 1, kTokens, "TOKENS",
     "vLLM max_num_batched_tokens (default 2048; 8192 on >= 70 GiB non-A100, as vllm serve sets it)", U::inference, false, E::vllm},
    {"max_num_seqs", "--max-num-seqs", "", K::count, 1, static_cast<double>(kMaxBatch), "N",
     "vLLM max_num_seqs (default 256; 1024 on >= 70 GiB non-A100)", U::inference, false, E::vllm},
    {"mem_fraction_static", "--mem-fraction-static", "memfrac", K::fraction, 0, 1, "FRACTION",
     "SGLang mem_fraction_static: weights + KV pool as a share of the free memory (default: SGLang's for the GPU)",
     U::inference, kAboveMin, E::sglang},
    {"max_total_tokens", "--max-total-tokens", "", K::tokens, 1, kTokens, "TOKENS",
     "SGLang --max-total-tokens: caps the KV pool's tokens (default: what the memory holds)", U::inference, false,
     E::sglang},
    {"max_kv_size", "--max-kv-size", "maxkv", K::tokens, 1, kTokens, "TOKENS",
     "MLX --max-kv-size: a rotating cache that keeps this many tokens (default: every token)", U::inference, false,
     E::mlx},
    {"ollama_gpu_overhead", "--gpu-overhead", "", K::quantity, 0, 1e12, "BYTES",
     "Ollama's OLLAMA_GPU_OVERHEAD: bytes kept free on each GPU, e.g. 1e9 (default 0)", U::inference, false,
     E::ollama},
    {"memory_in_use", "--in-use", "inuse", K::size, 0, 16384, "SIZE",
     "memory other programs already hold on each GPU (a desktop and browser, another model server), e.g. 1.5GB, as "
     "nvidia-smi shows it: each engine finds it gone from the free memory it measures (default 0)", U::inference},
    {"also", "--also", "also", K::text, 0, 0, "ID[@CTX]",
     "other models kept loaded on the GPU, loaded first: preset ids, Hugging Face repositories (owner/name, a link, "
     "owner/name:QUANT), Ollama models or model files, each @ its context (repeat or comma-separate)",
     U::inference},
    {"also_read", "", "", K::config, 0, 0, "",
     "what a client read for the models named in also that are no preset: {name in also: the same object as "
     "draft_read}", U::inference},
    {"gpu_layers", "--ngl", "", K::count, 0, 1e6, "N", "llama.cpp -ngl, Ollama num_gpu: layers on the GPU (default: all and the output layer; Ollama: as many as fit)",
     U::inference, false, E::llamacpp | E::ollama},
    {"mmproj", "--mmproj", "mmproj", K::toggle, 0, 0, "",
     "llama-server --mmproj: a vision model's projector (its mmproj file, F16) loaded on the GPU to read images "
     "(default: the language model alone)", U::inference, false, E::llamacpp},
    {"images", "--images", "images", K::count, 0, 1000, "N",
     "a vision model's images per request: the vision encoder's compute peak, and their tokens inside --context "
     "(default 0)", U::inference},
    {"image_size", "--image-size", "imgsize", K::text, 0, 0, "WxH",
     "the images' size in pixels, 1024x768 or 1024 (default: the size each engine profiles with or resizes to)",
     U::inference},
    {"draft", "--draft", "draft", K::text, 0, 0, "ID|NAME|PATH|mtp",
     "speculative decoding's draft: a preset id, a Hugging Face repository (owner/name, a link, owner/name:QUANT), an "
     "Ollama model, a path to its config.json (an EAGLE or EAGLE-3 head when its architectures say so), .gguf or "
     ".safetensors file, or mtp for the model's own multi-token-prediction layers (vLLM, SGLang)",
     U::inference, false, E::transformers | E::vllm | E::llamacpp | E::sglang | E::mlx},
    {"draft_config", "", "", K::config, 0, 0, "", "the draft's config.json, as an object or its text", U::inference,
     false, E::transformers | E::vllm | E::llamacpp | E::sglang | E::mlx},
    {"draft_read", "", "", K::config, 0, 0, "",
     "what a client read for the draft named in draft (a Hub repository, an Ollama model, a file): {name, repo, config, "
     "quant_config, config_name, files: [{name, size, header: its first bytes in base64}], index}", U::inference, false,
     E::transformers | E::vllm | E::llamacpp | E::sglang | E::mlx},
    {"draft_tokens", "--draft-tokens", "drafttokens", K::count, 1, 1024, "N",
     "draft tokens per step (llama-server --spec-draft-n-max, default 16; vLLM num_speculative_tokens; SGLang "
     "speculative_num_steps, default 5; transformers num_assistant_tokens, default 20; mlx_lm --num-draft-tokens, "
     "default 3)", U::inference, false, E::transformers | E::vllm | E::llamacpp | E::sglang | E::mlx},
    {"acceptance", "--acceptance", "acceptance", K::fraction, 0, 1, "FRACTION",
     "the chance the model accepts a draft token, for the speed (default: the range 0.6 to 0.8)", U::inference,
     kAboveMin, E::transformers | E::vllm | E::llamacpp | E::sglang | E::mlx},
    {"headroom", "--headroom", "", K::fraction, 0, 0.9, "FRACTION", "share of GPU memory kept free, 0 to 0.9 (default 0.1)"},
    {"system_bandwidth", "--system-bandwidth", "", K::number, 0, 10'000, "GB/S",
     "system RAM bandwidth for llama.cpp layers left on the CPU (default 60)", U::inference, kAboveMin},
    {"prompt_tokens", "--prompt", "prompt", K::tokens, 1, kTokens, "TOKENS",
     "prompt length: for the prefill speed, and GRPO's prompts, e.g. 512 or 4k (default 512)", U::both},
    {"usd_per_kwh", "--usd-per-kwh", "", K::number, 0, 100, "USD",
     "electricity price: adds the energy cost of running the --gpu you own", U::inference},
    {"gpus", "--gpus", "gpus", K::list, 0, 0, "N|LIST",
     "inference: the number of --gpu cards you have (vLLM, SGLang: tensor parallel, else pipeline; llama.cpp: layers split "
     "by --tensor-split; transformers: device_map=\"auto\"), or different cards for llama.cpp (rtx-3090,rtx-4060-ti-16gb); "
     "--rank-gpus: only these GPUs, comma-separated ids or names (default: all)", U::inference | U::gpu_ranking},
    {"budget_per_hour", "--budget-per-hour", "", K::number, 0, kInf, "USD",
     "--rank-gpus: the most a whole configuration may cost per hour", U::gpu_ranking, kAboveMin},
    // Training.
    {"precision", "--precision", "precision", K::choice, 0, 0, "P",
     "fp32, mixed-fp16, mixed-bf16 (default: bf16 compute + fp32 master weights) or bf16", U::training},
    {"grad_dtype", "--grad-dtype", "", K::choice, 0, 0, "D",
     "gradient storage: fp32 (HF Trainer, 18 B/param with AdamW) or half (ZeRO/Megatron, 16 B)", U::training},
    {"optimizer", "--optimizer", "optimizer", K::choice, 0, 0, "NAME",
     "adamw (default), adamw-8bit, paged-adamw, paged-adamw-8bit, sgd, sgd-momentum, adafactor, lion", U::training},
    {"lora_rank", "--lora-rank", "rank", K::count, 1, static_cast<double>(kMaxLoraRank), "R",
     "LoRA/QLoRA adapter rank (default 16)", U::training},
    {"lora_targets", "--lora-targets", "", K::text, 0, 0, "LIST",
     "modules with adapters: q,k,v,o,gate,up,down,router or all-linear (default)", U::training},
    {"sequence", "--seq", "", K::tokens, 1, kTokens, "TOKENS",
     "tokens per training sequence (default 2048, or the model's context if shorter)", U::training},
    {"micro_batch", "--micro-batch", "", K::count, 1, static_cast<double>(kMaxBatch), "N",
     "sequences per GPU per forward pass (default 1; --batch means the same in training)", U::training},
    {"grad_accum", "--grad-accum", "", K::count, 1, static_cast<double>(kMaxGradientAccumulation), "N",
     "micro-batches per optimizer step (default 1)", U::training},
    {"checkpointing", "--checkpointing", "checkpointing", K::choice, 0, 0, "KIND",
     "activation checkpointing: none, selective or full (≈ +33 % compute); default: none in train, full in lora and "
     "qlora as TRL, PEFT and Unsloth run them", U::training},
    {"attn_implementation", "--attn-implementation", "attn", K::choice, 0, 0, "IMPL",
     "attention whose saved tensors count: sdpa (default, as transformers picks), eager (keeps the s×s scores), "
     "flash_attention_2 or megatron; --flash-attention on|off is the same as sdpa|eager", U::training},
    {"dropout", "--dropout", "", K::toggle, 0, 0, "on|off",
     "dropout masks, attention and hidden both on or off (default: each as the config sets it)", U::training},
    {"zero", "--zero", "zero", K::choice, 0, 0, "STAGE",
     "ZeRO stage 0-3, or FSDP NO_SHARD, SHARD_GRAD_OP, FULL_SHARD (default 0)", U::training},
    {"gpus", "--gpus", "gpus", K::count, 1, static_cast<double>(kMaxGpus), "N",
     "GPUs of the job = tp × pp × data parallel (default 1)", U::training},
    {"tp", "--tp", "", K::count, 1, static_cast<double>(kMaxGpus), "N",
     "tensor-parallel degree: GPUs each layer is split across (vLLM --tensor-parallel-size, SGLang --tp; training: "
     "Megatron TP) "
     "(default 1)", U::both},
    {"pp", "--pp", "", K::count, 1, static_cast<double>(kMaxGpus), "N",
     "pipeline-parallel stages of consecutive layers (vLLM --pipeline-parallel-size, SGLang --pp-size; training: 1F1B) "
     "(default 1)",
     U::both},
    {"sp", "--sp", "", K::toggle, 0, 0, "", "sequence parallel (with --tp > 1)", U::training},
    {"offload", "--offload", "offload", K::choice, 0, 0, "WHERE",
     "none (default), optimizer (ZeRO-Offload), params or nvme (ZeRO-Infinity)", U::training},
    {"tokens", "--tokens", "tokens", K::quantity, 1, 1e18, "N", "training tokens for time and cost on --gpu: 1e9, 300B, 2T",
     U::training},
    {"mfu", "--mfu", "", K::fraction, 0, 1, "FRACTION",
     "model FLOPs utilisation above 0 up to 1, or a percentage (default 0.40)", U::training, kAboveMin},
    // RL fine-tuning (--mode grpo).
    {"policy", "--policy", "policy", K::choice, 0, 0, "MODE",
     "GRPO: what trains in the policy, train (every weight, TRL's default), lora or qlora", U::training},
    {"completion_tokens", "--completion", "completion", K::tokens, 1, kTokens, "TOKENS",
     "GRPO: completion length, TRL max_completion_length (default 512)", U::training},
    {"num_generations", "--num-generations", "gens", K::count, 2, static_cast<double>(kMaxGrpoGenerations), "N",
     "GRPO: completions sampled per prompt (default 8, as TRL)", U::training},
    {"generation_batch", "--generation-batch", "genbatch", K::count, 1, static_cast<double>(kMaxBatch), "N",
     "GRPO: completions one GPU generates at once (default: micro-batch × grad-accum in whole groups)", U::training},
    {"beta", "--beta", "beta", K::number, 0, 1e6, "BETA",
     "GRPO: KL coefficient; above 0 a full fine-tune loads a reference model (default 0.0, as TRL since v0.19)",
     U::training},
    {"sampler", "--sampler", "sampler", K::choice, 0, 0, "NAME",
     "GRPO: who generates, hf (model.generate, TRL's default), vllm-colocate or vllm-server", U::training},
};

// The forms of range a refusal has a wording for (request.cpp, refusal_message): whole numbers, token counts,
// quantities and sizes from a minimum to a maximum, fractions up to a maximum, other numbers bounded or above their
// minimum. An input of another form needs its wording, in English and German, before it joins the table.
constexpr bool refusal_worded(const Input& in) {
  const bool bounded = in.max < kInf;
  switch (in.kind) {
    case K::count:
    case K::tokens:
    case K::quantity:
    case K::size: return bounded && !in.above_min;
    case K::fraction: return bounded;
    case K::number: return bounded || in.above_min;
    case K::text:
    case K::config:
    case K::choice:
    case K::toggle:
    case K::list: return true;
  }
  return false;
}
constexpr bool every_refusal_worded() {
  for (const Input& in : kInputs)
    if (!refusal_worded(in)) return false;
  return true;
}
static_assert(every_refusal_worded(), "an input's form of range has no refusal's wording");

// Each choice input's names (for messages and the page's lists) and the parser that reads it.
struct Choices {
  std::string_view key;
  std::string (*names)();
  bool (*accepts)(std::string_view value);
};

template <auto parse>
bool parses(std::string_view value) {
  return parse(value).has_value();
}

bool is_inference(std::string_view value) { return lower_ascii(value) == "inference"; }

const Choices kChoices[] = {
    {"mode", [] { return "inference, " + training_mode_names() + ", grpo"; },
     [](std::string_view v) { return is_inference(v) || is_grpo_mode(v) || parse_training_mode(v).has_value(); }},
    {"policy", training_mode_names, parses<parse_training_mode>},
    {"sampler", grpo_sampler_names, parses<parse_grpo_sampler>},
    {"kv_dtype", kv_dtype_names, parses<parse_kv_dtype>},
    {"engine", [] { return std::string(kEngineNames); }, parses<parse_engine>},
    {"attention", [] { return std::string(kAttentionNames); }, parses<parse_attention>},
    {"kv_allocation", [] { return std::string(kKvAllocationNames); }, parses<parse_kv_allocation>},
    {"precision", precision_names, parses<parse_precision>},
    {"grad_dtype", grad_dtype_names, parses<parse_grad_dtype>},
    {"optimizer", optimizer_names, parses<parse_optimizer>},
    {"checkpointing", checkpointing_names, parses<parse_checkpointing>},
    {"attn_implementation", attn_implementation_names, parses<parse_attn_implementation>},
    {"zero", zero_names, parses<parse_zero>},
    {"offload", offload_names, parses<parse_offload>},
    {"gpu_vendor", gpu_vendor_names, parses<parse_gpu_vendor>},
};

const Choices* choices_of(const Input& input) noexcept {
  if (input.kind != InputKind::choice) return nullptr;
  for (const Choices& c : kChoices)
    if (c.key == input.key) return &c;
  return nullptr;
}

}  // namespace

std::span<const Input> inputs() noexcept { return kInputs; }

bool used_by(const Input& input, InputUse use) noexcept {
  return (static_cast<unsigned>(input.use) & static_cast<unsigned>(use)) != 0;
}

// The public bits follow the core's engine table.
static_assert(Engines::vllm == static_cast<Engines>(1u << static_cast<unsigned>(Engine::vllm)));
static_assert(Engines::llamacpp == static_cast<Engines>(1u << static_cast<unsigned>(Engine::llamacpp)));
static_assert(Engines::sglang == static_cast<Engines>(1u << static_cast<unsigned>(Engine::sglang)));
static_assert(Engines::ollama == static_cast<Engines>(1u << static_cast<unsigned>(Engine::ollama)));
static_assert(Engines::mlx == static_cast<Engines>(1u << static_cast<unsigned>(Engine::mlx)));
static_assert(Engines::transformers == static_cast<Engines>(1u << static_cast<unsigned>(Engine::transformers)));
static_assert(kEngineTable.size() == 6, "a new engine gets its bit in Engines (vramfit/inputs.hpp)");

bool read_by_engine(const Input& input, unsigned engine_index) noexcept {
  return input.engines == Engines::all || ((static_cast<unsigned>(input.engines) >> engine_index) & 1u) != 0;
}

const Input* input_by_key(std::string_view key, InputUse use) noexcept {
  for (const Input& i : kInputs)
    if (i.key == key && used_by(i, use)) return &i;
  return nullptr;
}

const Input* input_by_flag(std::string_view flag) noexcept {
  if (flag.empty()) return nullptr;  // the inputs the CLI has no flag for
  for (const Input& i : kInputs)
    if (i.flag == flag) return &i;
  return nullptr;
}

std::string allowed_values(const Input& input) {
  const Choices* c = choices_of(input);
  return c ? c->names() : std::string();
}

bool is_allowed_value(const Input& input, std::string_view value) {
  const Choices* c = choices_of(input);
  return c && c->accepts(value);
}

}  // namespace vramfit

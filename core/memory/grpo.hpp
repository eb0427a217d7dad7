#pragma once
// RL fine-tuning with GRPO (Shao et al. 2024, DeepSeekMath, arXiv 2402.03300) as TRL's GRPOTrainer runs it
// (trl/trainer/grpo_trainer.py, grpo_config.py, v0.19–v1.9): each prompt is sampled num_generations times, the
// completions are scored, and the policy trains on prompt + completion with the log-probs of the completion
// tokens. What that adds on top of a training step: a frozen reference model (only when beta > 0), the sampler's
// memory (HF generate's KV cache for the generation batch, or colocated vLLM's share of the card) and the
// log-probs' fp32 logits over every completion token.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "formats/dtype.hpp"
#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/result.hpp"
#include "util/message.hpp"  // Message

namespace vramfit {

// Who generates the completions. hf: the policy's own model.generate() (TRL's default, use_vllm=False);
// vllm-colocate: a vLLM engine in the training process, holding gpu_memory_utilization of the card for its weights
// and KV pool for the whole run (vllm_mode="colocate"); vllm-server: `trl vllm-serve` on other GPUs.
enum class GrpoSampler { hf, vllm_colocate, vllm_server };
std::string_view grpo_sampler_name(GrpoSampler s) noexcept;  // "hf", "vllm-colocate", "vllm-server"
std::optional<GrpoSampler> parse_grpo_sampler(std::string_view name) noexcept;
std::string grpo_sampler_names();
// The training mode's name for RL fine-tuning: "grpo" (any case).
bool is_grpo_mode(std::string_view mode) noexcept;

// TRL GRPOConfig's defaults (v1.9): num_generations=8, max_completion_length=512, beta=0.0 (since v0.19,
// PR #3516: "the reference model is not loaded"), vllm_gpu_memory_utilization=0.3. The prompt length is the
// longest prompt of a batch: 512 is TRL's former max_prompt_length default.
inline constexpr std::uint64_t kDefaultGrpoPromptTokens = 512;
inline constexpr std::uint64_t kDefaultGrpoCompletionTokens = 512;
inline constexpr std::uint64_t kDefaultGrpoGenerations = 8;
inline constexpr double kDefaultGrpoVllmGpuUtil = 0.3;
inline constexpr std::uint64_t kMaxGrpoGenerations = 4096;

struct GrpoOptions {
  std::uint64_t prompt_tokens = kDefaultGrpoPromptTokens;
  std::uint64_t completion_tokens = kDefaultGrpoCompletionTokens;
  std::uint64_t num_generations = kDefaultGrpoGenerations;
  // Completions one GPU generates at once (TRL: per_device_train_batch_size × steps_per_generation); 0: the
  // micro-batch × gradient accumulation, rounded up to whole groups of num_generations.
  std::uint64_t generation_batch = 0;
  double beta = 0.0;  // KL coefficient; above 0 a full fine-tune keeps a frozen reference copy of the weights
  GrpoSampler sampler = GrpoSampler::hf;
  double vllm_gpu_util = kDefaultGrpoVllmGpuUtil;
  std::uint64_t gpu_driver_bytes = 0;  // the card's driver-visible memory, for vllm-colocate's share
};

// What GRPO adds on one GPU, besides the training step over prompt + completion.
struct GrpoBytes {
  std::uint64_t generation_batch = 0;  // completions generated at once on one GPU
  std::uint64_t reference_model = 0;   // frozen weights (beta > 0, full fine-tune), ÷ data-parallel ranks under ZeRO-3
  std::uint64_t kv_cache = 0;          // hf: the generation batch's KV cache at prompt + completion tokens
  std::uint64_t sampler_logits = 0;    // hf: generate()'s fp32 next-token logits for the generation batch
  std::uint64_t gathered_weights = 0;  // hf under ZeRO-3: the other ranks' weight shards, gathered for generate()
  std::uint64_t vllm_pool = 0;         // vllm-colocate: gpu_memory_utilization × the card
  std::uint64_t sampling = 0;          // the sampling phase: kv_cache + sampler_logits + gathered_weights, or vllm_pool
  bool sampling_overlaps_training = false;  // vLLM colocate holds its share throughout; HF generate runs between steps
};

struct GrpoInputs {
  const ModelSpec& spec;
  const GrpoOptions& grpo;
  bool full_finetune = true;             // LoRA/QLoRA disable the adapter for the reference log-probs instead
  std::uint64_t reference_weight_bytes;  // the policy's weights in their stored dtype, whole model
  std::uint64_t reference_shards = 1;    // ZeRO-3 data-parallel ranks (DeepSpeed shards the reference too)
  std::uint64_t policy_weight_bytes = 0;  // the policy's 16-bit weights, whole model
  std::uint64_t policy_shards = 1;        // ZeRO-3 data-parallel ranks: generate() gathers the rest first
  std::uint64_t micro_batch = 1;
  std::uint64_t gradient_accumulation = 1;
  std::uint64_t gpus = 1;
  DType compute_dtype = DType::bf16;  // the dtype generate() runs and caches in
};

// Checks the GRPO inputs (errors name the request key) and computes the lines GRPO adds.
Result<GrpoBytes> estimate_grpo(const GrpoInputs& in);

// What colocated vLLM takes of a card: gpu_memory_utilization × its driver-visible memory.
std::uint64_t vllm_colocate_share(double gpu_util, std::uint64_t driver_bytes) noexcept;

// `training_step`: the step's activations + temporaries, which the HF sampler's line is counted beyond.
std::vector<Explanation> grpo_explanations(const GrpoInputs& in, const GrpoBytes& g, std::uint64_t training_step);
std::vector<Message> grpo_notes(const GrpoInputs& in, const GrpoBytes& g);

}  // namespace vramfit

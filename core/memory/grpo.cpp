#include "memory/grpo.hpp"

#include <algorithm>  // std::min
#include <array>      // std::array
#include <cmath>      // std::floor

#include "memory/inference.hpp"  // kMaxContextTokens
#include "memory/kv_cache.hpp"
#include "util/byte_math.hpp"
#include "util/number_text.hpp"
#include "util/text.hpp"
#include "util/units.hpp"  // checked_mul, ceil_div

namespace vramfit {
namespace {

using detail::CheckedSum;
using detail::Text;
using detail::num;

constexpr std::array<NamedValue<GrpoSampler>, 3> kSamplers{{{"hf", GrpoSampler::hf},
                                                            {"vllm-colocate", GrpoSampler::vllm_colocate},
                                                            {"vllm-server", GrpoSampler::vllm_server}}};
constexpr std::array<NamedValue<GrpoSampler>, 3> kSamplerAliases{
    {{"generate", GrpoSampler::hf}, {"colocate", GrpoSampler::vllm_colocate}, {"server", GrpoSampler::vllm_server}}};

std::optional<Error> check(const GrpoInputs& in) {
  const GrpoOptions& g = in.grpo;
  if (g.prompt_tokens < 1 || g.prompt_tokens > kMaxContextTokens)
    return make_error("prompt_tokens", "must be between 1 and " + num(kMaxContextTokens) + ", got " + num(g.prompt_tokens));
  if (g.completion_tokens < 1 || g.completion_tokens > kMaxContextTokens)
    return make_error("completion_tokens",
                      "must be between 1 and " + num(kMaxContextTokens) + ", got " + num(g.completion_tokens));
  if (g.num_generations < 2 || g.num_generations > kMaxGrpoGenerations)
    return make_error("num_generations", "must be between 2 (a group needs two to compare) and " +
                                             num(kMaxGrpoGenerations) + ", got " + num(g.num_generations));
  if (!(g.beta >= 0 && g.beta <= 1e6)) return make_error("beta", "must be 0 or above");
  if (g.sampler == GrpoSampler::vllm_colocate && !(g.vllm_gpu_util > 0 && g.vllm_gpu_util < 1))
    return make_error("gpu_util", "vLLM colocate's gpu_memory_utilization must be above 0 and below 1 (training "
                                  "shares the card)");
  if (g.sampler == GrpoSampler::vllm_colocate && g.gpu_driver_bytes == 0)
    return make_error("gpu", "vLLM colocate takes gpu_memory_utilization of the card: name the GPU");
  return std::nullopt;
}

// TRL: the global generation batch (per-device batch × processes × steps_per_generation) must split into whole
// groups of num_generations completions of one prompt (GRPOConfig.__post_init__).
Result<std::uint64_t> generation_batch(const GrpoInputs& in) {
  const GrpoOptions& g = in.grpo;
  if (g.generation_batch) {
    const auto global = checked_mul(g.generation_batch, in.gpus);
    if (!global || *global % g.num_generations != 0)
      return make_error("generation_batch", "generation batch × GPUs (" + num(g.generation_batch) + " × " +
                                                num(in.gpus) + ") must be a multiple of num_generations (" +
                                                num(g.num_generations) + ")");
    return g.generation_batch;
  }
  const auto steps = checked_mul(in.micro_batch, in.gradient_accumulation);
  if (!steps) return make_error("micro_batch", "micro-batch × gradient accumulation overflows");
  return ceil_div(*steps, g.num_generations) * g.num_generations;
}

}  // namespace

std::string_view grpo_sampler_name(GrpoSampler s) noexcept { return kSamplers[static_cast<std::size_t>(s)].name; }
std::optional<GrpoSampler> parse_grpo_sampler(std::string_view name) noexcept {
  const std::string folded = fold_name(name, '-');
  if (const auto* e = find_named(kSamplers, folded)) return e->value;
  if (const auto* e = find_named(kSamplerAliases, folded)) return e->value;
  return std::nullopt;
}
std::string grpo_sampler_names() { return join_names(kSamplers); }
bool is_grpo_mode(std::string_view mode) noexcept { return lower_ascii(mode) == "grpo"; }

std::uint64_t vllm_colocate_share(double gpu_util, std::uint64_t driver_bytes) noexcept {
  return static_cast<std::uint64_t>(std::floor(gpu_util * static_cast<double>(driver_bytes)));
}

Result<GrpoBytes> estimate_grpo(const GrpoInputs& in) {
  if (auto e = check(in)) return *e;
  auto batch = generation_batch(in);
  if (!batch) return batch.error();
  const GrpoOptions& g = in.grpo;
  GrpoBytes out;
  out.generation_batch = batch.value();
  if (g.beta > 0 && in.full_finetune) out.reference_model = ceil_div(in.reference_weight_bytes, in.reference_shards);
  switch (g.sampler) {
    case GrpoSampler::hf: {
      auto kv = estimate_kv_cache(in.spec, in.compute_dtype, g.prompt_tokens + g.completion_tokens, out.generation_batch);
      if (!kv) return kv.error();
      out.kv_cache = kv.value().bytes + kv.value().state_bytes;
      // generate() keeps the last position's logits in fp32 for the sampler (transformers GenerationMixin._sample:
      // outputs.logits[:, -1, :].to(dtype=torch.float32)); logits_to_keep=1 spares the rest.
      const auto logits = checked_mul(out.generation_batch, 4 * in.spec.vocab_size);
      if (!logits) return make_error("generation_batch", "the sampler's logits overflow 64 bits");
      out.sampler_logits = *logits;
      // Under ZeRO-3 TRL gathers the whole policy before generating (ds3_gather_for_generation=True by default).
      out.gathered_weights = in.policy_weight_bytes - ceil_div(in.policy_weight_bytes, in.policy_shards);
      CheckedSum sampling;
      sampling.add(out.kv_cache).add(out.sampler_logits).add(out.gathered_weights);
      if (sampling.overflow()) return make_error("generation_batch", "the sampler's memory overflows 64 bits");
      out.sampling = sampling.value();
      break;
    }
    case GrpoSampler::vllm_colocate:
      // vLLM takes gpu_memory_utilization × the card's memory for its own weights, activations and KV pool
      // (vllm/worker/gpu_worker.py determine_available_memory), and TRL keeps the engine awake unless
      // vllm_enable_sleep_mode is set.
      out.vllm_pool = vllm_colocate_share(g.vllm_gpu_util, g.gpu_driver_bytes);
      out.sampling = out.vllm_pool;
      out.sampling_overlaps_training = true;
      break;
    case GrpoSampler::vllm_server:
      break;
  }
  return out;
}

std::vector<Explanation> grpo_explanations(const GrpoInputs& in, const GrpoBytes& b, std::uint64_t training_step) {
  const GrpoOptions& g = in.grpo;
  std::vector<Explanation> out;
  out.push_back({"grpo.generation_batch",
                 g.generation_batch ? "as requested (per GPU)"
                                    : "micro-batch × gradient accumulation, rounded up to whole groups of num_generations",
                 (Text() << b.generation_batch << " completions (" << b.generation_batch / g.num_generations << " prompts × "
                         << g.num_generations << " generations on this GPU)")
                     .str(),
                 "TRL GRPOConfig: generation_batch_size = per_device_train_batch_size × processes × steps_per_generation"});
  out.push_back(
      {"reference_model",
       g.beta > 0 ? (in.full_finetune ? "weights of a frozen copy (÷ ZeRO-3 ranks)" : "0: the adapter is disabled instead")
                  : "0: beta = 0 loads no reference model",
       (Text() << b.reference_model << " B").str(),
       "TRL GRPOTrainer: ref_model = None when beta == 0.0 or with PEFT, else a second from_pretrained; beta defaults to "
       "0.0 since v0.19 (PR #3516)"});
  if (g.sampler == GrpoSampler::hf)
    out.push_back({"sampling",
                   "max(0, KV cache of the generation batch at prompt + completion tokens + fp32 next-token logits "
                   "(B_gen × 4 × vocab) − the training step's activations + temporary): generation runs between steps, "
                   "in the memory the step frees",
                   (Text() << "max(0, " << b.kv_cache << " + " << b.sampler_logits
                           << (b.gathered_weights ? " + " + num(b.gathered_weights) + " gathered ZeRO-3 weights" : "")
                           << " − " << training_step << ") = "
                           << b.sampling - std::min(b.sampling, training_step) << " B (" << b.generation_batch
                           << " sequences × " << g.prompt_tokens + g.completion_tokens << " tokens)")
                       .str(),
                   "TRL GRPOTrainer with use_vllm=False: unwrapped_model.generate() over the whole generation batch"});
  else if (g.sampler == GrpoSampler::vllm_colocate)
    out.push_back({"sampling", "gpu_memory_utilization × the card's memory, held while training",
                   (Text() << detail::fixed_text(g.vllm_gpu_util, 6).substr(0, 4) << " × " << g.gpu_driver_bytes << " = "
                           << b.vllm_pool << " B")
                       .str(),
                   "TRL vllm_mode=\"colocate\" (vllm_gpu_memory_utilization, default 0.3); vLLM's gpu_worker budget"});
  else
    out.push_back({"sampling", "0: a vLLM server on other GPUs generates", "0 B", "TRL vllm_mode=\"server\" (trl vllm-serve)"});
  return out;
}

std::vector<Message> grpo_notes(const GrpoInputs& in, const GrpoBytes& b) {
  std::vector<Message> out;
  const GrpoOptions& g = in.grpo;
  out.push_back(message("grpo.trl", "GRPO as TRL's GRPOTrainer runs it: the training step covers prompt + completion "
                                    "tokens and keeps the fp32 logits of the completion tokens only (logits_to_keep); "
                                    "gradient checkpointing on (GRPOConfig's default)."));
  if (g.beta > 0 && !in.full_finetune)
    out.push_back(message("grpo.reference_adapter", "beta > 0 with LoRA/QLoRA: the reference log-probs come from the "
                                                  "same base with the adapter disabled, so no second copy is loaded."));
  if (g.beta > 0)
    out.push_back(message("grpo.reference_forward", "The reference forward runs without gradients between steps; its "
                                                  "logits are as large as the policy's and are not on top of the "
                                                  "training peak."));
  if (g.sampler == GrpoSampler::vllm_colocate)
    out.push_back(message("grpo.colocate", "vLLM colocate: the share covers vLLM's own weight copy and KV pool; "
                                         "vllm_enable_sleep_mode=True frees it during the optimizer step, which this "
                                         "figure does not assume."));
  if (g.sampler == GrpoSampler::vllm_server)
    out.push_back(message("grpo.server",
                          "vLLM server: completions come from `trl vllm-serve` on other GPUs, which need their own memory."));
  if (b.generation_batch % g.num_generations == 0 && !g.generation_batch)
    out.push_back(message("grpo.generation_batch",
                          "Generation batch {batch} completions per GPU ({prompts} prompt(s) × {generations} "
                          "generations); TRL needs it to split into whole groups.",
                          {arg::digits("batch", b.generation_batch), arg::digits("prompts", b.generation_batch / g.num_generations),
                           arg::digits("generations", g.num_generations)}));
  return out;
}

}  // namespace vramfit

#include "memory/grpo.hpp"

#include <algorithm>  // std::min
#include <array>      // std::array
#include <cmath>      // std::floor
#include <utility>    // std::move

#include "memory/inference.hpp"  // kMaxContextTokens
#include "memory/kv_cache.hpp"
#include "util/byte_math.hpp"
#include "util/number_text.hpp"
#include "util/text.hpp"
#include "util/units.hpp"  // checked_mul, ceil_div

namespace vramfit {
namespace {

using detail::CheckedSum;

constexpr std::array<NamedValue<GrpoSampler>, 3> kSamplers{{{"hf", GrpoSampler::hf},
                                                            {"vllm-colocate", GrpoSampler::vllm_colocate},
                                                            {"vllm-server", GrpoSampler::vllm_server}}};
constexpr std::array<NamedValue<GrpoSampler>, 3> kSamplerAliases{
    {{"generate", GrpoSampler::hf}, {"colocate", GrpoSampler::vllm_colocate}, {"server", GrpoSampler::vllm_server}}};

Error range_error(std::string field, std::uint64_t value) {
  return make_error(std::move(field), message("error.range", "must be between 1 and {max}, got {value}",
                                              {arg::digits("max", kMaxContextTokens), arg::digits("value", value)}));
}

std::optional<Error> check(const GrpoInputs& in) {
  const GrpoOptions& g = in.grpo;
  if (g.prompt_tokens < 1 || g.prompt_tokens > kMaxContextTokens) return range_error("prompt_tokens", g.prompt_tokens);
  if (g.completion_tokens < 1 || g.completion_tokens > kMaxContextTokens)
    return range_error("completion_tokens", g.completion_tokens);
  if (g.num_generations < 2 || g.num_generations > kMaxGrpoGenerations)
    return make_error("num_generations", message("error.grpo.generations", "must be between 2 (a group needs two to "
                                                                           "compare) and {max}, got {value}",
                                                 {arg::digits("max", kMaxGrpoGenerations),
                                                  arg::digits("value", g.num_generations)}));
  if (!(g.beta >= 0 && g.beta <= 1e6)) return make_error("beta", message("error.grpo.beta", "must be 0 or above"));
  if (g.sampler == GrpoSampler::vllm_colocate && !(g.vllm_gpu_util > 0 && g.vllm_gpu_util < 1))
    return make_error("gpu_util", message("error.grpo.gpu_util", "vLLM colocate's gpu_memory_utilization must be above 0 "
                                                                 "and below 1 (training shares the card)"));
  if (g.sampler == GrpoSampler::vllm_colocate && g.gpu_driver_bytes == 0)
    return make_error("gpu", message("error.grpo.colocate_gpu", "vLLM colocate takes gpu_memory_utilization of the "
                                                                "card: name the GPU"));
  return std::nullopt;
}

// TRL: the global generation batch (per-device batch × processes × steps_per_generation) must split into whole
// groups of num_generations completions of one prompt (GRPOConfig.__post_init__).
Result<std::uint64_t> generation_batch(const GrpoInputs& in) {
  const GrpoOptions& g = in.grpo;
  if (g.generation_batch) {
    const auto global = checked_mul(g.generation_batch, in.gpus);
    if (!global || *global % g.num_generations != 0)
      return make_error("generation_batch",
                        message("error.grpo.generation_batch", "generation batch × GPUs ({batch} × {gpus}) must be a "
                                                               "multiple of num_generations ({generations})",
                                {arg::digits("batch", g.generation_batch), arg::digits("gpus", in.gpus),
                                 arg::digits("generations", g.num_generations)}));
    return g.generation_batch;
  }
  const auto steps = checked_mul(in.micro_batch, in.gradient_accumulation);
  if (!steps)
    return make_error("micro_batch", message("error.grpo.steps_overflow", "micro-batch × gradient accumulation overflows"));
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
      if (!logits)
        return make_error("generation_batch", message("error.grpo.logits_overflow", "the sampler's logits overflow 64 bits"));
      out.sampler_logits = *logits;
      // Under ZeRO-3 TRL gathers the whole policy before generating (ds3_gather_for_generation=True by default).
      out.gathered_weights = in.policy_weight_bytes - ceil_div(in.policy_weight_bytes, in.policy_shards);
      CheckedSum sampling;
      sampling.add(out.kv_cache).add(out.sampler_logits).add(out.gathered_weights);
      if (sampling.overflow())
        return make_error("generation_batch",
                          message("error.grpo.sampling_overflow", "the sampler's memory overflows 64 bits"));
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

namespace {

Message reference_formula(const GrpoInputs& in) {
  if (!(in.grpo.beta > 0))
    return message("explain.reference_model.formula_none", "0: beta = 0 loads no reference model");
  return in.full_finetune ? message("explain.reference_model.formula", "weights of a frozen copy (÷ ZeRO-3 ranks)")
                          : message("explain.reference_model.formula_adapter", "0: the adapter is disabled instead");
}

// generate() in the training process: its KV cache and logits beyond what the step frees.
Explanation hf_sampling(const GrpoInputs& in, const GrpoBytes& b, std::uint64_t training_step) {
  const GrpoOptions& g = in.grpo;
  std::vector<MessageArg> a{arg::digits("kv", b.kv_cache), arg::digits("logits", b.sampler_logits),
                            arg::digits("gathered", b.gathered_weights), arg::digits("step", training_step),
                            arg::digits("sampling", b.sampling - std::min(b.sampling, training_step)),
                            arg::digits("sequences", b.generation_batch),
                            arg::digits("tokens", g.prompt_tokens + g.completion_tokens)};
  return {"sampling",
          message("explain.sampling.formula", "max(0, KV cache of the generation batch at prompt + completion tokens + "
                                              "fp32 next-token logits (B_gen × 4 × vocab) − the training step's "
                                              "activations + temporary): generation runs between steps, in the memory "
                                              "the step frees"),
          b.gathered_weights
              ? message("explain.sampling.values_gathered", "max(0, {kv} + {logits} + {gathered} gathered ZeRO-3 weights "
                                                            "− {step}) = {sampling} B ({sequences} sequences × {tokens} "
                                                            "tokens)", a)
              : message("explain.sampling.values", "max(0, {kv} + {logits} − {step}) = {sampling} B ({sequences} "
                                                   "sequences × {tokens} tokens)", a),
          message("explain.sampling.source", "TRL GRPOTrainer with use_vllm=False: unwrapped_model.generate() over the "
                                             "whole generation batch")};
}

// The colocated vLLM's share of the card, "0.30" as gpu_memory_utilization is cut to four characters.
Explanation colocate_sampling(const GrpoInputs& in, const GrpoBytes& b) {
  MessageArg util = arg::fixed("util", in.grpo.vllm_gpu_util, 6);
  util.english = util.english.substr(0, 4);
  return {"sampling",
          message("explain.sampling.formula_colocate", "gpu_memory_utilization × the card's memory, held while training"),
          message("explain.sampling.values_colocate", "{util} × {card} = {pool} B",
                  {util, arg::digits("card", in.grpo.gpu_driver_bytes), arg::digits("pool", b.vllm_pool)}),
          message("explain.sampling.source_colocate", "TRL vllm_mode=\"colocate\" (vllm_gpu_memory_utilization, "
                                                      "default 0.3); vLLM's gpu_worker budget")};
}

}  // namespace

std::vector<Explanation> grpo_explanations(const GrpoInputs& in, const GrpoBytes& b, std::uint64_t training_step) {
  const GrpoOptions& g = in.grpo;
  std::vector<Explanation> out;
  const MessageArg batch = arg::digits("batch", b.generation_batch);
  const MessageArg prompts = arg::digits("prompts", b.generation_batch / g.num_generations);
  const MessageArg generations = arg::digits("generations", g.num_generations);
  out.push_back(
      {"grpo.generation_batch",
       g.generation_batch ? message("explain.grpo.generation_batch.formula_given", "as requested (per GPU)")
                          : message("explain.grpo.generation_batch.formula", "micro-batch × gradient accumulation, "
                                                                             "rounded up to whole groups of "
                                                                             "num_generations"),
       message("explain.grpo.generation_batch.values", "{batch} completions ({prompts} prompts × {generations} "
                                                       "generations on this GPU)", {batch, prompts, generations}),
       message("explain.grpo.generation_batch.source", "TRL GRPOConfig: generation_batch_size = "
                                                       "per_device_train_batch_size × processes × steps_per_generation")});
  out.push_back({"reference_model", reference_formula(in),
                 message("explain.reference_model.values", "{reference} B", {arg::digits("reference", b.reference_model)}),
                 message("explain.reference_model.source", "TRL GRPOTrainer: ref_model = None when beta == 0.0 or with "
                                                           "PEFT, else a second from_pretrained; beta defaults to 0.0 "
                                                           "since v0.19 (PR #3516)")});
  if (g.sampler == GrpoSampler::hf) out.push_back(hf_sampling(in, b, training_step));
  else if (g.sampler == GrpoSampler::vllm_colocate) out.push_back(colocate_sampling(in, b));
  else
    out.push_back({"sampling", message("explain.sampling.formula_server", "0: a vLLM server on other GPUs generates"),
                   message("explain.sampling.values_server", "0 B"),
                   message("explain.sampling.source_server", "TRL vllm_mode=\"server\" (trl vllm-serve)")});
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

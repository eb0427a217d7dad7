#include "questions/evaluate_training.hpp"

#include <algorithm>  // std::min
#include <cmath>      // std::isfinite
#include <string>     // std::string, std::to_string
#include <utility>    // std::pair

#include "util/number_text.hpp"
#include "util/text.hpp"   // lower_ascii
#include "util/units.hpp"  // signed_difference

namespace vramfit {

namespace {

// The training core names some fields as flags spell them ("lora-rank"); the request's keys use '_'.
Error with_request_field(Error e) {
  for (auto& ch : e.field)
    if (ch == '-') ch = '_';
  return e;
}

// Time and cost on one GPU: the compute dtype's dense tensor TFLOPS, the catalog's price if it has one.
// Nothing (with a note) when the catalog lacks the figure: fp32 training runs on the fp32 units, which
// the catalog does not list, and a card without bf16 units cannot run bf16 at its fp16 rate.
Result<std::optional<TrainingTime>> time_on(const Gpu& gpu, const ModelSpec& spec, const TrainingRequest& r,
                                            const TrainingEstimate& e, const TrainingOptions& o,
                                            std::vector<Message>& notes) {
  if (!r.tokens) {
    notes.push_back(message("time.needs_tokens", "The training time and cost on {gpu} need the number of training tokens.",
                            {arg::text("gpu", gpu.name)}));
    return std::optional<TrainingTime>{};
  }
  TrainingTime t;
  t.gpu = &gpu;
  t.tokens = *r.tokens;
  t.mfu = r.mfu.value_or(kDefaultMfu);
  std::optional<double> peak;
  if (o.precision == Precision::mixed_fp16) t.peak_dtype = "fp16", peak = gpu.tflops_fp16;
  else if (o.precision != Precision::fp32) t.peak_dtype = "bf16", peak = gpu.tflops_bf16;
  if (!peak) {
    notes.push_back(o.precision == Precision::fp32
                        ? message("time.fp32", "No time estimate: fp32 training runs on the fp32 units, and the catalog "
                                               "lists only 16-bit tensor TFLOPS.")
                    : !gpu.custom.empty()
                        ? message("time.no_tflops_custom",
                                  "No time estimate: {gpu} is described by your figures, and its {dtype} TFLOPS are "
                                  "not among them.",
                                  {arg::text("dtype", t.peak_dtype), arg::text("gpu", gpu.name)})
                        : message("time.no_tflops", "No time estimate: the catalog has no {dtype} TFLOPS for {gpu}.",
                                  {arg::text("dtype", t.peak_dtype), arg::text("gpu", gpu.name)}));
    return std::optional<TrainingTime>{};
  }
  t.peak_tflops = *peak;
  if (gpu.cloud_usd_per_hour) t.usd_per_gpu_hour = gpu.cloud_usd_per_hour->usd;
  TimeOptions opt;
  opt.tokens = t.tokens;
  opt.sequence = o.sequence;
  opt.gpus = e.layout.gpus;
  opt.peak_tflops = t.peak_tflops;
  opt.mfu = t.mfu;
  opt.usd_per_gpu_hour = t.usd_per_gpu_hour;
  opt.mode = o.mode;
  opt.checkpointing = o.checkpointing;
  opt.attn_implementation = o.attn_implementation;
  opt.slowdown = e.slowdown.min;
  auto fastest = estimate_training_time(spec, opt);
  if (!fastest) return with_request_field(fastest.error());
  t.fastest = std::move(fastest).value();
  // Step time scales linearly with the slowdown multiplier (training_time.cpp: seconds × slowdown).
  const double ratio = e.slowdown.max / e.slowdown.min;
  t.seconds_max = t.fastest.seconds * ratio;
  t.gpu_hours_max = t.fastest.gpu_hours * ratio;
  if (t.fastest.cost_usd) t.cost_usd_max = *t.fastest.cost_usd * ratio;
  if (!t.usd_per_gpu_hour)
    notes.push_back(message("time.no_price", "No cost: the catalog has no cloud price for {gpu}.", {arg::text("gpu", gpu.name)}));
  return std::optional<TrainingTime>{std::move(t)};
}

// Inputs that only GRPO reads: refused elsewhere in training rather than ignored.
std::optional<Error> refuse_grpo_inputs(const TrainingRequest& r) {
  const std::pair<std::string_view, bool> given[] = {
      {"policy", r.policy.has_value()},           {"prompt_tokens", r.prompt_tokens.has_value()},
      {"completion_tokens", r.completion_tokens.has_value()}, {"num_generations", r.num_generations.has_value()},
      {"generation_batch", r.generation_batch.has_value()},  {"beta", r.beta.has_value()},
      {"sampler", r.sampler.has_value()},         {"gpu_util", r.gpu_util.has_value()}};
  for (const auto& [key, set] : given)
    if (set)
      return make_error(std::string(key),
                        message("error.training.grpo_input", "is an input of RL fine-tuning: use it with mode grpo"));
  return std::nullopt;
}

// GRPO's own inputs over TRL's defaults; vLLM colocate's share needs the request's GPU.
Result<GrpoOptions> grpo_options(const TrainingRequest& r, const Gpu* gpu) {
  GrpoOptions g;
  if (r.sequence)
    return make_error("sequence", message("error.grpo.sequence_given", "GRPO trains on prompt + completion: give "
                                                                       "prompt_tokens and completion_tokens"));
  if (r.prompt_tokens) g.prompt_tokens = *r.prompt_tokens;
  if (r.completion_tokens) g.completion_tokens = *r.completion_tokens;
  if (r.num_generations) g.num_generations = *r.num_generations;
  if (r.generation_batch) g.generation_batch = *r.generation_batch;
  if (r.beta) g.beta = *r.beta;
  if (r.sampler) g.sampler = *r.sampler;
  if (r.gpu_util && g.sampler != GrpoSampler::vllm_colocate)
    return make_error("gpu_util", message("error.gpu_util_colocate_only",
                                          "is the colocated vLLM's gpu_memory_utilization and applies to the "
                                          "vllm-colocate sampler only; {sampler} does not read it",
                                          {arg::text("sampler", std::string(grpo_sampler_name(g.sampler)))}));
  if (r.gpu_util) g.vllm_gpu_util = *r.gpu_util;
  if (gpu) g.gpu_driver_bytes = gpu->driver_total_bytes();
  return g;
}

// The sequence trained on: GRPO's prompt + completion, the request's, or the default capped by the model's context.
std::optional<Error> choose_sequence(TrainingReport& report, const TrainingRequest& r, bool grpo) {
  TrainingOptions& o = report.options;
  if (grpo) {
    auto g = grpo_options(r, report.gpu);
    if (!g) return g.error();
    o.grpo = g.value();
    o.sequence = g.value().prompt_tokens + g.value().completion_tokens;
    report.sequence_source = r.prompt_tokens || r.completion_tokens ? "request" : "default";
  } else if (r.sequence) {
    o.sequence = *r.sequence;
    report.sequence_source = "request";
  } else {
    o.sequence = default_training_sequence(report.model);
    report.sequence_source = o.sequence == kDefaultTrainingSequence ? "default" : "model_context";
  }
  return std::nullopt;
}

// What the scenario assumed where the request was silent, and a sequence beyond what the model was trained on.
void add_default_notes(TrainingReport& report, const TrainingRequest& r, bool grpo) {
  const ModelSpec& m = report.model;
  const TrainingOptions& o = report.options;
  auto& notes = report.estimate.notes;
  if (grpo && !m.is_bare())
    notes.push_back(message("grpo.defaults",
                            "GRPO defaults follow TRL's GRPOConfig: 8 generations per prompt, 512-token completions, "
                            "beta 0.0 (no reference model), model.generate() as the sampler, gradient checkpointing "
                            "on; prompts of 512 tokens assumed unless given."));
  else if (o.mode != TrainingMode::full && !r.checkpointing && !m.is_bare())
    notes.push_back(message("lora.defaults",
                            "LoRA and QLoRA defaults follow the recipes people run: gradient checkpointing on (TRL's "
                            "SFTConfig, PEFT's examples/sft and prepare_model_for_kbit_training, Unsloth's "
                            "get_peft_model), rank 16 on every linear layer (Unsloth); --checkpointing none turns it "
                            "off."));
  if (!r.sequence && !m.is_bare() && !grpo)
    notes.push_back(report.sequence_source == "model_context"
                        ? message("sequence.model_context",
                                  "No sequence given: {sequence} tokens per sequence assumed (the model's context).",
                                  {arg::digits("sequence", o.sequence)})
                        : message("sequence.default", "No sequence given: {sequence} tokens per sequence assumed.",
                                  {arg::digits("sequence", o.sequence)}));
  const std::uint64_t limit = m.max_context ? m.max_context : m.default_context;
  const std::uint64_t asked = grpo ? o.sequence : r.sequence.value_or(0);
  if (asked && limit && asked > limit)
    notes.push_back(message("sequence.over_context",
                            "The sequence ({sequence}) is longer than the model's context ({context}): the positions "
                            "beyond it were never trained.",
                            {arg::digits("sequence", asked), arg::digits("context", limit)}));
}

}  // namespace

bool is_training_mode(std::string_view mode) noexcept {
  const std::string m = lower_ascii(mode);
  return !m.empty() && m != "inference";
}

std::uint64_t default_training_sequence(const ModelSpec& spec) noexcept {
  const std::uint64_t context = spec.default_context ? spec.default_context : spec.max_context;
  return context ? std::min(kDefaultTrainingSequence, context) : kDefaultTrainingSequence;
}

namespace {

// The model, the GPU and the headroom resolve exactly as for inference; bf16 keeps the inference path from
// reading the checkpoint's quantization_config, which training does not use (precision decides).
Request shared_request(const TrainingRequest& r) {
  Request shared;
  shared.model = r.model;
  shared.model_name = r.model_name;
  shared.config_json = r.config_json;
  shared.quant_config_json = r.quant_config_json;
  shared.config_name = r.config_name;
  shared.params = r.params;
  shared.imported = r.imported;
  shared.weights = "bf16";
  shared.gpu = r.gpu;
  shared.wired_limit_mb = r.wired_limit_mb;
  shared.headroom = r.headroom;
  return shared;
}

// The training options the request chose, over the core's defaults.
std::optional<Error> choose_training_options(const TrainingRequest& r, bool grpo, TrainingOptions& o) {
  if (r.precision) o.precision = *r.precision;
  if (r.grad_dtype) o.grad_dtype = r.grad_dtype;
  if (r.optimizer) o.optimizer = *r.optimizer;
  if (!r.lora_targets.empty()) {
    auto targets = parse_lora_targets(r.lora_targets);
    if (!targets) return with_request_field(targets.error());
    o.lora_targets = targets.value();
  }
  if (r.lora_rank) o.lora_rank = *r.lora_rank;
  // LoRA and QLoRA as people run them: TRL's SFTConfig sets gradient_checkpointing=True (trl/trainer/sft_config.py:
  // "gradient_checkpointing: Defaults to True instead of False"), PEFT's examples pass --gradient_checkpointing True
  // (examples/sft/run_peft.sh) and prepare_model_for_kbit_training(use_gradient_checkpointing=True) for QLoRA,
  // Unsloth's get_peft_model(use_gradient_checkpointing="unsloth"). Full training keeps transformers' default: off.
  // GRPO: GRPOConfig sets gradient_checkpointing=True (trl/trainer/grpo_config.py: "Defaults to True instead of False").
  if (o.mode != TrainingMode::full || grpo) o.checkpointing = Checkpointing::full;
  if (r.checkpointing) o.checkpointing = *r.checkpointing;
  if (r.zero) o.parallel.zero = *r.zero;
  if (r.offload) o.parallel.offload = *r.offload;
  if (r.attn_implementation) o.attn_implementation = *r.attn_implementation;
  return std::nullopt;
}

}  // namespace

Result<TrainingScenario> resolve_training(const Catalog& catalog, const TrainingRequest& r) {
  TrainingScenario scenario;
  TrainingReport& report = scenario.report;
  TrainingOptions& o = report.options;
  const bool grpo = r.grpo;
  if (grpo) {
    if (r.policy) o.mode = *r.policy;
  } else {
    o.mode = r.mode;
    if (auto e = refuse_grpo_inputs(r)) return *e;
  }

  auto resolved = resolve_request(catalog, shared_request(r));
  if (!resolved) return resolved.error();
  report.model = std::move(resolved.value().model);
  report.published_params = resolved.value().published_params;
  scenario.params_source = resolved.value().params_source;
  report.gpu = resolved.value().gpu;
  const std::vector<Message> name_notes = resolved.value().name_notes;
  report.headroom = r.headroom;
  report.tokens = r.tokens;
  report.mfu = r.mfu.value_or(kDefaultMfu);
  const ModelSpec& m = report.model;

  if (auto e = choose_training_options(r, grpo, o)) return *e;
  o.dropout = r.dropout;
  o.parallel.gpus = r.gpus;
  o.parallel.tensor_parallel = r.tp;
  o.parallel.pipeline_parallel = r.pp;
  o.parallel.sequence_parallel = r.sp;
  o.parallel.micro_batch = r.micro_batch;
  o.parallel.gradient_accumulation = r.grad_accum;
  if (auto e = choose_sequence(report, r, grpo)) return *e;

  auto estimate = estimate_training(m, o);
  if (!estimate) return with_request_field(estimate.error());
  report.estimate = std::move(estimate).value();
  auto& notes = report.estimate.notes;
  notes.insert(notes.end(), name_notes.begin(), name_notes.end());
  add_default_notes(report, r, grpo);
  return scenario;
}

Result<TrainingReport> evaluate_training(const Catalog& catalog, const TrainingRequest& r) {
  auto scenario = resolve_training(catalog, r);
  if (!scenario) return scenario.error();
  const Gpu* gpu = scenario.value().report.gpu;
  return judge_training(catalog, r, std::move(scenario).value(), gpu);
}

Result<TrainingReport> judge_training(const Catalog& catalog, const TrainingRequest& r, TrainingScenario scenario,
                                      const Gpu* gpu) {
  TrainingReport& report = scenario.report;
  report.gpu = gpu;
  const ModelSpec& m = report.model;
  const TrainingOptions& o = report.options;
  auto& notes = report.estimate.notes;
  // Every rank must fit its own card: the busiest rank's total decides.
  const std::uint64_t total = report.estimate.breakdown.total;
  // Colocated vLLM takes its share of whichever card it runs on, so that line moves with the card judged.
  const auto& grpo = report.estimate.grpo;
  const bool colocated = grpo && o.grpo && o.grpo->sampler == GrpoSampler::vllm_colocate;
  auto total_on = [&](const Gpu& g) {
    if (!colocated) return total;
    return total - grpo->vllm_pool + vllm_colocate_share(o.grpo->vllm_gpu_util, g.driver_total_bytes());
  };
  auto fit_on = [&](const Gpu& g) {
    const std::uint64_t need = total_on(g);
    const std::uint64_t usable = g.usable_bytes();
    // The busiest rank on one card (colocated vLLM: its share of this card); no GPU count is counted.
    GpuFit f;
    f.gpu = &g;
    f.fit = classify_fit(need, usable, r.headroom);
    f.free_bytes = signed_difference(usable, need);
    return f;
  };
  const std::uint64_t job_gpus = o.parallel.gpus;
  if (report.gpu) {
    if (job_gpus > 1 && report.gpu->one_per_machine())
      return make_error("gpus", one_per_machine_message(*report.gpu));
    report.gpus.push_back(fit_on(*report.gpu));
    auto time = time_on(*report.gpu, m, r, report.estimate, o, notes);
    if (!time) return time.error();
    report.time = std::move(time).value();
  } else {
    for (const auto& g : catalog.gpus)
      if (job_gpus == 1 || !g.one_per_machine()) report.gpus.push_back(fit_on(g));  // a job on one Mac only
    if (r.tokens) notes.push_back(message("time.choose_gpu", "Choose a GPU for the training time and cost."));
  }
  if (report.time) {
    for (const auto& x : report.time->fastest.explanations) report.estimate.explanations.push_back(x);
    for (const auto& n : report.time->fastest.notes) notes.push_back(n);
  }
  report.estimate.explanations.push_back(
      params_explanation(m, report.estimate.params, report.published_params, scenario.params_source));
  VerdictScene verdict;
  verdict.rows = report.gpus;
  verdict.about = report.gpu ? VerdictScene::About::chosen : VerdictScene::About::catalog;
  verdict.job_gpus = job_gpus;
  report.verdict = judge_verdict(verdict);
  return std::move(scenario.report);
}

}  // namespace vramfit

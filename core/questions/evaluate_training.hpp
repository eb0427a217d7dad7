#pragma once
// One training question asked of the calculator, and its whole answer: the training counterpart of
// questions/evaluate.hpp. The CLI (--mode train|lora|qlora) and the page ({"mode": ...}) both go through here, so they
// print the same numbers.
#include <cstdint>      // std::uint64_t, std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "formats/imported_model.hpp"
#include "hardware/fit.hpp"
#include "util/result.hpp"
#include "questions/evaluate.hpp"  // Catalog
#include "memory/training.hpp"
#include "hardware/training_time.hpp"

namespace vramfit {

// Every input of a training estimate. Choices arrive typed, as the request reader (json/request.hpp) reads them by
// the inputs table (none: the training core's default); a question of inference ("mode" empty or "inference") never
// reaches here: the CLI and parse_request route it to evaluate(). See is_training_mode().
struct TrainingRequest {
  // The model, resolved exactly as the inference scenario does (resolve_request): one of these.
  std::string model;                      // preset id
  std::string model_name;                 // the name a config or file is shown by; "" = its architecture
  std::string config_json;                // a pasted or dropped HF config.json
  std::string quant_config_json;          // its hf_quant_config.json (NVIDIA ModelOpt), read with it
  std::string config_name;                // the config.json's file or folder name (Request's)
  std::uint64_t params = 0;               // bare parameter count (full training only: no shapes, no activations)
  std::optional<ImportedModel> imported;  // a GGUF/safetensors header read by the CLI

  TrainingMode mode = TrainingMode::full;  // train (alias full), lora or qlora; with grpo, `policy` says it instead
  bool grpo = false;                       // mode "grpo": RL fine-tuning (the GRPO inputs below)
  std::optional<Precision> precision;      // none: mixed-bf16
  std::optional<GradDType> grad_dtype;     // none: fp32, but half for pure bf16 (training core)
  std::optional<Optimizer> optimizer;      // none: adamw
  std::optional<std::uint64_t> lora_rank;  // none: 16 (TrainingOptions)
  std::string lora_targets;  // "q,v", "q_proj,v_proj", "all-linear" (default)
  // Tokens per training sequence. None: 2048, or the model's context when that is shorter (see
  // default_training_sequence).
  std::optional<std::uint64_t> sequence;
  std::uint64_t micro_batch = 1;
  std::uint64_t grad_accum = 1;
  std::optional<Checkpointing> checkpointing;  // none: none in train, full in lora, qlora and grpo
  std::optional<AttnImplementation> attn_implementation;  // none: sdpa
  std::optional<bool> dropout;  // none: the config's dropout (training core)
  std::optional<ZeroStage> zero;  // none: 0
  std::uint64_t gpus = 1;
  std::uint64_t tp = 1;
  std::uint64_t pp = 1;
  bool sp = false;       // sequence parallel (needs tp > 1 to matter)
  std::optional<Offload> offload;  // none: Offload::none
  std::string gpu;       // catalog id; empty: a fit verdict for every GPU and no time estimate
  std::uint64_t wired_limit_mb = 0;  // Apple: iogpu.wired_limit_mb for `gpu` (with_wired_limit); 0: macOS's default
  CustomGpuInputs custom_gpu;  // a card described by its figures (with_custom_gpu): gpu "custom", or like `gpu`
  double headroom = kDefaultHeadroom;
  std::optional<double> tokens;  // training tokens (all epochs) for time and cost; none: no time estimate
  std::optional<double> mfu;     // none: kDefaultMfu (training_time.hpp)
  // mode "grpo" only (the training core's GrpoOptions; none: TRL's defaults).
  std::optional<TrainingMode> policy;  // what trains in the policy; none: train
  std::optional<std::uint64_t> prompt_tokens;
  std::optional<std::uint64_t> completion_tokens;
  std::optional<std::uint64_t> num_generations;
  std::optional<std::uint64_t> generation_batch;
  std::optional<double> beta;
  std::optional<GrpoSampler> sampler;  // none: hf
  std::optional<double> gpu_util;  // vLLM colocate's gpu_memory_utilization; none: 0.3
};

// True for train/full/lora/qlora/grpo (any case), false for "" and "inference"; an unknown word counts as a
// training request so that the training reader refuses it, naming "mode".
bool is_training_mode(std::string_view mode) noexcept;

// No sequence given: the training core's 2048 (the length GPT-3 and Korthikanti et al. train at, and the
// common fine-tuning max_seq_length), capped by the model's context — its preset default, else its
// max_position_embeddings — because a model with learned positions (bert-base 512, gpt2 1024) has no
// position rows beyond it. A bare count has no context: 2048.
inline constexpr std::uint64_t kDefaultTrainingSequence = 2048;
std::uint64_t default_training_sequence(const ModelSpec& spec) noexcept;

// Time and cost on the request's GPU. Offloading gives a range: `fastest` uses the slowdown's minimum,
// the *_max figures its maximum.
struct TrainingTime {
  const Gpu* gpu = nullptr;
  double tokens = 0;
  double peak_tflops = 0;
  std::string peak_dtype;  // "bf16" or "fp16": the catalog figure used (the compute dtype)
  double mfu = kDefaultMfu;
  std::optional<double> usd_per_gpu_hour;  // the catalog's cloud price; absent → no cost (never 0)
  TrainingTimeEstimate fastest;
  double seconds_max = 0;
  double gpu_hours_max = 0;
  std::optional<double> cost_usd_max;
};

struct TrainingReport {
  ModelSpec model;
  std::uint64_t published_params = 0;
  TrainingOptions options;         // what estimate_training was given
  std::string sequence_source;     // "request", "default", "model_context"
  const Gpu* gpu = nullptr;        // the request's GPU, if any
  double headroom = kDefaultHeadroom;
  std::optional<double> tokens;    // as requested (the time needs a GPU too)
  double mfu = kDefaultMfu;        // as requested, else the default
  TrainingEstimate estimate;       // notes include the scenario's own (defaults assumed, time skipped)
  std::optional<TrainingTime> time;  // with a GPU, its 16-bit TFLOPS and tokens
  std::vector<GpuFit> gpus;          // the request's GPU, or the whole catalog
  Verdict verdict;                   // the headline about `gpu`, or the class of cards that holds the job
};

// Resolves the model, checks every input (errors name the JSON key: "lora_rank", "micro_batch", …),
// estimates the per-GPU memory, the fit on each GPU and, with a GPU and tokens, the time and cost.
Result<TrainingReport> evaluate_training(const Catalog& catalog, const TrainingRequest& request);

// evaluate_training() in two steps, for questions that share one scenario: the model resolved, every input
// checked and the memory estimated (the report without GPU verdicts, time or the parameter count's explanation)...
struct TrainingScenario {
  TrainingReport report;     // `gpu`: the request's GPU, if any
  Message params_source;  // where the architecture came from, for the parameter count's explanation
};
Result<TrainingScenario> resolve_training(const Catalog& catalog, const TrainingRequest& request);
// ...then judged on `gpu` (with the time and cost there), or on every GPU of the catalog when it is null, as
// evaluate_training() does for a request naming that GPU or none.
Result<TrainingReport> judge_training(const Catalog& catalog, const TrainingRequest& request, TrainingScenario scenario,
                                      const Gpu* gpu);

}  // namespace vramfit

#pragma once
// "What would help": ways to save memory (the source article's and the engines' own) applied to one scenario,
// one at a time. Each remedy is the scenario with one or two inputs changed and estimated again by the same
// core (evaluate, evaluate_training), so its saving is exactly the difference between two full estimates. The
// page's "What would help" panel and the CLI's --remedies both print this.
#include <cstdint>      // std::uint64_t, std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <vector>       // std::vector

#include "hardware/fit.hpp"  // Fit
#include "questions/evaluate.hpp"
#include "questions/evaluate_training.hpp"
#include "util/message.hpp"  // Message

namespace vramfit {

// One request key to change, in the request JSON's own terms ({"weights": "nf4"}, {"gpus": 4}).
struct RemedyInput {
  const char* key = "";
  std::string text;                     // a string value, or empty when `number` holds the value
  std::optional<std::uint64_t> number;  // a count (context, gpus, micro_batch, ...)
};

struct Remedy {
  std::string id;                   // "weights-8bit", "checkpointing", "offload-optimizer", ...
  std::vector<RemedyInput> inputs;  // what to change; applying it to the request gives `bytes`
  bool applicable = true;           // false: advice only (-ngl, the inference split: not request inputs)
  std::uint64_t bytes = 0;          // the busiest GPU's memory afterwards
  std::int64_t saved_bytes = 0;     // before − after, on that GPU
  std::optional<Fit> fit;           // on the request's GPU afterwards; none without a GPU
  std::int64_t free_bytes = 0;      // usable − bytes on the request's GPU (0 without one)
  std::uint64_t host_ram_bytes = 0; // CPU RAM the offloaded states or layers take (0: none)
  std::uint64_t usable_bytes = 0;   // what the GPU may use afterwards, where the change raises it (a Mac's wired limit)
  Message cost;                     // what the saving costs: quality, speed, money, hardware
  Message source;                   // where the cost figure comes from
  Explanation explanation;          // key "saved": before − after, with this scenario's bytes and the change
};

struct RemediesReport {
  std::string mode;                // "inference", "train", "lora", "qlora", "grpo"
  std::uint64_t bytes = 0;         // the scenario's busiest GPU, before any remedy
  const Gpu* gpu = nullptr;        // the request's GPU, if any
  std::optional<Fit> fit;          // on that GPU, before any remedy
  std::vector<Message> notes;  // how to read the savings (vLLM's fixed reservation)
  std::vector<Remedy> remedies;    // largest saving first; only those that save at least 0.5 %
};

// Inference: lower-precision weights (8-bit, 4-bit in the engine's own format), an 8-bit KV cache,
// FlashAttention/SDPA instead of eager attention, half the context, batch 1, and with a GPU that is too
// small, llama.cpp's partial offload (-ngl) and the split across 2, 4 or 8 of it. Errors are the scenario's
// own (an invalid request is not advised on).
Result<RemediesReport> remedies_for(const Catalog& catalog, const Request& request);
// The same from the scenario's report, already evaluated (evaluate(catalog, request)).
Result<RemediesReport> remedies_for(const Catalog& catalog, const Request& request, const Report& base);

// Training: activation checkpointing, FlashAttention, an 8-bit optimizer, LoRA, QLoRA, mixed precision,
// ZeRO-Offload of the optimizer, ZeRO-3 across the job's GPUs, more GPUs with ZeRO-3 when the request's
// GPU is too small, and micro-batch 1 with the same effective batch.
Result<RemediesReport> remedies_for(const Catalog& catalog, const TrainingRequest& request);
// The same from the scenario's report, already evaluated (evaluate_training(catalog, request)).
Result<RemediesReport> remedies_for(const Catalog& catalog, const TrainingRequest& request, const TrainingReport& base);

}  // namespace vramfit

#pragma once
// "What would help": ways to save memory (the source article's and the engines' own) applied to one scenario. Each
// remedy is the scenario with one or two inputs changed and estimated again by the same core (evaluate,
// evaluate_training), so its saving is exactly the difference between two full estimates and its verdict the one
// the headline would give. They are ordered for the person's GPU: what fits first, then what runs with a cost
// (part in system RAM, less than the headroom free), the smallest change first (ChangeSize); two changes together
// only where no single one fits; more GPUs last. The page's "What would help" panel and the CLI's --remedies print
// this.
#include <cstdint>      // std::uint64_t, std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <variant>      // std::variant
#include <vector>       // std::vector

#include "hardware/fit.hpp"  // Fit
#include "questions/evaluate.hpp"
#include "questions/evaluate_training.hpp"
#include "questions/verdict.hpp"  // VerdictKind
#include "util/message.hpp"  // Message

namespace vramfit {

// How much a change asks of the person, smallest first: what they give up (docs/methodology.md, "Remedies").
enum class ChangeSize {
  exact,         // the same results: FlashAttention / SDPA instead of eager attention
  setting,       // a setting or another program: a Mac's wired limit, llama.cpp with every layer on the GPU
  precision,     // states in fewer bits: the KV cache, the optimizer's states, mixed precision
  weights_8bit,  // the weights in 8 bits
  slower,        // the same results with more compute or communication: checkpointing, micro-batch 1, ZeRO-3
  method,        // a measurable change to the model or the training: 4-bit weights, LoRA, QLoRA
  workload,      // less of what was asked: a shorter context, one sequence at a time
  system_ram,    // part of the model or its states in system RAM, read at its bandwidth: offload, -ngl, ZeRO-Offload
  more_gpus,     // GPUs to buy or rent: always listed last
};

// One request key to change, in the request JSON's own terms ({"weights": "nf4"}, {"gpus": 4}).
struct RemedyInput {
  const char* key = "";
  std::string text;                     // a string value, or empty when `number` holds the value
  std::optional<std::uint64_t> number;  // a count (context, gpus, micro_batch, ...)
  // An inference choice or fraction as the request carries it (engine, kv_dtype, attention, gpu_util): applying the
  // remedy sets this value, and `text` is its name in the request JSON; none for text and counts.
  std::variant<std::monostate, Engine, KvDType, Attention, double> value;
};

struct Remedy {
  std::string id;                   // "weights-8bit", "llamacpp", "offload", ...; two: "weights-4bit+offload"
  std::vector<std::string> parts;   // the single changes it makes, in the order applied ("weights-4bit", "offload")
  std::vector<ChangeSize> sizes;    // each part's size, the same order
  std::vector<RemedyInput> inputs;  // what to change; applying it to the request gives `bytes`
  bool applicable = true;           // false: advice only (-ngl, the inference split: not request inputs)
  std::uint64_t bytes = 0;          // the busiest GPU's memory afterwards (with part in system RAM: the GPU's part)
  std::int64_t saved_bytes = 0;     // before − after: on that GPU, and in system RAM for inference
  std::optional<Fit> fit;           // on the request's GPU afterwards (the verdict's colour); none without a GPU
  std::optional<VerdictKind> verdict;  // inference: the verdict the headline would give afterwards
  Message headline;                 // inference: that verdict's sentence
  std::int64_t free_bytes = 0;      // usable − bytes on the request's GPU (0 without one)
  std::uint64_t host_ram_bytes = 0; // CPU RAM the offloaded states or layers take (0: none)
  std::uint64_t usable_bytes = 0;   // what the GPU may use afterwards, where the change raises it (a Mac's wired limit)
  Message cost;                     // what the saving costs: quality, speed, money, hardware
  Message source;                   // where the cost figure comes from
  Explanation explanation;          // key "saved": before − after, with this scenario's bytes and the change
};

struct RemediesReport {
  std::string mode;                // "inference", "train", "lora", "qlora", "grpo"
  std::uint64_t bytes = 0;         // the scenario's busiest GPU, before any remedy (its part, with some in system RAM)
  std::uint64_t host_ram_bytes = 0;  // inference: what the scenario keeps in system RAM before any remedy
  const Gpu* gpu = nullptr;        // the request's GPU, if any
  std::optional<Fit> fit;          // on that GPU, before any remedy (the headline's colour)
  std::optional<VerdictKind> verdict;  // inference: the headline's verdict before any remedy
  Message summary;                 // with a GPU that the scenario does not fit: what fits, or the closest and its gap
  std::vector<Message> notes;      // how to read the savings (vLLM's fixed reservation)
  std::vector<Remedy> remedies;    // in the order above; only those that save at least 0.5 % or run where it did not
};

// Inference: lower-precision weights (8-bit, 4-bit in the engine's own format), an 8-bit KV cache,
// FlashAttention/SDPA instead of eager attention, half the context, batch 1; with a GPU that is too small, llama.cpp
// with what does not fit in system RAM (--fit on one GPU, -ngl over several), two of these together where no single
// one fits, and the fewest of that GPU that hold it. Errors are the scenario's own (an invalid request is not
// advised on).
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

#pragma once
// The headline: one verdict about the GPU a question speaks of (the chosen one, the GPUs a person has, or, with none
// chosen, the smallest class of cards that holds the model), as one sentence the CLI prints and the page renders in
// its language. The engines' own plans decide where they place the model themselves (Ollama's layers, llama.cpp's
// --fit), as the GPU table's rule does everywhere else; nothing else words a verdict.
#include <cstdint>      // std::uint64_t, std::int64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "hardware/fit.hpp"
#include "memory/inference.hpp"
#include "memory/engines/llamacpp_fit.hpp"
#include "util/message.hpp"

namespace vramfit {

// fits and tight as the GPU table's rule says; runs_split: the engine runs it with part of the model in system RAM
// (Ollama's layers, llama.cpp's --fit moving experts or layers); refuses: the engine would not start (vLLM's or
// SGLang's KV pool below one sequence); none: no GPU in the list holds it.
enum class VerdictKind { fits, tight, does_not_fit, runs_split, refuses, none };
std::string_view verdict_kind_name(VerdictKind kind) noexcept;  // "fits", …, "runs_split", "refuses", "none"
// The colour a verdict shows in: running with part of the model in system RAM is a yes with a cost (tight), an
// engine that refuses to start a no. "fits", "tight", "does_not_fit" or "none".
std::string_view verdict_fit_name(VerdictKind kind) noexcept;

// How sure the verdict is where an input it depends on is not known (a checkpoint's quantization file not read, a
// bare parameter count without its architecture): certain where every value that input may take gives the same
// verdict; likely where each runs (or none does) but the headroom differs; unknown where the margin is smaller than
// the spread the input causes, so the answer flips between its values.
enum class Certainty { certain, likely, unknown };
std::string_view certainty_name(Certainty c) noexcept;  // "certain", "likely", "unknown"
// The verdict at the value the estimate assumed against its kinds at the other values the input may take.
Certainty certainty_of(VerdictKind assumed, const std::vector<VerdictKind>& alternatives) noexcept;

struct Verdict {
  VerdictKind kind = VerdictKind::none;
  const Gpu* gpu = nullptr;  // the GPU it speaks of (a row of the report's GPU list); null with kind none
  Message message;           // the headline sentence, without a Mac's clause
  Message wired;             // a Mac's: " (of the … macOS lets its GPU use by default)"; empty otherwise
  Message label;             // its GPU's row in the GPU table when the row's fit says less (runs_split); or empty
  std::uint64_t gpu_bytes = 0;  // runs_split: what the engine's placement puts on the GPU (with the CUDA context)
  std::uint64_t ram_bytes = 0;  // runs_split: and what it keeps in system RAM
  std::uint64_t gpus = 1;       // runs_split: the GPUs gpu_bytes is spread over
  bool from_plan = false;       // runs_split: llama.cpp's --fit plan placed it (the estimate is every layer on the GPU)
  Certainty certainty = Certainty::certain;
  Message lead;                  // "Likely: " or "Unknown: " before the sentence; empty when certain
  std::vector<Message> reasons;  // why it is not certain: the input not known and what its values give
  std::string text() const { return lead.text + message.text + wired.text; }
};

// What the verdict is about besides the rows.
struct VerdictScene {
  std::vector<GpuFit> rows;  // the report's GPU list
  enum class About { catalog, chosen, cards } about = About::catalog;  // chosen: rows hold that GPU; cards: one per card
  std::uint64_t owned = 1;     // how many GPUs serve one inference (tensor × pipeline parallel, gpus N)
  std::uint64_t job_gpus = 1;  // a training job's GPUs: the breakdown is each GPU's
  const InferenceEstimate* estimate = nullptr;  // inference: the engine's own figures (vLLM, SGLang, Ollama)
  const LlamaCppFitPlan* plan = nullptr;        // llama.cpp's --fit on the chosen GPU
  bool context_from_plan = false;               // no context given: the estimate is at the context --fit chose
};

Verdict judge_verdict(const VerdictScene& scene);

// What llama.cpp's --fit placement puts on the card: the plan's GPU share (the projector with it), the CUDA context
// and cuBLAS workspace fit measured against, the speculative draft llama-server loads after the fit (its draft
// context is made after the target's load_model, so fit plans without it), and clip's compute buffer where fit kept
// no room for it (llama.cpp's own margin, not Ollama's projector fit target).
std::uint64_t placed_on_card(const LlamaCppFitPlan& plan, const InferenceEstimate& e) noexcept;
// clip's compute buffer where --fit's margin does not hold it (the projector on the GPU, no projector fit target).
std::uint64_t clip_beside_fit(const LlamaCppFitPlan& plan, const InferenceEstimate& e) noexcept;

}  // namespace vramfit

#pragma once
// The breakdown an answer shows: the estimate's lines, or, where the engine keeps part of the model in system RAM,
// the GPU's share line by line plus one line for system RAM, so that the total is what the engine places on the GPU
// and in RAM together, as the headline's placement says.
#include <cstdint>  // std::uint64_t
#include <vector>   // std::vector

#include "memory/inference.hpp"
#include "memory/engines/llamacpp_fit.hpp"
#include "questions/verdict.hpp"
#include "util/explanation.hpp"

namespace vramfit {

struct PlacedBreakdown {
  std::uint64_t weights = 0;
  std::uint64_t vision_encoder = 0;
  std::uint64_t kv_cache = 0;
  std::uint64_t state_cache = 0;
  std::uint64_t activations = 0;
  std::uint64_t overhead = 0;
  std::uint64_t allocator_reserve = 0;
  std::uint64_t system_ram = 0;  // runs_split: what the placement keeps in system RAM; 0 otherwise
  std::uint64_t in_use = 0;      // memory other programs already hold on the GPU, besides the other models
  std::uint64_t total = 0;       // the lines' sum with the estimate's other_models: the card as they all fill it
  std::uint64_t range_low = 0;   // the estimate's range, moved with the total
  std::uint64_t range_high = 0;
};

// `plan`: llama.cpp's --fit plan on the verdict's GPU, if any (its figures are the GPU's share where the verdict
// says it placed the model).
PlacedBreakdown placed_breakdown(const InferenceEstimate& e, const Verdict& v, const LlamaCppFitPlan* plan);

// The explanations of the lines placed_breakdown changes (the GPU's share of --fit's plan, system RAM, the total), in
// place of the estimate's own; `explanations` as they are where nothing is placed in system RAM.
void explain_placement(std::vector<Explanation>& explanations, const InferenceEstimate& e, const Verdict& v,
                       const LlamaCppFitPlan* plan);

}  // namespace vramfit

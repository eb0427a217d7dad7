#pragma once
// The other models a request names as loaded first (--also): each estimated alone, as a request of its own under
// the same engine and GPU, and its footprint added to the memory in use for the model asked about.
#include <cstdint>     // std::uint64_t
#include <functional>  // std::less
#include <map>         // std::map
#include <optional>    // std::optional
#include <string>      // std::string
#include <vector>      // std::vector

#include "questions/evaluate.hpp"
#include "util/result.hpp"

namespace vramfit {

// Fills out.options.other_models and adds their bytes to out.options.memory_in_use; keeps each one's scenario in
// out.other_scenarios where the engine sizes it by the card (vLLM, SGLang). An error names "also".
std::optional<Error> resolve_other_models(const Catalog& catalog, const Request& r, ResolvedRequest& out);

// The other models of a request as they would be on another card.
struct OthersOnCard {
  std::uint64_t in_use_bytes = 0;  // the memory in use the person gave + the other models' bytes on the card
  std::vector<OtherModel> models;  // each sized on the card, without a command line
  Message refusal;                 // why they cannot all be loaded there (one does not fit, vLLM finds no share, the
                                   // engine refuses the card); empty: they can
};

// The other models of `rr` sized again on `card` (its total, and for SGLang the memory the servers before each one
// hold there); none where they hold the same bytes on any card (no scenarios kept).
std::optional<OthersOnCard> others_on_card(const ResolvedRequest& rr, const Gpu& card);

// The other models of one request sized on each card once, by the card's id: the questions of one answer that meet
// them card by card (the GPU table on every GPU, the ranking) share it, as each card's sizing is several estimates
// (vLLM's least share that holds each model). One holds the sizings of one request's other models only.
struct OthersByCard {
  std::map<std::string, std::optional<OthersOnCard>, std::less<>> by_card;
};

// others_on_card, from `sized` where that card was sized already, else sized and kept there.
const std::optional<OthersOnCard>& others_on_card(const ResolvedRequest& rr, const Gpu& card, OthersByCard& sized);

}  // namespace vramfit

#pragma once
// The other models a request names as loaded first (--also): each estimated alone, as a request of its own under
// the same engine and GPU, and its footprint added to the memory in use for the model asked about.
#include <optional>  // std::optional

#include "questions/evaluate.hpp"
#include "util/result.hpp"

namespace vramfit {

// Fills out.options.other_models and adds their bytes to out.options.memory_in_use. An error names "also".
std::optional<Error> resolve_other_models(const Catalog& catalog, const Request& r, ResolvedRequest& out);

}  // namespace vramfit

#pragma once
// One line of a breakdown with the arithmetic that produced it, for "show me the formula". Every layer that
// estimates bytes returns these beside its numbers.
#include <string>  // std::string

namespace vramfit {

struct Explanation {
  std::string key;      // weights, kv_cache, activations, overhead, allocator_reserve, total, ...
  std::string formula;  // symbolic, e.g. "params × bits / 8"
  std::string values;   // the same with this scenario's numbers
  std::string source;   // paper, doc or measurement it rests on
};

}  // namespace vramfit

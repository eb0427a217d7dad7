#pragma once
// One line of a breakdown with the arithmetic that produced it, for "show me the formula". Every layer that
// estimates bytes returns these beside its numbers. Each text is a Message, so a page can show it in its own
// language; its values are exact (counts and bytes as digits, not rounded to GB).
#include <string>  // std::string

#include "util/message.hpp"

namespace vramfit {

struct Explanation {
  std::string key;  // weights, kv_cache, activations, overhead, allocator_reserve, total, ...
  Message formula;  // symbolic, e.g. "params × bits / 8"
  Message values;   // the same with this scenario's numbers
  Message source;   // paper, doc or measurement it rests on
};

}  // namespace vramfit

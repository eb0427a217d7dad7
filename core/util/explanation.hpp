#pragma once
// One line of a breakdown with the arithmetic that produced it, for "show me the formula". Every layer that
// estimates bytes returns these beside its numbers. Each text is a Message, so a page can show it in its own
// language; its values are exact (counts and bytes as digits, not rounded to GB).
#include <cstdint>  // std::uint64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "util/message.hpp"

namespace vramfit {

struct Explanation {
  std::string key;  // weights, kv_cache, activations, overhead, allocator_reserve, total, ...
  Message formula;  // symbolic, e.g. "params × bits / 8"
  Message values;   // the same with this scenario's numbers
  Message source;   // paper, doc or measurement it rests on
};

// One term of a total: its name, worded in each language ("KV cache"), and its bytes.
struct SumTerm {
  Message name;
  std::uint64_t bytes = 0;
};

// "weights + KV cache + …" and "12,345 + 678 + … = 13,023 B": a sum of any terms, built of clauses so that each
// language words it once however many lines a breakdown has. `grouped` writes the English figures with thousands
// separators; `role` (optional) says which GPU the figures are, "(first pipeline stage)".
Message sum_formula(const std::vector<SumTerm>& terms);
Message sum_values(const std::vector<SumTerm>& terms, std::uint64_t total, bool grouped, const Message& role = {});

}  // namespace vramfit

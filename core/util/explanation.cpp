#include "util/explanation.hpp"

namespace vramfit {
namespace {

// a + b + c as ((a + b) + c): one two-sided clause, nested.
template <typename Part>
Message chain(const std::vector<SumTerm>& terms, Part part) {
  if (terms.empty()) return message("explain.sum.figure", "{value}", {arg::count("value", 0)});
  Message out = part(terms.front());
  for (std::size_t i = 1; i < terms.size(); ++i)
    out = message("explain.sum.plus", "{left} + {right}",
                  {arg::message("left", out), arg::message("right", part(terms[i]))});
  return out;
}

}  // namespace

Message sum_formula(const std::vector<SumTerm>& terms) {
  return chain(terms, [](const SumTerm& t) { return t.name; });
}

Message sum_values(const std::vector<SumTerm>& terms, std::uint64_t total, bool grouped, const Message& role) {
  const auto figure = [grouped](std::uint64_t v) {
    return message("explain.sum.figure", "{value}", {grouped ? arg::count("value", v) : arg::digits("value", v)});
  };
  const Message sum = chain(terms, [&](const SumTerm& t) { return figure(t.bytes); });
  const MessageArg total_arg = grouped ? arg::count("total", total) : arg::digits("total", total);
  if (role.empty()) return message("explain.sum.equals", "{terms} = {total} B", {arg::message("terms", sum), total_arg});
  return message("explain.sum.equals_role", "{terms} = {total} B ({role})",
                 {arg::message("terms", sum), total_arg, arg::message("role", role)});
}

}  // namespace vramfit

#pragma once
// The serving engines' tests ask the whole core, as the CLI does: a request in JSON, its report.
#include <string>

#include "../test_support.hpp"
#include "json/request.hpp"

namespace vramfit::test {

inline Report evaluate_json(const std::string& json) {
  auto request = request_from_json(json);
  REQUIRE_MESSAGE(request.ok(), json);
  auto report = evaluate(catalog(), request.value());
  REQUIRE_MESSAGE(report.ok(), json << ": " << (report.ok() ? "" : report.error().message.text));
  return std::move(report).value();
}

// Whether the estimate carries the note `id`.
inline bool has_note(const Report& report, const std::string& id) {
  for (const auto& note : report.estimate.notes)
    if (note.id == id) return true;
  return false;
}

}  // namespace vramfit::test

#pragma once
// A figure of the validation table (tests/data/validation.json) by its row's id, so a unit test that checks the same
// published figure reads it from the one place it is written, with the row's source and tolerance beside it.
#include <cmath>       // std::abs
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream
#include <string>      // std::string
#include <string_view> // std::string_view

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

namespace vramfit::test {

struct ValidationFigure {
  double value = 0;      // in bytes, tokens or parameters: the row's figure times its unit's scale
  double tolerance = 0;  // the share the answer may differ by
};

inline const nlohmann::json& validation_doc() {
  static const nlohmann::json doc = [] {
    std::ifstream in(std::filesystem::path(VRAMFIT_SOURCE_DIR) / "tests" / "data" / "validation.json");
    REQUIRE_MESSAGE(in.good(), "cannot read tests/data/validation.json");
    return nlohmann::json::parse(in);
  }();
  return doc;
}

inline ValidationFigure validation_figure(std::string_view id) {
  const nlohmann::json& doc = validation_doc();
  for (const nlohmann::json& row : doc.at("rows"))
    if (row.at("id").get<std::string>() == id)
      return {row.at("figure").get<double>() * doc.at("units").at(row.at("unit").get<std::string>()).get<double>(),
              row.at("tolerance").get<double>()};
  FAIL("no row " << id << " in tests/data/validation.json");
  return {};
}

// Whether `ours` is the row's figure within its tolerance, as test_validation.cpp holds every row.
inline bool within_row(double ours, std::string_view id) {
  const ValidationFigure f = validation_figure(id);
  return std::abs(ours / f.value - 1.0) <= f.tolerance + 1e-9;
}

}  // namespace vramfit::test

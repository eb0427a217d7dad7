// Embind map of the core for the page: JSON text in, JSON text out, so the page and the CLI share one
// serializer (core/src/scenario.cpp) and errors cross as {"ok": false, "error": {...}}, never as exceptions.
#include <emscripten/bind.h>

#include <string>  // std::string

#include "vramfit/builtin_data.hpp"
#include "vramfit/hardware_advice.hpp"
#include "vramfit/scenario.hpp"
#include "vramfit/solver.hpp"
#include "vramfit/training_scenario.hpp"

namespace {

using namespace vramfit;

// Parsed once per module instance; the catalogs are compiled in.
const Result<Catalog>& builtin_catalog() {
  static const Result<Catalog> catalog = load_catalog(builtin::models_json(), builtin::gpus_json());
  return catalog;
}

std::string evaluate_json(const std::string& request_json) {
  const auto& catalog = builtin_catalog();
  if (!catalog) return error_to_json(catalog.error());
  // "mode": "train" | "lora" | "qlora" asks the training question; anything else is inference.
  if (request_json_is_training(request_json)) {
    auto training = training_request_from_json(request_json);
    if (!training) return error_to_json(training.error());
    auto report = evaluate_training(catalog.value(), training.value());
    if (!report) return error_to_json(report.error());
    return training_report_to_json(report.value());
  }
  auto request = request_from_json(request_json);
  if (!request) return error_to_json(request.error());
  auto report = evaluate(catalog.value(), request.value());
  if (!report) return error_to_json(report.error());
  return report_to_json(report.value());
}

std::string catalog_json() {
  const auto& catalog = builtin_catalog();
  if (!catalog) return error_to_json(catalog.error());
  return catalog_to_json(catalog.value());
}

// {"ok":true,"gpu":..,"budget_bytes":..,"max_context":..,"max_batch":..}: needs "gpu" in the request.
std::string solve_json(const std::string& request_json) {
  const auto& catalog = builtin_catalog();
  if (!catalog) return error_to_json(catalog.error());
  auto request = request_from_json(request_json);
  if (!request) return error_to_json(request.error());
  auto limits = solve_limits(catalog.value(), request.value());
  if (!limits) return error_to_json(limits.error());
  return limits_to_json(limits.value());
}

// A core function of (catalog, request JSON) → JSON, bound with the built-in catalog:
//   memory_curve: the request plus "axis" ("context" | "batch") and "points" (2–1024, default 256) or "values";
//   recommend: the CLI's --recommend --json, with optional "gpus" (array or comma-separated) and "budget_per_hour";
//   biggest: the CLI's --biggest --json; needs "gpu"; "context" (default 4096), "engine", "weights" narrow it.
template <std::string (*Answer)(const Catalog&, std::string_view)>
std::string with_catalog(const std::string& request_json) {
  const auto& catalog = builtin_catalog();
  if (!catalog) return error_to_json(catalog.error());
  return Answer(catalog.value(), request_json);
}

}  // namespace

EMSCRIPTEN_BINDINGS(vramfit) {
  emscripten::function("evaluate", &evaluate_json);
  emscripten::function("catalog", &catalog_json);
  emscripten::function("solve", &solve_json);
  emscripten::function("memory_curve", &with_catalog<memory_curve_json>);
  emscripten::function("recommend", &with_catalog<recommend_json>);
  emscripten::function("biggest", &with_catalog<biggest_json>);
}

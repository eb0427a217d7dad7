// Embind map of the core for the page: JSON text in, JSON text out, so the page and the CLI share one
// serializer (core/src/scenario.cpp) and errors cross as {"ok": false, "error": {...}}, never as exceptions.
#include <emscripten/bind.h>

#include <string>  // std::string

#include "vramfit/builtin_data.hpp"
#include "vramfit/scenario.hpp"

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

}  // namespace

EMSCRIPTEN_BINDINGS(vramfit) {
  emscripten::function("evaluate", &evaluate_json);
  emscripten::function("catalog", &catalog_json);
}

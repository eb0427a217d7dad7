// Embind map of the core for the page: JSON text in, JSON text out, so the page and the CLI share one
// serializer (the questions' *_to_json) and errors cross as {"ok": false, "error": {...}}, never as exceptions.
#include <emscripten/bind.h>

#include <cstdint>  // std::uint8_t
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include "vramfit/builtin_data.hpp"
#include "questions/gpu_ranking.hpp"
#include "questions/remedies.hpp"
#include "formats/model_file.hpp"
#include "formats/safetensors.hpp"
#include "questions/evaluate.hpp"
#include "questions/limits.hpp"
#include "questions/evaluate_training.hpp"

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
//   recommend: the CLI's --rank-gpus --json, with optional "gpus" (array or comma-separated) and "budget_per_hour";
//   biggest: the CLI's --biggest --json; needs "gpu"; "context" (default 4096), "engine", "weights" narrow it;
//   help: the CLI's --remedies --json, for an inference or a training request (its "mode").
template <std::string (*Answer)(const Catalog&, std::string_view)>
std::string with_catalog(const std::string& request_json) {
  const auto& catalog = builtin_catalog();
  if (!catalog) return error_to_json(catalog.error());
  return Answer(catalog.value(), request_json);
}

// A dropped .gguf / .safetensors file: `prefix` is a Uint8Array of its first bytes (File.slice), `file_size`
// its size. Answers {"ok":true,"need_prefix_bytes":N} until the prefix holds the whole header, then the
// report for `request_json` with the file's exact architecture and weights ("config" in the request is the
// config.json a safetensors checkpoint needs for its architecture).
std::string evaluate_file(const emscripten::val& prefix_js, double file_size, const std::string& file_name,
                          const std::string& request_json) {
  const auto& catalog = builtin_catalog();
  if (!catalog) return error_to_json(catalog.error());
  if (!(file_size >= 0 && file_size <= 9007199254740992.0))
    return error_to_json(make_error("file", "the file size must be between 0 and 2^53 bytes"));
  const std::vector<std::uint8_t> bytes = emscripten::convertJSArrayToNumberVector<std::uint8_t>(prefix_js);
  auto request = request_from_json(request_json);
  if (!request) return error_to_json(request.error());
  auto imported = import_model_header(
      file_name, std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()),
      static_cast<std::uint64_t>(file_size), request.value().config_json);
  if (!imported) return error_to_json(imported.error());
  if (imported.value().need_prefix_bytes != 0)
    return "{\"ok\":true,\"need_prefix_bytes\":" + std::to_string(imported.value().need_prefix_bytes) + "}";
  Request r = std::move(request).value();
  r.config_json.clear();  // consumed by the import
  r.model.clear();
  r.imported = std::move(imported).value();
  auto report = evaluate(catalog.value(), r);
  if (!report) return error_to_json(report.error());
  return report_to_json(report.value());
}

// A sharded safetensors checkpoint: `files_js` is an array of {name, bytes: Uint8Array prefix, size}, `index_json`
// the model.safetensors.index.json text (may be empty), "config" in the request its config.json. Answers
// {"ok":true,"need_prefix_bytes":N,"need_file":i} until every shard's header is in hand, then the report.
std::string evaluate_shards(const emscripten::val& files_js, const std::string& index_json,
                            const std::string& request_json) {
  const auto& catalog = builtin_catalog();
  if (!catalog) return error_to_json(catalog.error());
  if (!files_js.isArray()) return error_to_json(make_error("files", "expected an array of shards"));
  const auto count = files_js["length"].as<unsigned>();
  if (count == 0 || count > 4096) return error_to_json(make_error("files", "give 1 to 4096 .safetensors shards"));
  std::vector<std::vector<std::uint8_t>> buffers(count);  // sized once: the spans below point into them
  std::vector<SafetensorsFile> files;
  for (unsigned i = 0; i < count; ++i) {
    const emscripten::val f = files_js[i];
    const std::string field = "files[" + std::to_string(i) + "]";
    if (!f["name"].isString() || !f["size"].isNumber())
      return error_to_json(make_error(field, "needs a name, a size and the header bytes"));
    const double size = f["size"].as<double>();
    if (!(size >= 0 && size <= 9007199254740992.0))
      return error_to_json(make_error(field + ".size", "must be between 0 and 2^53 bytes"));
    buffers[i] = emscripten::convertJSArrayToNumberVector<std::uint8_t>(f["bytes"]);
    files.push_back({f["name"].as<std::string>(),
                     std::span<const std::byte>(reinterpret_cast<const std::byte*>(buffers[i].data()), buffers[i].size()),
                     static_cast<std::uint64_t>(size)});
  }
  auto request = request_from_json(request_json);
  if (!request) return error_to_json(request.error());
  auto imported = import_safetensors(files, request.value().config_json, index_json);
  if (!imported) return error_to_json(imported.error());
  if (imported.value().need_prefix_bytes != 0)
    return "{\"ok\":true,\"need_prefix_bytes\":" + std::to_string(imported.value().need_prefix_bytes) +
           ",\"need_file\":" + std::to_string(imported.value().need_file) + "}";
  Request r = std::move(request).value();
  r.config_json.clear();
  r.model.clear();
  r.imported = std::move(imported).value();
  auto report = evaluate(catalog.value(), r);
  if (!report) return error_to_json(report.error());
  return report_to_json(report.value());
}

}  // namespace

EMSCRIPTEN_BINDINGS(vramfit) {
  emscripten::function("evaluate", &evaluate_json);
  emscripten::function("catalog", &catalog_json);
  emscripten::function("solve", &solve_json);
  emscripten::function("memory_curve", &with_catalog<memory_curve_json>);
  emscripten::function("recommend", &with_catalog<gpu_ranking_json>);
  emscripten::function("biggest", &with_catalog<biggest_json>);
  emscripten::function("help", &with_catalog<remedies_json>);
  emscripten::function("evaluate_file", &evaluate_file);
  emscripten::function("evaluate_shards", &evaluate_shards);
}

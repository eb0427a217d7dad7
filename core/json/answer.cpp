#include "json/answer.hpp"

#include <utility>  // std::move

#include "formats/model_file.hpp"  // import_model_header
#include "formats/safetensors.hpp"  // import_safetensors
#include "json/report_writer.hpp"

namespace vramfit {
namespace {

// A question's result as its JSON: the report's writer, or the error's.
template <class Report, class Write>
std::string written(const Result<Report>& result, Write write) {
  if (!result) return error_to_json(result.error());
  return write(result.value());
}

// The request for a model file: parsed, and a question that takes a model.
Result<ParsedRequest> parse_file_request(std::string_view text) {
  auto request = parse_request(text);
  if (!request) return request.error();
  if (request.value().question == Question::biggest_model)
    return make_error("question", "biggest_model compares the catalog's presets; it takes no model file");
  return request;
}

// The config.json a safetensors checkpoint needs for its architecture, from whichever request was read.
const std::string& config_of(const ParsedRequest& request) {
  return request.training ? request.training->config_json : request.inference.config_json;
}

// The imported header answers in place of the request's model; its config.json went into the import.
std::string answer_imported(const Catalog& catalog, ParsedRequest request, Result<ImportedModel> imported,
                            bool sharded) {
  if (!imported) return error_to_json(imported.error());
  if (imported.value().need_prefix_bytes != 0) return need_prefix_to_json(imported.value(), sharded);
  auto attach = [&](auto& r) {
    r.config_json.clear();
    r.model.clear();
    r.imported = std::move(imported).value();
  };
  if (request.training) attach(*request.training);
  else attach(request.inference);
  return answer(catalog, request);
}

}  // namespace

std::string answer(const Catalog& catalog, const ParsedRequest& request) {
  const Request& r = request.inference;
  switch (request.question) {
    case Question::estimate:
      if (request.training) return written(evaluate_training(catalog, *request.training), training_report_to_json);
      return written(evaluate(catalog, r), report_to_json);
    case Question::limits:
      return written(solve_limits(catalog, r), limits_to_json);
    case Question::curve: {
      const CurveInputs& c = request.curve;
      return written(memory_curve(catalog, r, c.axis, c.points, c.to, c.values), curve_to_json);
    }
    case Question::gpu_ranking:
      return written(rank_gpus_for(catalog, r), gpu_ranking_report_to_json);
    case Question::biggest_model:
      return written(biggest_for(catalog, r), biggest_report_to_json);
    case Question::remedies:
      if (request.training) return written(remedies_for(catalog, *request.training), remedies_report_to_json);
      return written(remedies_for(catalog, r), remedies_report_to_json);
  }
  return error_to_json(make_error("question", "allowed: " + std::string(kQuestionNames)));
}

std::string answer(const Catalog& catalog, std::string_view request_json) {
  auto request = parse_request(request_json);
  if (!request) return error_to_json(request.error());
  return answer(catalog, request.value());
}

std::string answer_file(const Catalog& catalog, std::span<const std::byte> prefix, std::uint64_t file_size,
                        std::string_view file_name, std::string_view request_json) {
  auto request = parse_file_request(request_json);
  if (!request) return error_to_json(request.error());
  auto imported = import_model_header(file_name, prefix, file_size, config_of(request.value()));
  return answer_imported(catalog, std::move(request).value(), std::move(imported), false);
}

std::string answer_shards(const Catalog& catalog, std::span<const SafetensorsFile> files, std::string_view index_json,
                          std::string_view request_json) {
  auto request = parse_file_request(request_json);
  if (!request) return error_to_json(request.error());
  auto imported = import_safetensors(files, config_of(request.value()), index_json);
  return answer_imported(catalog, std::move(request).value(), std::move(imported), true);
}

}  // namespace vramfit

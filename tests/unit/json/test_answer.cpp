// One dispatcher: every question's answer is its own writer's text, for a request and for a model file.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <span>    // std::span
#include <string>  // std::string

#include "../file_builders.hpp"
#include "../test_support.hpp"
#include "json/answer.hpp"
#include "json/report_writer.hpp"

using namespace vramfit;
using nlohmann::json;

namespace {

Request inference(const char* text) {
  auto r = request_from_json(text);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().field + ": " + r.error().message));
  return r.value();
}

}  // namespace

TEST_CASE("answer writes what each question's own writer writes") {
  const Catalog& c = test::catalog();
  const char* scenario = R"({"model":"llama-3.1-8b","gpu":"rtx-4090"})";
  const Request r = inference(scenario);
  auto with = [&](const char* question) {
    return answer(c, std::string(R"({"question":")") + question + R"(",)" + std::string(scenario).substr(1));
  };
  CHECK(answer(c, scenario) == report_to_json(evaluate(c, r).value()));
  CHECK(with("estimate") == report_to_json(evaluate(c, r).value()));
  CHECK(with("limits") == limits_to_json(solve_limits(c, r).value()));
  CHECK(with("gpu_ranking") == gpu_ranking_report_to_json(rank_gpus_for(c, r).value()));
  CHECK(with("biggest_model") == biggest_report_to_json(biggest_for(c, r).value()));
  CHECK(with("remedies") == remedies_report_to_json(remedies_for(c, r).value()));
  CHECK(answer(c, R"({"question":"curve","model":"llama-3.1-8b","axis":"batch","points":4})") ==
        curve_to_json(memory_curve(c, inference(R"({"model":"llama-3.1-8b"})"), CurveAxis::batch, 4).value()));
  const TrainingRequest lora = training_request_from_json(R"({"mode":"lora","model":"llama-2-7b"})").value();
  CHECK(answer(c, R"({"mode":"lora","model":"llama-2-7b"})") ==
        training_report_to_json(evaluate_training(c, lora).value()));
  CHECK(answer(c, R"({"question":"remedies","mode":"lora","model":"llama-2-7b"})") ==
        remedies_report_to_json(remedies_for(c, lora).value()));
}

TEST_CASE("a question's error is the error answer, naming the field") {
  const Catalog& c = test::catalog();
  CHECK(answer(c, R"({"question":"limits","model":"llama-3.1-8b"})") ==
        error_to_json(solve_limits(c, inference(R"({"model":"llama-3.1-8b"})")).error()));
  CHECK(answer(c, "{not json") == R"({"error":{"field":"request","message":"is not valid JSON"},"ok":false})");
}

TEST_CASE("a model file answers every question that takes a model, through the same dispatcher") {
  const Catalog& c = test::catalog();
  const test::Bytes file = test::tiny_llama_gguf().build();
  auto ask = [&](std::size_t prefix, const char* request) {
    return answer_file(c, std::span<const std::byte>(file.data(), prefix), file.size(), "tiny.gguf", request);
  };
  // 16 bytes hold the magic, the version and the counts, not the metadata: the answer asks for more.
  const json need = json::parse(ask(16, "{}"));
  CHECK(need["ok"] == true);
  CHECK(need["need_prefix_bytes"].get<std::uint64_t>() > 16);
  CHECK(need.size() == 2);

  const json estimate = json::parse(ask(file.size(), R"({"context":512})"));
  REQUIRE(estimate["ok"] == true);
  CHECK(estimate["model"]["name"] == "tiny llama");
  const json curve = json::parse(ask(file.size(), R"({"question":"curve","values":[64,512]})"));
  REQUIRE(curve["ok"] == true);
  CHECK(curve["totals"][1] == estimate["breakdown"]["total"]);
  CHECK(json::parse(ask(file.size(), R"({"question":"limits","gpu":"rtx-4090"})"))["ok"] == true);
  CHECK(json::parse(ask(file.size(), R"({"question":"gpu_ranking","gpus":["rtx-4090"]})"))["ok"] == true);
  CHECK(json::parse(ask(file.size(), R"({"question":"remedies"})"))["mode"] == "inference");
  CHECK(json::parse(ask(file.size(), R"({"mode":"lora"})"))["mode"] == "lora");
  // The biggest model is chosen among the catalog's presets: a file has no part in it.
  CHECK(json::parse(ask(file.size(), R"({"question":"biggest_model","gpu":"rtx-4090"})"))["error"]["field"] ==
        "question");
}

TEST_CASE("a sharded checkpoint asks for the shard whose header runs past its prefix") {
  const Catalog& c = test::catalog();
  const test::Bytes shard = test::build_safetensors({{"a.weight", "BF16", {4, 4}, 32}});
  const SafetensorsFile files[] = {{"model.safetensors",
                                    std::span<const std::byte>(shard.data(), 8), shard.size()}};
  const json need = json::parse(answer_shards(c, files, "", "{}"));
  CHECK(need["ok"] == true);
  CHECK(need["need_file"] == 0);
  CHECK(need["need_prefix_bytes"].get<std::uint64_t>() > 8);
  const SafetensorsFile whole[] = {{files[0].name, std::span<const std::byte>(shard), shard.size()}};
  const json r = json::parse(answer_shards(c, whole, "", R"({"question":"estimate"})"));
  REQUIRE(r["ok"] == true);
  CHECK(r["breakdown"]["weights"] == 32);  // 16 BF16 parameters × 2 B
}

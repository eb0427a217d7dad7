// Request JSON → the questions' inputs: one parse, "question" and "mode" routing, each question's own keys.
#include <doctest/doctest.h>

#include "../test_support.hpp"
#include "json/request.hpp"

using namespace vramfit;

TEST_CASE("a request without a question asks for the estimate") {
  auto r = parse_request(R"({"model":"llama-3.1-8b","context":8192})");
  REQUIRE(r.ok());
  CHECK(r.value().question == Question::estimate);
  CHECK(r.value().inference.model == "llama-3.1-8b");
  CHECK(*r.value().inference.context == 8192);
  CHECK_FALSE(r.value().training.has_value());
  CHECK(parse_request(R"({"question":"estimate"})").value().question == Question::estimate);
}

TEST_CASE("an unknown question names the key and lists the questions") {
  auto r = parse_request(R"({"question":"cost","model":"llama-3.1-8b"})");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "question");
  CHECK(r.error().message == "unknown question \"cost\"; allowed: estimate, limits, curve, gpu_ranking, biggest_model, remedies");
  CHECK(parse_request(R"({"question":3})").error().field == "question");
  CHECK(parse_request("[1]").error().field == "request");
}

TEST_CASE("the curve's own keys are read beside the inputs and kept out of them") {
  auto r = parse_request(R"({"question":"curve","model":"gemma-2-9b","axis":"batch","values":[1,2,8],"gpu":"l40s"})");
  REQUIRE(r.ok());
  const ParsedRequest& p = r.value();
  CHECK(p.question == Question::curve);
  CHECK(p.curve.axis == CurveAxis::batch);
  CHECK(p.curve.values == std::vector<std::uint64_t>{1, 2, 8});
  CHECK(p.curve.points == 256);
  CHECK(p.inference.model == "gemma-2-9b");
  CHECK(p.inference.gpu == "l40s");
  CHECK(parse_request(R"({"question":"curve","model":"gemma-2-9b","axis":"width"})").error().field == "axis");
  // Another question has no axis: the key is refused like any unknown input.
  CHECK(parse_request(R"({"question":"limits","model":"gemma-2-9b","axis":"batch"})").error().field == "axis");
}

TEST_CASE("training goes by mode for the estimate and the remedies; the other questions answer inference only") {
  for (const char* question : {"estimate", "remedies"}) {
    auto r = parse_request(std::string(R"({"question":")") + question + R"(","mode":"lora","model":"llama-2-7b","batch":2})");
    REQUIRE(r.ok());
    REQUIRE(r.value().training.has_value());
    CHECK(r.value().training->mode == "lora");
    CHECK(r.value().training->micro_batch == 2);
  }
  for (const char* question : {"limits", "curve", "gpu_ranking", "biggest_model"}) {
    auto r = parse_request(std::string(R"({"question":")") + question + R"(","mode":"train","model":"llama-2-7b"})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().field == "mode");
  }
  CHECK_FALSE(parse_request(R"({"mode":"inference","model":"llama-2-7b"})").value().training.has_value());
}

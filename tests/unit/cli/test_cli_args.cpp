// CLI flag parsing: the names other scripts already call.
#include <doctest/doctest.h>

#include "cli_args.hpp"

using namespace vramfit;
using namespace vramfit::cli;

TEST_CASE("the inference flags parse into a request") {
  auto o = parse_args({"--model", "llama-3.1-8b", "--weights", "bf16", "--context", "8192", "--batch", "1", "--json"});
  REQUIRE(o.ok());
  CHECK(o.value().request.model == "llama-3.1-8b");
  CHECK(o.value().request.weights == "bf16");
  CHECK(o.value().request.context == 8192);
  CHECK(o.value().request.batch == 1);
  CHECK(o.value().json);
}

TEST_CASE("counts and token lengths accept the spellings people use") {
  CHECK(parse_count("7e9") == 7'000'000'000ULL);
  CHECK(parse_count("7B") == 7'000'000'000ULL);
  CHECK(parse_count("1.5T") == 1'500'000'000'000ULL);
  CHECK(parse_count("500M") == 500'000'000ULL);
  CHECK_FALSE(parse_count("seven").has_value());
  CHECK_FALSE(parse_count("-1").has_value());
  CHECK_FALSE(parse_count("inf").has_value());
  CHECK(parse_tokens("8k") == 8192);
  CHECK(parse_tokens("128K") == 131072);
  CHECK_FALSE(parse_tokens("1.5").has_value());
}

TEST_CASE("--flag=value works and a path selects a config file") {
  auto o = parse_args({"--model=./config.json", "--params=7e9"});
  REQUIRE(o.ok());
  CHECK(o.value().model_path == "./config.json");
  CHECK(o.value().request.params == 7'000'000'000ULL);
}

TEST_CASE("engine flags parse, and unknown values name the flag and what is allowed") {
  auto o = parse_args({"--model", "m.gguf", "--engine", "vllm", "--gpu-util", "0.85", "--ngl", "0", "--max-context",
                       "--kv-dtype", "q8_0", "--avg-tokens", "2k"});
  REQUIRE(o.ok());
  CHECK(o.value().model_path == "m.gguf");
  CHECK(o.value().request.engine == "vllm");
  CHECK(o.value().request.gpu_util == doctest::Approx(0.85));
  CHECK(o.value().request.gpu_layers == 0);
  CHECK(o.value().request.avg_tokens == 2048);
  CHECK(o.value().action == Action::limits);
  auto bad = parse_args({"--attention", "fast"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "--attention");
  CHECK(bad.error().message == "invalid value \"fast\"; expected one of sdpa, eager");
}

TEST_CASE("unknown flags and missing values are named") {
  auto o = parse_args({"--modle", "x"});
  REQUIRE_FALSE(o.ok());
  CHECK(o.error().field == "--modle");
  o = parse_args({"--context"});
  REQUIRE_FALSE(o.ok());
  CHECK(o.error().message == "needs a value: TOKENS");
  o = parse_args({"--batch", "2.5"});
  REQUIRE_FALSE(o.ok());
  CHECK(o.error().field == "--batch");
}

TEST_CASE("speed, cost and recommendation flags parse into the request") {
  auto o = parse_args({"--model", "llama-3.1-70b", "--rank-gpus", "--gpus", "h100-sxm, l40s", "--budget-per-hour", "12.5",
                       "--system-bandwidth", "90", "--prompt", "4k", "--usd-per-kwh", "0.3"});
  REQUIRE(o.ok());
  const Request& r = o.value().request;
  CHECK(o.value().action == Action::gpu_ranking);
  CHECK(r.gpus == std::vector<std::string>{"h100-sxm", "l40s"});
  CHECK(r.budget_per_hour == 12.5);
  CHECK(r.serving.system_bandwidth_gb_s == 90.0);
  CHECK(r.serving.prompt_tokens == 4096u);
  CHECK(r.serving.usd_per_kwh == 0.3);
  CHECK(parse_args({"--biggest", "--gpu", "rtx-4090"}).value().action == Action::biggest);

  struct Bad {
    std::vector<std::string> args;
    const char* field;
  };
  const Bad bad[] = {{{"--budget-per-hour", "-1"}, "--budget-per-hour"}, {{"--budget-per-hour", "0"}, "--budget-per-hour"},
                     {{"--budget-per-hour", "inf"}, "--budget-per-hour"}, {{"--gpus", " , "}, "--gpus"},
                     {{"--system-bandwidth", "0"}, "--system-bandwidth"}, {{"--prompt", "0"}, "--prompt"},
                     {{"--usd-per-kwh", "-0.1"}, "--usd-per-kwh"},       {{"--usd-per-kwh", "cheap"}, "--usd-per-kwh"}};
  for (const Bad& b : bad) {
    CAPTURE(b.args[1]);
    auto e = parse_args(b.args);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().field == b.field);
    CHECK(e.error().message.find("invalid value") == 0);
  }
}

TEST_CASE("--help lists every flag") {
  const std::string help = help_text();
  for (const char* flag : {"--model", "--params", "--weights", "--kv-dtype", "--context", "--batch", "--gpu",
                           "--headroom", "--json", "--list-models", "--list-gpus", "--help", "--version", "--engine",
                           "--attention", "--kv-allocation", "--avg-tokens", "--expandable-segments", "--gpu-util",
                           "--max-num-batched-tokens", "--max-num-seqs", "--ngl", "--max-context", "--max-batch",
                           "--system-bandwidth", "--prompt", "--usd-per-kwh", "--rank-gpus", "--gpus",
                           "--budget-per-hour", "--biggest"})
    CHECK_MESSAGE(help.find(flag) != std::string::npos, flag);
}

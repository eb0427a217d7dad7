// The answers as the CLI prints them, made from the answers' JSON.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>  // std::string

#include "../test_support.hpp"
#include "tables.hpp"
#include "vramfit/vramfit.hpp"

using namespace vramfit;
using nlohmann::json;

namespace {

json answer_json(const char* request) { return json::parse(answer(test::catalog(), request)); }

}  // namespace

TEST_CASE("the training table prints the per-GPU lines, host RAM, time and the verdict") {
  const json answer = answer_json(R"({"mode":"train","params":"70B","gpu":"h100-sxm","zero":"3","gpus":"8",
                                      "offload":"optimizer","grad_dtype":"half","tokens":"1e9"})");
  REQUIRE(answer["ok"] == true);
  const std::string table = cli::training_table(answer, json::parse(catalog_to_json(test::catalog())));
  CAPTURE(table);
  for (const char* line : {"gradients", "optimizer", "activations", "temporary", "total", "host RAM", "offload slowdown",
                           "GPU-hours", "USD", "NVIDIA H100", "fits"})
    CHECK(table.find(line) != std::string::npos);
  // Per GPU: 70e9 × 2 B / 8 = 17.5 GB of weights; host RAM 980 GB (test_evaluate_training.cpp).
  CHECK(table.find("weights          17.50 GB") != std::string::npos);
  CHECK(table.find("host RAM        980.00 GB") != std::string::npos);
  // The time names the GPU by its catalog name, the answer by its id.
  CHECK(table.find("time on 8 × NVIDIA H100 SXM (") != std::string::npos);
}

TEST_CASE("byte counts print in GB and GiB, two decimals, each right-aligned in 9 characters") {
  // 14e9 B = 14.00 GB = 14e9 / 2^30 GiB = 13.0385 GiB.
  CHECK(cli::gb_and_gib(14'000'000'000) == "    14.00 GB     13.04 GiB");
  CHECK(cli::gb_and_gib(0) == "     0.00 GB      0.00 GiB");
}

TEST_CASE("the GPU ranking's table reads its list by the answer's key, picks by their index") {
  const json answer =
      answer_json(R"({"question":"gpu_ranking","model":"llama-3.1-8b","gpus":["rtx-4090","h100-sxm"]})");
  REQUIRE(answer["ok"] == true);
  const std::string table = cli::gpu_ranking_table(answer);
  CAPTURE(table);
  // Eight configurations (2 GPUs × 1, 2, 4, 8), all fit an 8B model in bf16 (16 GB).
  CHECK(table.find("Fits, cheapest per 1M tokens first (8):") != std::string::npos);
  // $0.34/h for one RTX 4090 is the cheapest per hour (data/gpus.json).
  CHECK(table.find("Cheapest per hour:       1 × GeForce RTX 4090: $0.34/h") != std::string::npos);
}

TEST_CASE("remedies name the GPU by its catalog name") {
  const json answer = answer_json(R"({"question":"remedies","model":"llama-2-13b","gpu":"rtx-4090"})");
  REQUIRE(answer["ok"] == true);
  const std::string table = cli::remedies_table(answer, json::parse(catalog_to_json(test::catalog())));
  CHECK(table.rfind("What would help (inference, ", 0) == 0);
  CHECK(table.find("on the busiest GPU, on GeForce RTX 4090):\n") != std::string::npos);
}

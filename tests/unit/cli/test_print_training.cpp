// The training report as the CLI prints it.
#include <doctest/doctest.h>

#include "../test_support.hpp"
#include "json/request.hpp"
#include "print_training.hpp"

using namespace vramfit;

TEST_CASE("the training table prints the per-GPU lines, host RAM, time and the verdict") {
  auto request = training_request_from_json(R"({"mode":"train","params":"70B","gpu":"h100-sxm","zero":"3","gpus":"8",
                                                "offload":"optimizer","grad_dtype":"half","tokens":"1e9"})");
  REQUIRE(request.ok());
  auto report = evaluate_training(test::catalog(), request.value());
  REQUIRE(report.ok());
  const std::string table = cli::training_table(report.value());
  CAPTURE(table);
  for (const char* line : {"gradients", "optimizer", "activations", "temporary", "total", "host RAM", "offload slowdown",
                           "GPU-hours", "USD", "NVIDIA H100", "fits"})
    CHECK(table.find(line) != std::string::npos);
  // Per GPU: 70e9 × 2 B / 8 = 17.5 GB of weights; host RAM 980 GB (test_evaluate_training.cpp).
  CHECK(table.find("weights          17.50 GB") != std::string::npos);
  CHECK(table.find("host RAM        980.00 GB") != std::string::npos);
}

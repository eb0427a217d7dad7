// The GPU catalog: loads, sources every figure, refuses unsourced ones.
#include "test_support.hpp"
#include "vramfit/hardware.hpp"
#include "vramfit/units.hpp"

using namespace vramfit;

TEST_CASE("the built-in catalog has at least 50 accelerators, each with memory and a source") {
  const auto& gpus = test::catalog().gpus;
  CHECK(gpus.size() >= 50);
  for (const auto& g : gpus) {
    CAPTURE(g.id);
    CHECK(g.memory_bytes > 0);
    CHECK_FALSE(g.sources.empty());
  }
}

TEST_CASE("catalog figures match vendor datasheets") {
  // NVIDIA H100 SXM datasheet: 80 GB HBM3, 3.35 TB/s. RTX 4090: 24 GB GDDR6X, 1008 GB/s.
  const Gpu& h100 = test::gpu("h100-sxm");
  CHECK(h100.memory_bytes == 80 * kGiB);
  CHECK(h100.bandwidth_gb_s.value_or(0) == doctest::Approx(3350));
  const Gpu& rtx4090 = test::gpu("rtx-4090");
  CHECK(rtx4090.memory_bytes == 24 * kGiB);
  CHECK(rtx4090.bandwidth_gb_s.value_or(0) == doctest::Approx(1008));
}

TEST_CASE("a figure without a source is refused") {
  auto r = parse_gpu_catalog(R"({"gpus":[{"id":"x","name":"X","memory_gib":8,"bandwidth_gb_s":100,
      "sources":{"memory_gib":"datasheet"}}]})");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "gpus[0].sources");
  CHECK(r.error().message == "missing a source for bandwidth_gb_s");
}

TEST_CASE("GPUs are found by id or by name, ignoring case and punctuation") {
  CHECK(find_gpu(test::catalog().gpus, "H100-SXM") != nullptr);
  CHECK(find_gpu(test::catalog().gpus, "rtx 4090") != nullptr);
  CHECK(find_gpu(test::catalog().gpus, "") == nullptr);
  CHECK(find_gpu(test::catalog().gpus, "voodoo-3") == nullptr);
}

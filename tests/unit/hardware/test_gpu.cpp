// The GPU catalog: loads, sources every figure, refuses unsourced ones.
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream
#include <sstream>     // std::ostringstream

#include "../test_support.hpp"
#include "hardware/gpu.hpp"
#include "util/units.hpp"

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

TEST_CASE("data/gpus.json cites a non-empty source for every figure; the binary carries the same figures") {
  // The embedded copy keeps which fields are sourced but not the citation texts (cmake/embed_data.cmake),
  // so the citations are checked here, in the file itself.
  const auto path = std::filesystem::path(VRAMFIT_SOURCE_DIR) / "data" / "gpus.json";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream text;
  text << in.rdbuf();
  const auto full = parse_gpu_catalog(text.str());
  REQUIRE_MESSAGE(full.ok(), (full.ok() ? "" : full.error().field + ": " + full.error().message));
  const auto& built_in = test::catalog().gpus;
  REQUIRE(full.value().size() == built_in.size());
  for (std::size_t i = 0; i < built_in.size(); ++i) {
    const Gpu& a = full.value()[i];
    const Gpu& b = built_in[i];
    CAPTURE(a.id);
    CHECK(a.id == b.id);
    CHECK(a.memory_bytes == b.memory_bytes);
    CHECK(a.bandwidth_gb_s == b.bandwidth_gb_s);
    CHECK(a.tflops_bf16 == b.tflops_bf16);
    CHECK(a.gpu_memory_fraction == b.gpu_memory_fraction);
    CHECK(a.sources.size() == b.sources.size());
    for (const auto& source : a.sources) {  // not a structured binding: clang 14 cannot capture one (CAPTURE)
      CAPTURE(source.first);
      CHECK(source.second.size() >= 8);  // a citation, not a placeholder
      CHECK(source.second != "data/gpus.json");
    }
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

TEST_CASE("a cloud price names its offer, which is what people read beside a cost") {
  const char* price_without_offer = R"({"gpus":[{"id":"x","name":"X","memory_gib":8,"bandwidth_gb_s":100,
      "cloud_usd_per_hour":{"value":0.5,"date":"2026-09","source":"a provider's pricing page"},
      "sources":{"memory_gib":"datasheet","bandwidth_gb_s":"datasheet"}}]})";
  auto r = parse_gpu_catalog(price_without_offer);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "gpus[0].cloud_usd_per_hour");
  CHECK(r.error().message == "needs an offer");
  // The catalog's RTX 4090: $0.34 from RunPod's community cloud (data/gpus.json, runpod.io/pricing, 2026-09).
  const auto& price = test::gpu("rtx-4090").cloud_usd_per_hour;
  REQUIRE(price);
  CHECK(price->offer == "RunPod, community cloud, on demand");
  CHECK(price->usd == doctest::Approx(0.34));
}

TEST_CASE("GPUs are found by id or by name, ignoring case and punctuation") {
  CHECK(find_gpu(test::catalog().gpus, "H100-SXM") != nullptr);
  CHECK(find_gpu(test::catalog().gpus, "rtx 4090") != nullptr);
  CHECK(find_gpu(test::catalog().gpus, "") == nullptr);
  CHECK(find_gpu(test::catalog().gpus, "voodoo-3") == nullptr);
}

TEST_CASE("GPUs are found by the short names people write, and the reading is said") {
  const auto& gpus = test::catalog().gpus;
  const auto read = [&](const char* text) {
    auto found = resolve_gpu(gpus, text, "gpu");
    REQUIRE_MESSAGE(found.ok(), text << ": " << found.error().message);
    return found.value();
  };
  // An exact id or name: no note.
  CHECK(read("h100-sxm").gpu->id == "h100-sxm");
  CHECK(read("h100-sxm").note.empty());
  CHECK(read("A10").gpu->id == "a10");  // the A10 itself, not read into "A100"
  // The bare "H100" is the SXM card (the catalog's alias); the others it could mean are named.
  const auto h100 = read("H100");
  CHECK(h100.gpu->id == "h100-sxm");
  CHECK(h100.note.find("H100 PCIe") != std::string::npos);
  CHECK(h100.note.find("H100 NVL") != std::string::npos);
  // A number only one card has; the plain card rather than its Ti.
  CHECK(read("4090").gpu->id == "rtx-4090");
  CHECK(read("rtx4090").gpu->id == "rtx-4090");
  CHECK(read("3090").gpu->id == "rtx-3090");
  CHECK(read("3090").note.find("3090 Ti") != std::string::npos);
  CHECK(read("3060").gpu->id == "rtx-3060-12gb");
  CHECK(read("A100").gpu->id == "a100-80gb-sxm");
  // Several cards and no way to tell: refused, naming them.
  auto ultra = resolve_gpu(gpus, "M2 Ultra", "gpu");
  REQUIRE_FALSE(ultra.ok());
  CHECK(ultra.error().field == "gpu");
  CHECK(ultra.error().message.find("Apple M2 Ultra 128GB, Apple M2 Ultra 192GB; name one") != std::string::npos);
  // Nothing: the closest names.
  auto typo = resolve_gpu(gpus, "h10", "gpus");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().field == "gpus");
  CHECK(typo.error().message.find("closest: NVIDIA H100") != std::string::npos);
}

TEST_CASE("every alias in the catalog names one card") {
  const auto& gpus = test::catalog().gpus;
  for (const auto& g : gpus) {
    for (const auto& alias : g.aliases) {
      auto found = resolve_gpu(gpus, alias, "gpu");
      REQUIRE_MESSAGE(found.ok(), alias);
      CHECK_MESSAGE(found.value().gpu == &g, alias << " reads as " << found.value().gpu->id << ", not " << g.id);
    }
  }
}

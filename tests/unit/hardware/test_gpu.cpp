// The GPU catalog: loads, sources every figure, refuses unsourced ones.
#include <cstdio>      // std::snprintf
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream
#include <sstream>     // std::ostringstream

#include "../test_support.hpp"
#include "hardware/gpu.hpp"
#include "util/units.hpp"

using namespace vramfit;

TEST_CASE("the built-in catalog has at least 130 accelerators, each with memory and a source") {
  const auto& gpus = test::catalog().gpus;
  CHECK(gpus.size() >= 130);
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
  REQUIRE_MESSAGE(full.ok(), (full.ok() ? "" : full.error().field + ": " + full.error().message.text));
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
    CHECK(a.unified_memory == b.unified_memory);
    CHECK(a.sources.size() == b.sources.size());
    // The page sets the name and notes beside other text, so neither begins or ends with a space.
    for (const std::string& shown : {a.name, a.notes})
      CHECK((shown.empty() || (shown.front() != ' ' && shown.back() != ' ')));
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

TEST_CASE("the tensor throughput of today's parts is dense, from the vendor's figure or its per-unit rate") {
  // Dense = a sparse figure halved: NVIDIA's H200 product page lists the H200 NVL at "BFLOAT16 Tensor Core 1,671
  // TFLOPS" and "FP8 Tensor Core 3,341 TFLOPS", footnote "With sparsity".
  const Gpu& h200nvl = test::gpu("h200-nvl");
  CHECK(h200nvl.tflops_bf16.value_or(0) == doctest::Approx(1671.0 / 2));
  CHECK(h200nvl.tflops_fp8.value_or(0) == doctest::Approx(3341.0 / 2));
  // AMD's R9700 page: "389 TFLOPS of sparse FP16 and 1557 TOPS of sparse INT4" (zolotukhin.ai, 2026-04-30); RDNA 4
  // runs FP8 at half its INT4 rate (r/hardware per-CU table: FP8 2048, INT4 4096 FLOP/clk/CU dense).
  const Gpu& r9700 = test::gpu("radeon-ai-pro-r9700");
  CHECK(r9700.tflops_fp16.value_or(0) == doctest::Approx(389.0 / 2).epsilon(0.001));
  CHECK(r9700.tflops_fp8.value_or(0) == doctest::Approx(1557.0 / 4).epsilon(0.001));
  // RDNA 3 WMMA: 512 FLOP/clk/CU. RX 7900 XT 84 CUs x 2.4 GHz; Strix Halo's Radeon 8060S 40 CUs x 2.9 GHz.
  CHECK(test::gpu("rx-7900-xt").tflops_fp16.value_or(0) == doctest::Approx(84 * 2.4 * 512 / 1000).epsilon(0.001));
  CHECK(test::gpu("ryzen-ai-max-395-128gb").tflops_bf16.value_or(0) ==
        doctest::Approx(40 * 2.9 * 512 / 1000).epsilon(0.001));
  // Intel's XMX runs FP16 at half its INT8 rate: the B580's 233 INT8 TOPS (Intel's launch figure) → 116.5.
  CHECK(test::gpu("arc-b580").tflops_fp16.value_or(0) == doctest::Approx(233.0 / 2));
  CHECK_FALSE(test::gpu("arc-b580").tflops_fp8);  // Xe2's XMX has no FP8
  // The MI300A has 228 of the MI300X's 304 CDNA 3 CUs: 1307.4 x 228 / 304; the MI350X is the MI355X at 2.2 of 2.4 GHz.
  CHECK(test::gpu("mi300a").tflops_fp16.value_or(0) == doctest::Approx(1307.4 * 228 / 304).epsilon(0.001));
  CHECK(test::gpu("mi350x").tflops_fp8.value_or(0) == doctest::Approx(5000.0 * 2.2 / 2.4).epsilon(0.001));
}

TEST_CASE("a figure without a source is refused") {
  auto r = parse_gpu_catalog(R"({"gpus":[{"id":"x","name":"X","memory_gib":8,"bandwidth_gb_s":100,
      "sources":{"memory_gib":"datasheet"}}]})");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "gpus[0].sources");
  CHECK(r.error().message.text == "missing a source for bandwidth_gb_s");
}

TEST_CASE("a cloud price names its offer, which is what people read beside a cost") {
  const char* price_without_offer = R"({"gpus":[{"id":"x","name":"X","memory_gib":8,"bandwidth_gb_s":100,
      "cloud_usd_per_hour":{"value":0.5,"date":"2026-09","source":"a provider's pricing page"},
      "sources":{"memory_gib":"datasheet","bandwidth_gb_s":"datasheet"}}]})";
  auto r = parse_gpu_catalog(price_without_offer);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "gpus[0].cloud_usd_per_hour");
  CHECK(r.error().message.text == "needs an offer");
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
    REQUIRE_MESSAGE(found.ok(), text << ": " << found.error().message.text);
    return found.value();
  };
  // An exact id or name: no note.
  CHECK(read("h100-sxm").gpu->id == "h100-sxm");
  CHECK(read("h100-sxm").note.empty());
  CHECK(read("A10").gpu->id == "a10");  // the A10 itself, not read into "A100"
  // The bare "H100" is the SXM card (the catalog's alias); the others it could mean are named.
  const auto h100 = read("H100");
  CHECK(h100.gpu->id == "h100-sxm");
  CHECK(h100.note.text.find("H100 PCIe") != std::string::npos);
  CHECK(h100.note.text.find("H100 NVL") != std::string::npos);
  // The vendor's word in front reads as the short name ("NVIDIA H100" as nvidia-smi and cloud consoles write it).
  CHECK(read("NVIDIA H100").gpu->id == "h100-sxm");
  CHECK(read("NVIDIA H100").note.text.find("H100 NVL") != std::string::npos);
  // A number only one card has; the plain card rather than its Ti.
  CHECK(read("4090").gpu->id == "rtx-4090");
  CHECK(read("rtx4090").gpu->id == "rtx-4090");
  CHECK(read("3090").gpu->id == "rtx-3090");
  CHECK(read("3090").note.text.find("3090 Ti") != std::string::npos);
  CHECK(read("3060").gpu->id == "rtx-3060-12gb");
  CHECK(read("A100").gpu->id == "a100-80gb-sxm");
  // Several cards and no way to tell: refused, naming them.
  auto ultra = resolve_gpu(gpus, "M2 Ultra", "gpu");
  REQUIRE_FALSE(ultra.ok());
  CHECK(ultra.error().field == "gpu");
  CHECK(ultra.error().message.text.find("Apple M2 Ultra 128GB, Apple M2 Ultra 192GB; name one") != std::string::npos);
  // Nothing: the closest names.
  auto typo = resolve_gpu(gpus, "h10", "gpus");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().field == "gpus");
  CHECK(typo.error().message.text.find("closest: NVIDIA H100") != std::string::npos);
}

TEST_CASE("GPU names as nvidia-smi and amd-smi print them read as the catalog's card") {
  const auto& gpus = test::catalog().gpus;
  const auto read = [&](const char* text) {
    auto found = resolve_gpu(gpus, text, "gpu");
    REQUIRE_MESSAGE(found.ok(), text << ": " << found.error().message.text);
    return found.value();
  };
  // The names as printed, each in an nvidia-smi table or `nvidia-smi -q` "Product Name" posted in a GitHub issue:
  // "NVIDIA GeForce RTX 4090" (RLinf/RLinf#255), "NVIDIA H100 80GB HBM3" (wilicc/gpu-burn#114, NVIDIA/nccl#1264),
  // "NVIDIA A100-SXM4-80GB" (NVIDIA/CUDALibrarySamples#104), "NVIDIA A100-SXM4-40GB"
  // (bottlerocket-os/bottlerocket-core-kit#834), "NVIDIA H100 PCIe" (mistralai/mistral-inference#43),
  // "NVIDIA RTX A6000" (NVIDIA/k8s-device-plugin#324), "Tesla V100-SXM2-32GB" (NVIDIA/nvidia-docker#1076),
  // "Tesla V100-SXM2-16GB" (NVIDIA/nvidia-docker#738), "NVIDIA L40S" (isaac-sim/IsaacSim#228), "NVIDIA A10G"
  // (bottlerocket-os/bottlerocket-core-kit#122), "NVIDIA GeForce RTX 3060" for a 12 GB card
  // (geerlingguy/raspberry-pi-pcie-devices#790); amd-smi's market_name "AMD Instinct MI300X" and product_name
  // "AMD Instinct MI300X OAM" (ROCm/vllm#359).
  struct Printed {
    const char* name;
    const char* id;
  };
  const Printed printed[] = {
      {"NVIDIA GeForce RTX 4090", "rtx-4090"},     {"NVIDIA H100 80GB HBM3", "h100-sxm"},
      {"NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"},  {"NVIDIA A100-SXM4-40GB", "a100-40gb-sxm"},
      {"NVIDIA H100 PCIe", "h100-pcie"},           {"NVIDIA RTX A6000", "rtx-a6000"},
      {"Tesla V100-SXM2-32GB", "v100-32gb-sxm2"},  {"Tesla V100-SXM2-16GB", "v100-16gb-sxm2"},
      {"NVIDIA L40S", "l40s"},                     {"NVIDIA A10G", "a10g"},
      {"AMD Instinct MI300X", "mi300x"},           {"AMD Instinct MI300X OAM", "mi300x"},
  };
  for (const auto& p : printed) CHECK_MESSAGE(read(p.name).gpu->id == p.id, p.name);
  // The name is the card's whole name: nothing else is said to be meant ("NVIDIA GeForce RTX 3090 Ti" is what a
  // 3090 Ti prints, so the plain name is the plain card).
  CHECK(read("NVIDIA GeForce RTX 4090").note.text == "\"NVIDIA GeForce RTX 4090\" read as GeForce RTX 4090.");
  CHECK(read("NVIDIA GeForce RTX 3090").note.text.find("Ti") == std::string::npos);
  // 80 GB of HBM3 is the SXM card alone: the PCIe card has HBM2e, the NVL 94 GB (data/gpus.json).
  CHECK(read("NVIDIA H100 80GB HBM3").note.text == "\"NVIDIA H100 80GB HBM3\" read as NVIDIA H100 SXM.");
  // One name for two memory sizes: the catalog's alias picks the 12 GB card and says the 8 GB one.
  CHECK(read("NVIDIA GeForce RTX 3060").gpu->id == "rtx-3060-12gb");
  CHECK(read("NVIDIA GeForce RTX 3060").note.text.find("GeForce RTX 3060 8GB") != std::string::npos);
  // Two cards under the name and no alias: refused, naming both.
  auto ti = resolve_gpu(gpus, "NVIDIA GeForce RTX 4060 Ti", "gpu");
  REQUIRE_FALSE(ti.ok());
  CHECK(ti.error().message.text == "\"NVIDIA GeForce RTX 4060 Ti\" could be GeForce RTX 4060 Ti 8GB, GeForce RTX 4060 Ti "
                              "16GB; name one");
  // Memory no card of the name has: refused with the sizes there are, never another card.
  auto big = resolve_gpu(gpus, "NVIDIA GeForce RTX 4090 48GB", "gpu");
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().field == "gpu");
  CHECK(big.error().message.text == "\"NVIDIA GeForce RTX 4090 48GB\" names memory that no card of that name has in the "
                               "GPU catalog; it has GeForce RTX 4090 (24 GB GDDR6X)");
  auto a100 = resolve_gpu(gpus, "NVIDIA A100-SXM4-64GB", "gpu");
  REQUIRE_FALSE(a100.ok());
  CHECK(a100.error().message.text.find("it has NVIDIA A100 40GB SXM (40 GB HBM2), NVIDIA A100 80GB SXM (80 GB HBM2e)") !=
        std::string::npos);
  // A form the catalog lacks is not read as a neighbour: the V100 FHHL is not the SXM2 or the PCIe card.
  auto fhhl = resolve_gpu(gpus, "Tesla V100-FHHL-16GB", "gpu");
  REQUIRE_FALSE(fhhl.ok());
  CHECK(fhhl.error().message.text.starts_with("unknown GPU \"Tesla V100-FHHL-16GB\""));
  // "Tesla V100-PCIE-32GB" as torch's collect_env prints it ("GPU 0: Tesla V100-PCIE-32GB", posted in public
  // repositories; the 16 GB card likewise) is the PCIe card of that memory.
  CHECK(read("Tesla V100-PCIE-16GB").gpu->id == "v100-pcie-16gb");
  CHECK(read("Tesla V100-PCIE-32GB").gpu->id == "v100-pcie-32gb");
}

TEST_CASE("the machines and cards people buy for local models answer to the names they write") {
  const auto& gpus = test::catalog().gpus;
  const auto read = [&](const char* text) {
    auto found = resolve_gpu(gpus, text, "gpu");
    REQUIRE_MESSAGE(found.ok(), text << ": " << found.error().message.text);
    return found.value();
  };
  // Short names as forum posts and shop listings write them, and the card each means: the 128 GB
  // box where a machine is sold in several sizes, the single card where a dual board exists.
  struct Written {
    const char* name;
    const char* id;
  };
  const Written written[] = {
      {"Spark", "dgx-spark"},
      {"DGX Spark", "dgx-spark"},
      {"GB10", "dgx-spark"},
      {"Strix Halo", "ryzen-ai-max-395-128gb"},
      {"395", "ryzen-ai-max-395-128gb"},
      {"AI Max", "ryzen-ai-max-395-128gb"},
      {"Ryzen AI Max+ 395", "ryzen-ai-max-395-128gb"},
      {"P40", "tesla-p40"},
      {"Tesla P40", "tesla-p40"},
      {"P100", "tesla-p100-pcie-16gb"},
      {"B60", "arc-pro-b60"},
      {"B60 Dual", "arc-pro-b60-dual-per-gpu"},
      {"B580", "arc-b580"},
      {"9070 XT", "rx-9070-xt"},
      {"RX 9070", "rx-9070"},
      {"7900 XT", "rx-7900-xt"},
      {"7900 XTX", "rx-7900-xtx"},
      {"7800 XT", "rx-7800-xt"},
      {"W7900", "radeon-pro-w7900"},
      {"MI50", "mi50-32gb"},  // the MI50 sold used today; the first one by its memory
      {"MI50 16GB", "mi50-16gb"},
      {"MI50 32GB", "mi50-32gb"},
      {"R9700", "radeon-ai-pro-r9700"},
      {"Radeon AI PRO R9700", "radeon-ai-pro-r9700"},
      {"M5 24GB", "apple-m5-24gb"},
      {"Apple M5 32GB", "apple-m5-32gb"},
      {"MI60", "mi60"},
      {"MI355X", "mi355x"},
      {"MI300A", "mi300a"},
      {"B300", "b300"},
      {"GB300", "gb300-per-gpu"},
      {"H20", "h20"},
      {"A40", "a40"},
      {"A30", "a30"},
      {"5060", "rtx-5060"},
      {"5050", "rtx-5050"},
      {"3080 Ti", "rtx-3080-ti"},
      {"4070 Ti", "rtx-4070-ti"},
      {"Thor", "jetson-agx-thor"},
      {"Orin", "jetson-agx-orin-64gb"},
      {"M5 Max", "apple-m5-max-128gb"},
      {"RTX PRO 4500 Blackwell", "rtx-pro-4500-blackwell"},
      // The issue's list by the names it uses: each one card.
      {"Jetson AGX Thor", "jetson-agx-thor"},
      {"Jetson AGX Orin", "jetson-agx-orin-64gb"},
      {"RTX PRO 5000 Blackwell", "rtx-pro-5000-blackwell"},
      {"RX 9070 XT", "rx-9070-xt"},
      {"RX 7900 XT", "rx-7900-xt"},
      {"RX 7800 XT", "rx-7800-xt"},
      {"Radeon PRO W7900", "radeon-pro-w7900"},
      {"Arc B580", "arc-b580"},
      {"Arc Pro B60", "arc-pro-b60"},
      {"Arc Pro B60 Dual", "arc-pro-b60-dual-per-gpu"},
      {"RTX 5060", "rtx-5060"},
      {"RTX 5050", "rtx-5050"},
      {"RTX 3090", "rtx-3090"},
      {"V100 PCIe 32GB", "v100-pcie-32gb"},
  };
  for (const auto& w : written) CHECK_MESSAGE(read(w.name).gpu->id == w.id, w.name << " reads as " << read(w.name).gpu->id);
  // A short name that other cards share says them: "395" is the 128 GB machine, the 64 GB one named beside it.
  CHECK(read("395").note.text.find("AMD Ryzen AI Max+ 395 64GB") != std::string::npos);
  CHECK(read("B60").note.text.find("Intel Arc Pro B60 Dual") != std::string::npos);
  // "V100 PCIe" is sold in 16 and 32 GB alike: refused, naming both, rather than read as one.
  const auto v100 = resolve_gpu(test::catalog().gpus, "V100 PCIe", "gpu");
  REQUIRE_FALSE(v100.ok());
  CHECK(v100.error().message.text.find("NVIDIA V100 PCIe 16GB") != std::string::npos);
  CHECK(v100.error().message.text.find("NVIDIA V100 PCIe 32GB") != std::string::npos);
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

namespace {

// llama.cpp's Metal log line: "recommendedMaxWorkingSetSize  = %8.2f MB" of the bytes / 1e6 (ggml-metal-device.m
// today), or / 1024 / 1024 in the ggml-metal.m of 2023 builds.
std::string printed(std::uint64_t bytes, double per_mb) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(bytes) / per_mb);
  return text;
}

}  // namespace

TEST_CASE("macOS's default wired limit is what llama.cpp logged as recommendedMaxWorkingSetSize on each RAM size") {
  constexpr double kMb = 1e6, kMib = 1024.0 * 1024.0;
  struct Logged {
    std::uint64_t ram_gib;
    double per_mb;
    const char* line;    // the figure as the log prints it
    const char* source;  // where it was printed
  };
  // Two thirds in 16 KiB pages plus one page up to 32 GiB: 8 GiB → (524,288 × 2 / 3 = 349,525) + 1 = 349,526 pages
  // = 5,726,633,984 B; 24 GiB → 1,048,576 + 1 pages = 17,179,885,568 B (not 2^34 = 17,179,869,184 B, "17179.87").
  // Above: three quarters exactly, 36 GiB → 27 GiB = 28,991,029,248 B. The sources at 16, 18, 32 (#2011), 64 (#1870)
  // and 96 GiB state the Mac's RAM; the others print a figure no other Mac RAM size gives under either branch.
  const Logged logged[] = {
      {8, kMb, "5726.63", "ggml-org/llama.cpp #5207 (its buffer lines print the same as 5461.34 MiB)"},
      {8, kMib, "5461.34", "ggml-org/llama.cpp #5207, 'allocated buffer ... ( 5655.70 /  5461.34)'"},
      {16, kMib, "10922.67", "abetlen/llama-cpp-python #687, M1 MacBook Pro 16 GB"},
      {18, kMb, "12884.92", "a whisper.cpp Flutter binding's README: Apple M3 Pro, 'Unified memory: 18GB'"},
      {24, kMb, "17179.89", "ggml examples' test output and a llama.cpp guide (several copies)"},
      {32, kMib, "21845.34", "ggml-org/llama.cpp #2011, 'M1 Max with 32GB RAM'; ollama/ollama #434, M2 Max 32GB"},
      {32, kMb, "22906.50", "a Metal guide's M2 Pro log (22906.50 MB = 21845.34 MiB)"},
      {36, kMb, "28991.03", "a llama.cpp ggml_metal_device_init log"},
      {48, kMb, "38654.71", "a llama.cpp ggml_metal_init log"},
      {64, kMib, "49152.00", "ggml-org/llama.cpp #1870, 'M1 MAX with 64GB of ram' (MiB)"},
      {64, kMb, "51539.61", "whisper.cpp and llama.cpp logs of an Apple M2 Max"},
      {96, kMib, "73728.00", "ggml-org/llama.cpp #3213, 'M2 max 96 Gb RAM'"},
  };
  for (const Logged& l : logged) {
    CAPTURE(l.ram_gib);
    CAPTURE(l.source);
    CHECK(printed(default_wired_limit_bytes(l.ram_gib << 30), l.per_mb) == l.line);
  }
}

TEST_CASE("the catalog's Macs use their wired limit: macOS's default, or the one set with iogpu.wired_limit_mb") {
  Gpu mac = test::gpu("apple-m3-max-36gb");
  CHECK(mac.usable_bytes() == 27ull << 30);  // 36 GiB × 3/4 (logged 28991.03 MB above)
  auto limit = wired_limit_for(mac, 32768, "wired_limit_mb");
  REQUIRE(limit.ok());
  mac.wired_limit_bytes = limit.value();
  CHECK(mac.usable_bytes() == 32ull << 30);
  // antirez/ds4 PR #893: "recommendedMaxWorkingSetSize: 112.00 GiB  # with iogpu.wired_limit_mb = 114688".
  const auto ds4 = wired_limit_for(test::gpu("apple-m4-max-128gb"), 114688, "wired_limit_mb");
  REQUIRE(ds4.ok());
  CHECK(ds4.value() == 112ull << 30);
  const auto above = wired_limit_for(mac, 36865, "wired_limit_mb");
  REQUIRE_FALSE(above.ok());
  CHECK(above.error().field == "wired_limit_mb");
  CHECK(above.error().message.text.find("36864 MB") != std::string::npos);
  const auto discrete = wired_limit_for(test::gpu("rtx-4090"), 20000, "wired_limit_mb");
  REQUIRE_FALSE(discrete.ok());
  CHECK(discrete.error().message.text.find("memory of its own") != std::string::npos);
}

TEST_CASE("A Strix Halo's GPU may use Linux's default GTT limit, half the RAM; the share set replaces it") {
  // TTM limits its pages to half the RAM in 4 KiB pages (linux drivers/gpu/drm/ttm/ttm_device.c ttm_global_init:
  // "num_pages /= 2", kept by ttm_tt_mgr_init unless ttm.pages_limit is given) and amdgpu sizes GTT by that limit
  // (amdgpu_ttm.c amdgpu_ttm_init: gtt_size = ttm_tt_pages_limit() << PAGE_SHIFT): 128 GiB / 2 = 64 GiB.
  Gpu halo = test::gpu("ryzen-ai-max-395-128gb");
  CHECK(halo.unified_memory);
  CHECK(halo.shared == SharedMemory::amd_apu);
  CHECK(halo.usable_bytes() == 64ull << 30);
  CHECK(test::gpu("ryzen-ai-max-395-64gb").usable_bytes() == 32ull << 30);
  // 128 GB machines logged "amdgpu: 63968M of GTT memory ready" (antirez/ds4 issue #475) and llama.cpp's HIP backend
  // "Total VRAM: 64055 MiB" (ROCm/rocm-systems issue #5167): half of the RAM the kernel sees, the machine's less the
  // BIOS carve-out and firmware, so a little below the 64 GiB counted here.
  for (const std::uint64_t logged_mib : {63968ull, 64055ull}) {
    CAPTURE(logged_mib);
    CHECK(halo.usable_bytes() >= logged_mib << 20);
    CHECK(halo.usable_bytes() - (logged_mib << 20) < 2ull << 30);
  }
  // ttm.pages_limit=25165824 gave "mem_info_gtt_total = 103079215104" and llama.cpp's "Total VRAM: 98304 MiB"
  // (noamsto/nix-amd-ai issue #42, pages = GiB × 262144): the same share given as 98304 MB.
  const auto set = wired_limit_for(halo, 98304, "wired_limit_mb");
  REQUIRE(set.ok());
  CHECK(set.value() == 25165824ull * 4096);
  CHECK(set.value() == 103079215104ull);
  halo.wired_limit_bytes = set.value();
  CHECK(halo.usable_bytes() == 103079215104ull);
  CHECK(wired_limit_note(halo).id == "unified.share_given");
  const auto above = wired_limit_for(halo, 131073, "wired_limit_mb");
  REQUIRE_FALSE(above.ok());
  CHECK(above.error().message.text.find("131072 MB") != std::string::npos);
  CHECK(above.error().message.text.find("operating system's default") != std::string::npos);
  CHECK(wired_limit_note(test::gpu("ryzen-ai-max-395-128gb")).id == "unified.amd_default");
  CHECK(one_per_machine_message(halo).id == "gpus.one_machine");
}

TEST_CASE("A DGX Spark's and the Jetsons' GPU may use what CUDA reports as the total") {
  // vLLM's startup check on a DGX Spark: free memory "of 121.69 GiB" (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks
  // issue #47), the RAM Linux sees of the 128 GB (llamastash/llamastash issue #80: "121.69 GiB unified LPDDR5X").
  const Gpu& spark = test::gpu("dgx-spark");
  CHECK(spark.shared == SharedMemory::nvidia_unified);
  REQUIRE(spark.driver_visible_bytes);
  CHECK(spark.usable_bytes() == *spark.driver_visible_bytes);
  CHECK(static_cast<double>(spark.usable_bytes()) / static_cast<double>(1ull << 30) == doctest::Approx(121.69).epsilon(1e-4));
  CHECK(wired_limit_note(spark).id == "unified.cuda_total");
  // On a Jetson CUDA reports the RAM Linux sees, MemTotal, as its total (Ollama on an AGX Orin: "CUDA0 (Orin) |
  // 61.4 GiB total"). tegrastats prints it as its RAM total: "RAM 5530/62841MB" on an AGX Orin 64GB, and a developer
  // kit's /proc/meminfo "MemTotal ≈ 64,349,016 kB". By hand: 64,349,016 kB / 1024 = 62,840.8 MiB, 62,841 MiB / 1024 =
  // 61.368 GiB: the 61.37 GiB the catalog carries, within 0.01 GiB of both.
  const Gpu& orin = test::gpu("jetson-agx-orin-64gb");
  CHECK(orin.shared == SharedMemory::nvidia_unified);
  REQUIRE(orin.driver_visible_bytes);
  CHECK(orin.usable_bytes() == *orin.driver_visible_bytes);
  const double usable_gib = static_cast<double>(orin.usable_bytes()) / static_cast<double>(1ull << 30);
  CHECK(usable_gib == doctest::Approx(62841.0 / 1024).epsilon(0.01 / 61.37));
  CHECK(usable_gib == doctest::Approx(64349016.0 / 1024 / 1024).epsilon(0.01 / 61.37));
  CHECK(wired_limit_note(orin).id == "unified.cuda_total");
  // The 32 GB module the same way: tegrastats "RAM 2257/30536MB" (a tegrastats parser's AGX Orin fixture, beside
  // 15823MB for the Orin NX 16GB): 30,536 MiB / 1024 = 29.82 GiB. Thor: llama.cpp prints the device's
  // totalGlobalMem, "NVIDIA Thor, compute capability 11.0, VMM: yes, VRAM: 125748 MiB": 125,748 / 1024 = 122.80 GiB.
  const std::pair<const char*, double> jetsons[] = {{"jetson-agx-orin-32gb", 30536.0 / 1024},
                                                    {"jetson-agx-thor", 125748.0 / 1024}};
  for (const auto& entry : jetsons) {
    const char* id = entry.first;
    const double gib = entry.second;
    CAPTURE(id);
    const Gpu& jetson = test::gpu(id);
    CHECK(jetson.shared == SharedMemory::nvidia_unified);
    REQUIRE(jetson.driver_visible_bytes);
    CHECK(jetson.usable_bytes() == *jetson.driver_visible_bytes);
    CHECK(static_cast<double>(jetson.usable_bytes()) / static_cast<double>(1ull << 30) ==
          doctest::Approx(gib).epsilon(0.01 / gib));
    CHECK(wired_limit_note(jetson).id == "unified.cuda_total");
  }
}

TEST_CASE("The RTX 3080 Ti's tensor rates: its SMs and boost clock at GA102's per-SM rates") {
  // GA102 whitepaper, RTX 3090: 71 dense FP16-with-FP32-accumulate TFLOPS at 82 SMs × 1695 MHz, 512 FLOP per clock
  // per SM (82 × 1.695e9 × 512 = 71.2e12), INT8 at four times that. The 3080 Ti (stillwater-sc/KPU-Simulator's RTX 30
  // table): 10,240 CUDA cores = 80 SMs of 128, boost 1,665 MHz, "273" INT8 TOPS. By hand: 80 × 1.665e9 × 512 =
  // 68.2e12; × 4 = 272.8e12, the table's 273.
  const Gpu& ti = test::gpu("rtx-3080-ti");
  REQUIRE(ti.tflops_bf16);
  REQUIRE(ti.tops_int8);
  CHECK(*ti.tflops_bf16 == doctest::Approx(80 * 1.665 * 512 / 1000).epsilon(0.001));
  CHECK(*ti.tops_int8 == doctest::Approx(80 * 1.665 * 2048 / 1000).epsilon(0.001));
  CHECK(*ti.tops_int8 == doctest::Approx(273).epsilon(0.002));
}

TEST_CASE("An MI300A's GPU may use the 96 GiB AMD documents; its node's four APUs are GPUs of one machine") {
  // ROCm/amdgpu-docs docs/system-optimization/mi300a.rst: "By default, when using a device allocator via HIP, it is
  // only possible to allocate 96 GiB out of a possible 128 GiB of memory on the MI300A"; amdttm's pages_limit of
  // 33554432 4 KiB pages per APU makes all of it available: 33,554,432 × 4096 B = 128 GiB = 131072 MiB.
  Gpu apu = test::gpu("mi300a");
  CHECK(apu.unified_memory);
  CHECK(apu.shared == SharedMemory::amd_apu);
  CHECK(apu.memory_bytes == 128ull << 30);
  CHECK(apu.usable_bytes() == 96ull << 30);
  CHECK(wired_limit_note(apu).id == "unified.amd_documented");
  // "To make 128 GiB of memory available across all four devices": four APUs, each with its own memory, so the
  // catalog counts several of them like separate GPUs.
  CHECK(apu.gpus_per_machine == 4);
  CHECK_FALSE(apu.one_per_machine());
  const auto all = wired_limit_for(apu, 131072, "wired_limit_mb");
  REQUIRE(all.ok());
  CHECK(all.value() == 33554432ull * 4096);
  apu.wired_limit_bytes = all.value();
  CHECK(apu.usable_bytes() == 128ull << 30);
  // A documented share needs its source, like any figure.
  const char* unsourced = R"({"schema":1,"gpus":[{"id":"x","name":"X","vendor":"AMD","segment":"datacenter",
    "memory_gib":128,"unified_memory":{"kind":"amd_apu","note":"n","default_share_gib":96},
    "sources":{"memory_gib":"a datasheet"}}]})";
  const auto refused = parse_gpu_catalog(unsourced);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.text.find("default_share_gib") != std::string::npos);
  const char* too_big = R"({"schema":1,"gpus":[{"id":"x","name":"X","vendor":"AMD","segment":"datacenter",
    "memory_gib":128,"unified_memory":{"kind":"amd_apu","note":"n","default_share_gib":129},
    "sources":{"memory_gib":"a datasheet","default_share_gib":"a guide"}}]})";
  CHECK_FALSE(parse_gpu_catalog(too_big).ok());
}

TEST_CASE("The base M5's GPU may use macOS's default wired limit of its RAM") {
  // llama.cpp's Metal log on 16 GiB Macs: "recommendedMaxWorkingSetSize = 10922.67 MiB" (abetlen/llama-cpp-python
  // #687); the M5 MacBook Pro ships with 16, 24 or 32 GB at 153 GB/s.
  const Gpu& m5 = test::gpu("apple-m5-16gb");
  CHECK(m5.shared == SharedMemory::macos);
  CHECK(printed(m5.usable_bytes(), 1024.0 * 1024.0) == "10922.67");
  CHECK(test::gpu("apple-m5-32gb").bandwidth_gb_s.value_or(0) == doctest::Approx(153));
}

TEST_CASE("A unified_memory entry names how its operating system shares the RAM") {
  const char* without_kind = R"({"schema":1,"gpus":[{"id":"x","name":"X","vendor":"AMD","segment":"consumer",
    "memory_gib":16,"unified_memory":{"note":"n"},"sources":{"memory_gib":"a datasheet"}}]})";
  const auto refused = parse_gpu_catalog(without_kind);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.text.find("needs a kind") != std::string::npos);
}

TEST_CASE("Apple GPUs' 16-bit figure: cores × 128 ALUs × 2 FLOPs × the GPU's clock, none for the M5") {
  // Clocks (data/gpus.json names each source): M1 1.278 GHz and its Pro/Max/Ultra 1.296, M2 1.398
  // (philipturner/metal-benchmarks' GPU table), M3 1.380 (philipturner/applegpuinfo's heuristic), M4 1.578 (powermetrics
  // on an M4 Pro, The Eclectic Light Company). M2 Ultra: 76 · 256 · 1.398 = 27,197 GFLOPS, Apple's "27.2 teraflops".
  struct Chip {
    const char* id;
    double cores, ghz;
  };
  for (const Chip& c : {Chip{"apple-m1-16gb", 8, 1.278}, Chip{"apple-m1-pro-32gb", 16, 1.296},
                        Chip{"apple-m1-max-64gb", 32, 1.296}, Chip{"apple-m1-ultra-128gb", 64, 1.296},
                        Chip{"apple-m2-24gb", 10, 1.398}, Chip{"apple-m2-pro-32gb", 19, 1.398},
                        Chip{"apple-m2-max-96gb", 38, 1.398}, Chip{"apple-m2-ultra-192gb", 76, 1.398},
                        Chip{"apple-m3-24gb", 10, 1.380}, Chip{"apple-m3-pro-36gb", 18, 1.380},
                        Chip{"apple-m3-max-36gb", 30, 1.380}, Chip{"apple-m3-max-128gb", 40, 1.380},
                        Chip{"apple-m3-ultra-512gb", 80, 1.380}, Chip{"apple-m4-32gb", 10, 1.578},
                        Chip{"apple-m4-pro-64gb", 20, 1.578}, Chip{"apple-m4-max-36gb", 32, 1.578},
                        Chip{"apple-m4-max-128gb", 40, 1.578}}) {
    CAPTURE(c.id);
    CHECK(test::gpu(c.id).tflops_fp16.value_or(0) == doctest::Approx(c.cores * 0.256 * c.ghz).epsilon(0.002));
    CHECK_FALSE(test::gpu(c.id).tflops_bf16);
  }
  CHECK(test::gpu("apple-m2-ultra-192gb").tflops_fp16.value_or(0) == doctest::Approx(27.2));
  for (const char* m5 : {"apple-m5-16gb", "apple-m5-pro-64gb", "apple-m5-max-128gb"}) CHECK_FALSE(test::gpu(m5).tflops_fp16);
}

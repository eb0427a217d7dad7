// A card described by its figures: gpu "custom" with its memory (and bandwidth, TFLOPS ... when known), or a catalog
// card with other memory ("an RTX 4090 with 48 GB"), asked of every question as a catalog entry is.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>  // std::string

#include "../test_support.hpp"
#include "hardware/gpu.hpp"
#include "json/answer.hpp"
#include "json/report_writer.hpp"
#include "util/text.hpp"  // split_list, lower_ascii

using namespace vramfit;
using nlohmann::json;

namespace {

constexpr std::uint64_t GiB = 1ull << 30;

json asked(const std::string& request) { return json::parse(answer(test::catalog(), request)); }

const Gpu& catalog_gpu(const char* id) {
  const Gpu* g = find_gpu(test::catalog().gpus, id);
  REQUIRE(g);
  return *g;
}

}  // namespace

TEST_CASE("a card's memory is read as people write it, in GB (a card's GB are GiB), and refused naming the field") {
  auto request = [](const char* memory) {
    return request_from_json(std::string(R"({"model":"llama-3.1-8b","gpu":"custom","gpu_memory":)") + memory + "}");
  };
  // 48 GB = 48 × 2³⁰ B = 51,539,607,552 B; 22.5 GB = 22.5 × 2³⁰ = 24,159,191,040 B.
  for (const char* given : {R"("48GB")", R"("48 GB")", R"("48 GiB")", R"("48g")", R"("48")", "48"}) {
    CAPTURE(given);
    const auto r = request(given);
    REQUIRE(r.ok());
    CHECK(*r.value().custom_gpu.memory_bytes == 51'539'607'552ull);
  }
  CHECK(*request(R"("22.5 GB")").value().custom_gpu.memory_bytes == 24'159'191'040ull);
  for (const char* bad : {R"("48TB")", R"("lots")", R"("0GB")", "0", R"("20000GB")", R"("-8GB")", "true"}) {
    CAPTURE(bad);
    const auto r = request(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().field == "gpu_memory");
    CHECK(r.error().message.text.starts_with("expected a memory size in GB from 1 to 16,384, such as 48GB or 24 GiB; got "));
  }
  const auto vendor = request_from_json(R"({"model":"llama-3.1-8b","gpu":"custom","gpu_memory":"8GB","gpu_vendor":"ati"})");
  REQUIRE_FALSE(vendor.ok());
  CHECK(vendor.error().field == "gpu_vendor");
  CHECK(vendor.error().message.text == "expected one of nvidia, amd, intel, apple; got \"ati\"");
  const auto bandwidth =
      request_from_json(R"({"model":"llama-3.1-8b","gpu":"custom","gpu_memory":"8GB","gpu_bandwidth":0})");
  REQUIRE_FALSE(bandwidth.ok());
  CHECK(bandwidth.error().field == "gpu_bandwidth");
  CHECK(bandwidth.error().message.text == "expected a number above 0 and at most 100,000; got 0");
  const auto r = request_from_json(
      R"({"model":"llama-3.1-8b","gpu":"custom","gpu_memory":"48GB","gpu_bandwidth":"1008","gpu_tflops":165,)"
      R"("gpu_tflops_fp8":330,"gpu_tflops_fp4":"660","gpu_vendor":"NVIDIA","gpu_unified":"no"})");
  REQUIRE(r.ok());
  const CustomGpuInputs& c = r.value().custom_gpu;
  CHECK(*c.bandwidth_gb_s == 1008);
  CHECK(*c.tflops == 165);
  CHECK(*c.tflops_fp8 == 330);
  CHECK(*c.tflops_fp4 == 660);
  CHECK(c.vendor == GpuVendor::nvidia);
  CHECK(*c.unified == false);
}

TEST_CASE("a card of one's own has the figures given and no others; one like a catalog card keeps that card's") {
  const auto& gpus = test::catalog().gpus;
  CustomGpuInputs in;
  in.memory_bytes = 48 * GiB;
  in.bandwidth_gb_s = 1008;
  in.tflops = 165;
  const auto own = custom_gpu(gpus, "custom", in);
  REQUIRE(own.ok());
  CHECK(own.value().id == "custom");
  CHECK(own.value().name == "Custom card, 48 GB, 1008 GB/s");
  CHECK(own.value().usable_bytes() == 48 * GiB);
  CHECK(own.value().driver_total_bytes() == 48 * GiB);  // no measured total: the nominal memory, as the catalog's rule
  CHECK(*own.value().tflops_bf16 == 165);
  CHECK(*own.value().tflops_fp16 == 165);
  CHECK_FALSE(own.value().tflops_fp8);  // not given: not known, never guessed
  CHECK_FALSE(own.value().cloud_usd_per_hour);
  CHECK(own.value().vendor.empty());
  CHECK_FALSE(own.value().unified_memory);

  CustomGpuInputs memory_only;
  memory_only.memory_bytes = 48 * GiB;
  const Gpu& rtx4090 = catalog_gpu("rtx-4090");
  const auto like = custom_gpu(gpus, "4090", memory_only);
  REQUIRE(like.ok());
  CHECK(like.value().id == "rtx-4090-with-48gb");
  CHECK(like.value().name == "GeForce RTX 4090 (48 GB)");
  CHECK(like.value().memory_bytes == 48 * GiB);
  CHECK(like.value().bandwidth_gb_s == rtx4090.bandwidth_gb_s);
  CHECK(like.value().tflops_bf16 == rtx4090.tflops_bf16);
  CHECK(like.value().architecture == rtx4090.architecture);
  CHECK(compute_capability(like.value()) == 89);
  CHECK_FALSE(like.value().driver_visible_bytes);  // measured with 24 GB, not with 48
  CHECK_FALSE(like.value().cloud_usd_per_hour);     // the catalog's price is the 24 GB card's
  CHECK_FALSE(like.value().street_usd);

  // Like a machine whose documented share is a figure of its own memory (the MI300A's 96 of 128 GiB, ROCm's
  // mi300a.rst), other memory drops that figure: the share can never be more than the memory given.
  CustomGpuInputs smaller;
  smaller.memory_bytes = 64 * GiB;
  const auto apu_like = custom_gpu(gpus, "mi300a", smaller);
  REQUIRE(apu_like.ok());
  CHECK_FALSE(apu_like.value().default_share_bytes);
  CHECK(apu_like.value().usable_bytes() <= 64 * GiB);

  // A unified-memory machine of one's own shares its RAM as its vendor's machines do: an AMD APU gets Linux's GTT
  // default, half the RAM: 128 GiB / 2 = 64 GiB.
  CustomGpuInputs apu;
  apu.memory_bytes = 128 * GiB;
  apu.vendor = GpuVendor::amd;
  apu.unified = true;
  const auto strix = custom_gpu(gpus, "custom", apu);
  REQUIRE(strix.ok());
  CHECK(strix.value().unified_memory);
  CHECK(strix.value().usable_bytes() == 64 * GiB);
  // An Apple GPU shares the Mac's memory: macOS's default, 3/4 of 64 GiB = 48 GiB.
  CustomGpuInputs mac;
  mac.memory_bytes = 64 * GiB;
  mac.vendor = GpuVendor::apple;
  const auto m = custom_gpu(gpus, "custom", mac);
  REQUIRE(m.ok());
  CHECK(m.value().segment == "apple");
  CHECK(m.value().usable_bytes() == 48 * GiB);
}

TEST_CASE("a card described wrongly is refused, naming the field and what it needs") {
  const auto& gpus = test::catalog().gpus;
  auto refused = [&](std::string_view gpu, const CustomGpuInputs& in) {
    const auto out = custom_gpu(gpus, gpu, in);
    REQUIRE_FALSE(out.ok());
    return out.error();
  };
  CustomGpuInputs none;
  CHECK(refused("custom", none).field == "gpu_memory");
  CHECK(refused("custom", none).message.text.find("is needed for a card of your own") != std::string::npos);
  CustomGpuInputs bw;
  bw.bandwidth_gb_s = 900;
  CHECK(refused("", bw).field == "gpu_bandwidth");
  CustomGpuInputs vendor;
  vendor.memory_bytes = 48 * GiB;
  vendor.vendor = GpuVendor::amd;
  CHECK(refused("rtx-4090", vendor).field == "gpu_vendor");
  CustomGpuInputs unified;
  unified.memory_bytes = 128 * GiB;
  unified.unified = true;
  CHECK(refused("custom", unified).field == "gpu_unified");
  // Intel's shared-memory GPUs are not modelled: the vendor given does not say how much of the RAM the GPU may use.
  unified.vendor = GpuVendor::intel;
  CHECK(refused("custom", unified).field == "gpu_unified");
  CHECK(refused("custom", unified).message.id == "gpu.custom_unified_vendor");
  CHECK(refused("rtx-9999", bw).field == "gpu");
}

TEST_CASE("gpu_vendor's names are the catalog's vendors, read in any case") {
  for (const std::string& name : split_list(gpu_vendor_names())) {
    CAPTURE(name);
    const auto vendor = parse_gpu_vendor(name);
    REQUIRE(vendor);
    CHECK(lower_ascii(gpu_vendor_name(*vendor)) == name);
    CHECK(parse_gpu_vendor(gpu_vendor_name(*vendor)) == vendor);
  }
  CHECK_FALSE(parse_gpu_vendor("ati"));
  CHECK_FALSE(parse_gpu_vendor(""));
  // Every catalog card's vendor is one a card of one's own can name, so "like" a catalog card and "custom" agree.
  for (const Gpu& g : test::catalog().gpus) {
    CAPTURE(g.id);
    CHECK(parse_gpu_vendor(g.vendor));
  }
  CustomGpuInputs own;
  own.memory_bytes = 16 * GiB;
  own.vendor = GpuVendor::intel;
  const auto card = custom_gpu(test::catalog().gpus, "custom", own);
  REQUIRE(card.ok());
  CHECK(card.value().vendor == "Intel");
}

TEST_CASE("a custom card answers every question as a catalog card does, with a note that the figures are yours") {
  // Llama-3.1-8B in BF16: 8,030,261,248 parameters × 2 B = 16.06 GB = 14.96 GiB of weights. The KV cache at 8192
  // tokens: 32 layers × 8 KV heads × 128 dims × 2 (K, V) × 2 B × 8192 = 1 GiB. So the total is above a 12 GB card's
  // 12 GiB whatever the overheads, and far below a 48 GB card's 48 GiB less 10 % headroom (43.2 GiB).
  const std::string scenario = R"("model":"llama-3.1-8b","context":8192)";
  const json small = asked("{" + scenario + R"(,"gpu":"custom","gpu_memory":"12GB"})");
  REQUIRE(small.at("ok") == true);
  CHECK(small.at("gpus").at(0).at("id") == "custom");
  CHECK(small.at("gpus").at(0).at("fit") == "does_not_fit");
  const json big = asked("{" + scenario + R"(,"gpu":"custom","gpu_memory":"48GB","gpu_bandwidth":1008})");
  REQUIRE(big.at("ok") == true);
  CHECK(big.at("gpus").at(0).at("fit") == "fits");
  CHECK(big.at("gpus").at(0).at("usable_bytes") == 48 * GiB);
  const std::uint64_t total = big.at("breakdown").at("total");
  CHECK(total > 15 * GiB);
  CHECK(total < 24 * GiB);
  // The same total as on any card: the free memory is 48 GiB less it.
  CHECK(big.at("gpus").at(0).at("free_bytes") == static_cast<std::int64_t>(48 * GiB - total));
  const std::string notes = big.at("notes").dump();
  CHECK(notes.find("Custom card, 48 GB, 1008 GB/s: the figures are your own") != std::string::npos);
  CHECK(big.at("notes").dump().find("gpu.custom_note") != std::string::npos);
  CHECK(big.at("verdict").at("message").at("text").get<std::string>().find("Custom card, 48 GB, 1008 GB/s") != std::string::npos);
  CHECK_FALSE(big.at("speed").is_null());  // a bandwidth: the decode speed

  // Without a bandwidth the speed is refused, naming the figure.
  const json no_bw = asked("{" + scenario + R"(,"gpu":"custom","gpu_memory":"48GB"})");
  REQUIRE(no_bw.at("ok") == true);
  CHECK(no_bw.at("speed").is_null());
  CHECK(no_bw.at("speed_unavailable").at("text").get<std::string>() ==
        "Custom card, 48 GB is described by your figures, and its memory bandwidth is not among them, so no speed can "
        "be estimated");

  // The GPU table and the ranking: it competes with a count, without a price.
  const json every = asked(R"({"questions":[{"question":"estimate","every_gpu":true},{"question":"gpu_ranking"}],)" +
                           scenario + R"(,"gpu":"rtx-4090","gpu_memory":"48GB"})");
  REQUIRE(every.at("ok") == true);
  bool in_table = false, plain_4090 = false;
  for (const json& g : every.at("answers").at(0).at("gpus")) {
    in_table = in_table || g.at("id") == "rtx-4090-with-48gb";
    plain_4090 = plain_4090 || g.at("id") == "rtx-4090";
  }
  CHECK(in_table);
  CHECK(plain_4090);
  bool ranked = false;
  for (const json& c : every.at("answers").at(1).at("ranking"))
    if (c.at("gpu") == "rtx-4090-with-48gb" && c.at("count") == 1) {
      ranked = true;
      CHECK(c.at("usd_per_hour").is_null());
      CHECK(c.at("name") == "GeForce RTX 4090 (48 GB)");
    }
  CHECK(ranked);

  // Training, the remedies, the limits.
  const json lora = asked(R"({"mode":"lora","model":"llama-3.1-8b","gpu":"custom","gpu_memory":"48GB","tokens":"1B"})");
  REQUIRE(lora.at("ok") == true);
  CHECK(lora.at("gpus").at(0).at("id") == "custom");
  CHECK(lora.at("notes").dump().find("the figures are your own") != std::string::npos);
  const json remedies = asked(R"({"question":"remedies","model":"llama-3.1-8b","gpu":"custom","gpu_memory":"12GB"})");
  REQUIRE(remedies.at("ok") == true);
  const json limits = asked(R"({"question":"limits","model":"llama-3.1-8b","gpu":"custom","gpu_memory":"48GB"})");
  REQUIRE(limits.at("ok") == true);

  // The engines' settings follow its memory: vLLM's KV pool takes gpu_memory_utilization of the nominal 48 GiB.
  const json vllm = asked(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"custom","gpu_memory":"48GB"})");
  REQUIRE(vllm.at("ok") == true);
  CHECK(vllm.at("notes").dump().find("no driver-reported total") != std::string::npos);
}

TEST_CASE("a custom card's errors come back as the request's") {
  for (const char* request : {R"({"model":"llama-3.1-8b","gpu":"custom"})",
                              R"({"model":"llama-3.1-8b","gpu_memory":"48GB"})",
                              R"({"mode":"lora","model":"llama-3.1-8b","gpu":"custom"})"}) {
    CAPTURE(request);
    const json out = asked(request);
    CHECK(out.at("ok") == false);
    CHECK(out.at("error").at("field") == "gpu_memory");
  }
  // A unified machine of one's own takes a wired limit as the catalog's do.
  const json apu = asked(R"({"model":"llama-3.1-8b","gpu":"custom","gpu_memory":"128GB","gpu_vendor":"amd",)"
                         R"("gpu_unified":true,"wired_limit_mb":98304})");
  REQUIRE(apu.at("ok") == true);
  CHECK(apu.at("gpus").at(0).at("usable_bytes") == 96 * GiB);  // 98,304 MiB
}

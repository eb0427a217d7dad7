// How well the speed estimate matches every published run in tests/data/speed_measurements.json, by the kinds issue
// 32 names: the middle of each predicted range against the measured figure, the median and the worst error per kind.
// The README's speed section quotes this test's output (run it with -s).
#include <doctest/doctest.h>

#include <algorithm>   // std::sort, std::max
#include <cmath>       // std::abs, std::sqrt
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream
#include <map>         // std::map
#include <sstream>     // std::ostringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include "../speed_fixtures.hpp"
#include "formats/gguf_mix.hpp"
#include "hardware/speed.hpp"
#include "model/tensors.hpp"

using namespace vramfit;
using vramfit::test::gpu;
using vramfit::test::kv_bytes;
using vramfit::test::speed_model;
using vramfit::test::weights_of;

namespace {

std::vector<SpeedMeasurement> measurements() {
  const auto path = std::filesystem::path(VRAMFIT_SOURCE_DIR) / "tests" / "data" / "speed_measurements.json";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream text;
  text << in.rdbuf();
  auto parsed = parse_speed_measurements(text.str());
  REQUIRE(parsed.ok());
  return parsed.value();
}

bool quantized(const std::string& format) { return format != "bf16" && format != "fp16" && format != "fp32"; }

// The DGX Spark has no dense int8 or 16-bit figure in the catalog; its runs are read with the stand-in the prefill
// test in test_speed.cpp derives (int8 : 16-bit = 2 : 1, the int8 peak that centres the one dense depth-0 run).
Gpu spark(double int8_tops) {
  Gpu g = gpu("dgx-spark");
  g.tops_int8 = int8_tops;
  g.tflops_bf16 = int8_tops / 2;
  return g;
}

SpeedOptions options_for(const SpeedMeasurement& m, const Gpu& g) {
  SpeedOptions o;
  o.engine = m.engine;
  // As serving.cpp picks it: the INT8 path where the GPU has an INT8 figure (not Apple's).
  o.compute = m.engine == Engine::llamacpp && quantized(m.format) && g.tops_int8 ? ComputePath::int8 : ComputePath::fp16;
  o.batch = m.batch;
  o.context_tokens = m.context;
  o.kv_bytes_per_sequence = kv_bytes(m.model.c_str(), m.context);
  o.prompt_tokens = m.context;
  o.prefill_depth = m.depth;
  if (m.ubatch > 0) o.prefill_chunk = m.ubatch;
  o.cpu_expert_layers = m.cpu_expert_layers;
  if (m.system_bandwidth_gb_s > 0) o.system_bandwidth_gb_s = m.system_bandwidth_gb_s, o.system_bandwidth_given = true;
  return o;
}

Range predicted(const SpeedMeasurement& m, const Gpu& g) {
  const SpeedModel model = speed_model(m.model.c_str(), m.format.c_str());
  const SpeedOptions o = options_for(m, g);
  if (m.metric == "decode") {
    auto d = estimate_decode(model, g, o);
    REQUIRE(d.ok());
    return d.value().tokens_per_second;
  }
  auto p = estimate_prefill(model, g, o);
  REQUIRE(p.ok());
  return p.value().tokens_per_second;
}

double spark_peak(const std::vector<SpeedMeasurement>& runs) {
  for (const SpeedMeasurement& m : runs)
    if (m.gpu == "dgx-spark" && m.model == "qwen2.5-7b" && m.depth == 0) {
      const Range at_100 = predicted(m, spark(100));
      return 100 * m.tokens_per_second / std::sqrt(at_100.low * at_100.high);
    }
  FAIL("no dense depth-0 run on the DGX Spark");
  return 0;
}

// The kinds of the "Done when". A run at a prompt of 8192 tokens or more from an empty cache is a time to
// first token; served runs are decode at a concurrency above one.
std::string kind_of(const SpeedMeasurement& m, const SpeedModel& model) {
  if (m.cpu_expert_layers > 0) return "experts in RAM";
  if (m.metric == "prefill") return m.depth == 0 && m.context >= 8192 ? "time to first token" : "prefill";
  if (m.batch > 1) return model.expert_groups.empty() ? "served, dense" : "batched MoE";
  return "single-stream decode";
}

struct Errors {
  std::vector<double> values;       // |middle / measured − 1|
  std::map<std::string, double> beyond_30;  // the runs more than 30 % off: label → middle / measured − 1
  double median() const {
    std::vector<double> v = values;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  double worst() const { return *std::max_element(values.begin(), values.end()); }
};

std::string label_of(const SpeedMeasurement& m) {
  return m.model + " " + m.format + " on " + m.gpu + " (" + std::string(engine_name(m.engine)) + ", batch " +
         std::to_string(m.batch) + ", " + std::to_string(m.context) + " tokens" +
         (m.depth ? " at depth " + std::to_string(m.depth) : std::string()) +
         (m.ubatch ? ", ub " + std::to_string(m.ubatch) : std::string()) + ")";
}

std::map<std::string, Errors> errors_by_kind() {
  const std::vector<SpeedMeasurement> runs = measurements();
  const double peak = spark_peak(runs);
  std::map<std::string, Errors> by_kind;
  for (const SpeedMeasurement& m : runs) {
    const Range r = predicted(m, m.gpu == "dgx-spark" ? spark(peak) : gpu(m.gpu.c_str()));
    const double error = (r.low + r.high) / 2 / m.tokens_per_second - 1;
    const std::string kind = kind_of(m, speed_model(m.model.c_str(), m.format.c_str()));
    MESSAGE(kind << " | " << label_of(m) << ": measured " << m.tokens_per_second << ", estimated " << r.low << "–"
                 << r.high << ", middle " << error * 100 << " %");
    by_kind[kind].values.push_back(std::abs(error));
    if (std::abs(error) > 0.30) by_kind[kind].beyond_30[label_of(m)] = error;
  }
  for (const auto& [kind, e] : by_kind)
    MESSAGE(kind << ": " << e.values.size() << " runs, median error of the middle " << e.median() * 100
                 << " %, worst " << e.worst() * 100 << " %");
  return by_kind;
}

}  // namespace

TEST_CASE("the published runs by kind: how far the middle of each range lies from the measured speed") {
  const std::map<std::string, Errors> by_kind = errors_by_kind();
  // The aim: single-stream decode within 5 % median, every run of every kind within 30 %; a run that leaves 30 % fails
  // here with its label and error. As run (-s):
  //   single-stream decode  18 runs  median 4.9 %  worst 17.9 % (llama.cpp Metal on an M1 Ultra)
  //   batched MoE            3 runs  median 3.5 %  worst 4.9 % (vLLM, Qwen3-30B-A3B BF16 at 10 requests on an H100, not
  //                          used to derive the MoE layer's cost; the two 4-bit runs it comes from: 3.5 % and 0.2 %)
  //   served, dense          3 runs  median 11.0 % worst 15.1 %
  //   experts in RAM         2 runs  median 11.0 % worst 14.5 % (Qwen3-30B-A3B on an RTX 2080)
  //   prefill               59 runs  median 10.0 % worst 25.9 % (Qwen3-30B-A3B Q8_0 at depth 32768 on a DGX Spark,
  //                         slow; the RTX 3090's MoE runs within 17 %, the RTX 4090's within 23 %, the 16 Apple
  //                         runs within 12 %)
  //   time to first token    1 run          0.4 %
  REQUIRE(by_kind.count("single-stream decode"));
  CHECK(by_kind.at("single-stream decode").median() < 0.05);
  for (const char* kind : {"single-stream decode", "batched MoE", "served, dense", "experts in RAM", "prefill",
                           "time to first token"}) {
    CAPTURE(kind);
    REQUIRE(by_kind.count(kind));
    for (const auto& miss : by_kind.at(kind).beyond_30) {  // not a structured binding: clang 14 cannot capture one
      CAPTURE(miss.first);
      CAPTURE(miss.second);
      FAIL_CHECK("more than 30 % off");
    }
  }
}

TEST_CASE("llama.cpp's gpt-oss runs read the GGUF as stored: MXFP4 experts, Q8_0 elsewhere (MXFP4_MOE)") {
  // llama-bench names the file type in its model column (benches/dgx-spark.md): "gpt-oss 20B MXFP4 MoE | 11.27 GiB"
  // and "gpt-oss 120B MXFP4 MoE | 59.02 GiB", llama-quantize's MXFP4_MOE (experts MXFP4, the rest Q8_0). The
  // checkpoint's own mxfp4 format keeps the rest at 16 bits, more than these runs read: at 81.11 t/s and 273 GB/s a
  // token of the 20B reads at most 3.37 GB.
  // llama-bench's size is the tensor data (llama_model_size: the sum of ggml_nbytes), printed to 0.01 GiB: ±0.05 %.
  CHECK(static_cast<double>(weights_of("gpt-oss-120b", "mxfp4_moe").total) ==
        doctest::Approx(59.02 * static_cast<double>(kGiB)).epsilon(0.001));
  // The 20B's tensor types, as llama.cpp build 6699 loads ggml-org's gpt-oss-20b-mxfp4.gguf (ikawrakow/ik_llama.cpp
  // issue 822): "type f32: 289 tensors", "type q8_0: 98 tensors", "type mxfp4: 72 tensors", "file size = 11.27 GiB".
  // Q8_0 are the 24 layers' attn_q/k/v/output and token_embd and output (2880 × 201088 each); no tensor is F16.
  // The whole file is 12.10 GB; the 10.69 GiB the weights line shows on the GPU leaves out token_embd (Q8_0,
  // 0.615 GB), which llama.cpp keeps in system RAM.
  const WeightBytes w20 = weights_of("gpt-oss-20b", "mxfp4_moe");
  CHECK(static_cast<double>(w20.total) == doctest::Approx(11.27 * static_cast<double>(kGiB)).epsilon(0.001));
  CHECK(w20.embedding == 201088ULL * 2880 / 32 * 34);
  CHECK(w20.output == 201088ULL * 2880 / 32 * 34);
  const SpeedModel as_stored = speed_model("gpt-oss-20b", "mxfp4_moe");
  CHECK(static_cast<double>(as_stored.weight_bytes_read) < 273e9 / 81.11);
  CHECK(as_stored.weight_bytes_read < speed_model("gpt-oss-20b", "mxfp4").weight_bytes_read);
}

TEST_CASE("llama-bench runs at a micro-batch of their own and vLLM's time to first token lie inside their ranges") {
  // The DGX Spark's runs have a test case of their own (test_speed.cpp): its peak is a stand-in.
  int checked = 0;
  for (const SpeedMeasurement& m : measurements()) {
    if (m.metric != "prefill" || m.ubatch == 0 || m.gpu == "dgx-spark") continue;
    CAPTURE(m.source);
    const Range r = predicted(m, gpu(m.gpu.c_str()));
    CAPTURE(r.low);
    CAPTURE(r.high);
    CHECK(r.low <= m.tokens_per_second);
    CHECK(m.tokens_per_second <= r.high);
    // The grouped products' share spans more than the dense one's (9–21 %, on Ampere cards 6–14 %, on Ada Lovelace
    // cards 4.5–10.5 %, against 20–35 % on consumer cards), and whether MMQ hides the touched experts' reads behind
    // their arithmetic is not measured (the slow end adds them, the fast end overlaps them), so an MoE prefill range
    // is wider than the 2x a dense run's is held to: the two spans multiply, about 2.3 from the share and up to
    // (arithmetic + reads) / max(arithmetic, reads) ≤ 2 from the reads, 4.7x at most. The widest of these runs' ranges
    // is 3.04x (gpt-oss-20b at ub 64 on an RTX 3090); the cap keeps a wider one from passing unseen.
    CHECK(r.high / r.low <= 3.3);
    ++checked;
  }
  CHECK(checked == 17);
}

TEST_CASE("llama.cpp's grouped products by architecture: a tile's spare column from each card's micro-batch sweep") {
  // A micro-batch of ub tokens whose experts each run one 128-column tile costs F + 128α + n·β, n = ub · k/E the
  // tokens routed to an expert and F what the estimate charges apart (the layers' launches and half the weights'
  // read, at their ranges' middles): two micro-batch sizes with the same tiles give α, one spare tile column over
  // all the experts, charged as w = α · middle · peak / (2 · routed parameters) of a routed token's product.
  const std::vector<SpeedMeasurement> runs = measurements();
  auto ms = [&](const char* model, const char* card, std::uint64_t ub) {
    for (const SpeedMeasurement& m : runs)
      if (m.model == model && m.gpu == card && m.ubatch == ub && m.metric == "prefill")
        return static_cast<double>(ub) / m.tokens_per_second * 1e3;
    FAIL("no run of " << model << " on " << card << " at ub " << ub);
    return 0.0;
  };
  auto fixed_ms = [](const SpeedModel& m, const Efficiency& eff, const Gpu& g, std::uint64_t ub) {
    const double bytes = static_cast<double>(m.weight_bytes_read) - m.routed_bytes_read(1) + m.routed_bytes_read(ub);
    const double bandwidth = (eff.bandwidth_share.low + eff.bandwidth_share.high) / 2 * *g.bandwidth_gb_s * 1e9;
    const Range launches = step_overhead_s(eff, m.num_layers);
    return (bytes / bandwidth / 2 + (launches.low + launches.high) / 2) * 1e3;
  };
  struct Split {
    double alpha, beta;  // ms
  };
  // Two micro-batches of ub1 and ub2 tokens routing n1 and n2 to an expert.
  auto split = [&](const char* model, const char* format, const char* card, std::uint64_t ub1, double n1,
                   std::uint64_t ub2, double n2) {
    const SpeedModel m = speed_model(model, format);
    const Gpu g = gpu(card);
    const Efficiency& eff = efficiency(Engine::llamacpp, g);
    const double t1 = ms(model, card, ub1) - fixed_ms(m, eff, g, ub1);
    const double t2 = ms(model, card, ub2) - fixed_ms(m, eff, g, ub2);
    const double beta = (t2 - t1) / (n2 - n1);
    return Split{(t1 - n1 * beta) / 128, beta};
  };
  auto routed_params = [](const char* model, const char* format) {
    double params = 0;
    for (const auto& g : speed_model(model, format).expert_groups) params += g.params;
    return params;
  };
  auto weight = [](const Split& s, const Range& share, double peak_tops, double params) {
    const double column_ms = 2 * params / ((share.low + share.high) / 2 * peak_tops * 1e12) * 1e3;
    return s.alpha / column_ms;
  };
  const Efficiency& on_3090 = efficiency(Engine::llamacpp, gpu("rtx-3090"));
  const Efficiency& on_4090 = efficiency(Engine::llamacpp, gpu("rtx-4090"));
  // RTX 3090, gpt-oss-20b pp512 (PR #20586), 24 layers of 32 experts of 3 · 2880 · 2880 and biases of 5760 + 2880:
  // 19.12e9 routed parameters, 4 per token: ub 256 and 512 route 32 and 64 tokens to an expert. 256 / 3086.19 =
  // 82.950 ms and 512 / 4739.20 = 108.035 ms, less F = 11.48 GB / (0.8 · 936 GB/s) / 2 + 24 · 31.25 µs = 8.416 ms:
  // β = 25.085 / 32 = 0.7839 ms, 128α = 74.534 − 32 · 0.7839 = 49.449 ms, α = 0.3863 ms. At 10 % of 284 TOPS (the
  // middle of 6–14 %) a column takes 2 · 19.12e9 / 28.4e12 = 1.3463 ms: w = 0.287.
  CHECK(routed_params("gpt-oss-20b", "mxfp4_moe") == doctest::Approx(24.0 * 32 * (3 * 2880 * 2880 + 5760 + 2880)));
  const Split gpt_oss = split("gpt-oss-20b", "mxfp4_moe", "rtx-3090", 256, 32, 512, 64);
  CHECK(gpt_oss.alpha == doctest::Approx(0.3863).epsilon(0.001).scale(0));
  const double w_ampere = weight(gpt_oss, on_3090.moe_share, 284, routed_params("gpt-oss-20b", "mxfp4_moe"));
  CHECK(w_ampere == doctest::Approx(0.287).epsilon(0.003).scale(0));
  CHECK(on_3090.moe_tile_weight == doctest::Approx(w_ampere).epsilon(0.015).scale(0));  // 0.29, rounded
  // The same card's Gemma 4 26B-A4B Q4_K_M pp2048 (PR #22298), 30 layers of 128 experts of 3 · 2816 · 704 =
  // 22.84e9, 8 per token: ub 512 and 1024 route 32 and 64. 512 / 3487.80 = 146.797 ms and 1024 / 4438.32 = 230.719
  // ms, less F = 16.78 GB / (0.8 · 936 GB/s) / 2 + 30 · 31.25 µs = 12.141 ms: β = 83.922 / 32 = 2.6226 ms, 128α =
  // 134.656 − 83.922 = 50.734 ms, α = 0.3964 ms; a column takes 2 · 22.84e9 / 28.4e12 = 1.6083 ms: w = 0.246, 14 %
  // under gpt-oss-20b's on another model.
  CHECK(routed_params("gemma-4-26b-a4b", "q4_k_m") == doctest::Approx(30.0 * 128 * 3 * 2816 * 704));
  const Split gemma = split("gemma-4-26b-a4b", "q4_k_m", "rtx-3090", 512, 32, 1024, 64);
  const double w_gemma = weight(gemma, on_3090.moe_share, 284, routed_params("gemma-4-26b-a4b", "q4_k_m"));
  CHECK(w_gemma == doctest::Approx(0.246).epsilon(0.003).scale(0));
  CHECK(std::abs(w_gemma / w_ampere - 1) < 0.15);
  // RTX 4090, Qwen3.5-35B-A3B Q4_0 pp2048 (PR #22298), 40 layers of 256 experts of 3 · 2048 · 512 = 32.21e9, 8 per
  // token: ub 256 and 512 route 8 and 16. 256 / 5782.42 = 44.272 ms and 512 / 7999.83 = 64.001 ms, less F = 19.41 GB
  // / (0.8 · 1008 GB/s) / 2 + 40 · 31.25 µs = 13.287 and 13.290 ms: β = 19.726 / 8 = 2.4658 ms, 128α = 30.985 −
  // 8 · 2.4658 = 11.259 ms, α = 0.0880 ms. At 7.5 % of 660.6 TOPS (the middle of 4.5–10.5 %) a column takes
  // 2 · 32.21e9 / 49.545e12 = 1.3003 ms: w = 0.068, under a quarter of the RTX 3090's.
  CHECK(routed_params("qwen3.5-35b-a3b", "q4_0") == doctest::Approx(40.0 * 256 * 3 * 2048 * 512));
  const Split qwen = split("qwen3.5-35b-a3b", "q4_0", "rtx-4090", 256, 8, 512, 16);
  const double w_ada = weight(qwen, on_4090.moe_share, 660.6, routed_params("qwen3.5-35b-a3b", "q4_0"));
  CHECK(w_ada == doctest::Approx(0.0677).epsilon(0.005).scale(0));
  CHECK(on_4090.moe_tile_weight == doctest::Approx(w_ada).epsilon(0.01).scale(0));
  // The split's other micro-batches, each with its own F: ub 128 (4 tokens per expert, one 128-column tile) 13.097 +
  // 11.259 + 4 · 2.4658 = 34.22 ms against 128 / 3694.61 = 34.65; ub 1024 (32) 13.290 + 11.259 + 78.91 = 103.46 ms
  // against 1024 / 9559.98 = 107.11; ub 2048 (64) 182.37 ms against 204.27, 11 % under; ub 64 (64-column tiles)
  // 11.817 + 64 · 0.0880 + 2 · 2.4658 = 22.38 ms against 21.84.
  const SpeedModel qwen_model = speed_model("qwen3.5-35b-a3b", "q4_0");
  const Gpu rtx_4090 = gpu("rtx-4090");
  auto at = [&](std::uint64_t ub, double tile, double n) {
    return fixed_ms(qwen_model, on_4090, rtx_4090, ub) + tile * qwen.alpha + n * qwen.beta;
  };
  CHECK(at(128, 128, 4) == doctest::Approx(ms("qwen3.5-35b-a3b", "rtx-4090", 128)).epsilon(0.015));
  CHECK(at(1024, 128, 32) == doctest::Approx(ms("qwen3.5-35b-a3b", "rtx-4090", 1024)).epsilon(0.04));
  CHECK(at(2048, 128, 64) == doctest::Approx(ms("qwen3.5-35b-a3b", "rtx-4090", 2048)).epsilon(0.11));
  CHECK(at(64, 64, 2) == doctest::Approx(ms("qwen3.5-35b-a3b", "rtx-4090", 64)).epsilon(0.03));
  // Which cards get which: the architecture's figures for its consumer and workstation cards and under Ollama.
  CHECK(on_3090.moe_card == "RTX 3090");
  CHECK(on_4090.moe_card == "RTX 4090");
  CHECK(&efficiency(Engine::llamacpp, gpu("rtx-3060-12gb")) == &on_3090);
  CHECK(&efficiency(Engine::llamacpp, gpu("rtx-6000-ada")) == &on_4090);
  CHECK(&efficiency(Engine::ollama, gpu("rtx-4090")) == &on_4090);
  // Only the grouped products differ from the class's figures; a card of another architecture or vendor, a
  // datacenter card and another engine keep their class's.
  const Efficiency& consumer = efficiency(Engine::llamacpp, GpuClass::consumer);
  CHECK(on_4090.bandwidth_share.low == consumer.bandwidth_share.low);
  CHECK(on_4090.compute_share.high == consumer.compute_share.high);
  CHECK(on_4090.layer_overhead_s.high == consumer.layer_overhead_s.high);
  CHECK(consumer.moe_card.empty());
  CHECK(consumer.moe_tile_weight == on_3090.moe_tile_weight);
  CHECK(&efficiency(Engine::llamacpp, gpu("rtx-5090")) == &consumer);
  CHECK(&efficiency(Engine::llamacpp, gpu("rx-7900-xtx")) == &consumer);
  CHECK(&efficiency(Engine::llamacpp, gpu("l40s")) == &efficiency(Engine::llamacpp, GpuClass::datacenter));
  CHECK(&efficiency(Engine::vllm, gpu("rtx-4090")) == &efficiency(Engine::vllm, GpuClass::consumer));
  // The explanation names the card the figures come from.
  const auto qwen_run = std::find_if(runs.begin(), runs.end(), [](const SpeedMeasurement& m) {
    return m.model == "qwen3.5-35b-a3b" && m.gpu == "rtx-4090" && m.ubatch == 2048;
  });
  REQUIRE(qwen_run != runs.end());
  const auto p = estimate_prefill(speed_model("qwen3.5-35b-a3b", "q4_0"), rtx_4090, options_for(*qwen_run, rtx_4090));
  REQUIRE(p.ok());
  CHECK(p.value().explanation.text.find("at 4.5–10.5 % of it") != std::string::npos);
  CHECK(p.value().explanation.text.find("(the share and the spare columns' cost from runs on an RTX 4090, assumed for "
                                        "other Ada Lovelace cards)") != std::string::npos);
}

TEST_CASE("an MoE layer's own cost by its experts' width: dense and MoE models in one SGLang set-up") {
  // Qwen's speed benchmark (QwenLM/Qwen3 docs/source/getting_started/speed_benchmark.md at 7a2f61f: SGLang
  // 0.4.6.post1, one NVIDIA H20, batch 1, input length 1, 2048 tokens generated; speed = (prompt + generated tokens) /
  // time), the "Speed (tokens/s)" column: Qwen3-4B "BF16 ... 133.13", "FP8 ... 200.61"; Qwen3-8B "BF16 ... 81.73",
  // "FP8 ... 150.25"; Qwen3-30B-A3B "BF16 ... 137.18", "FP8 ... 155.55". A step of a dense model of 36 layers takes
  // (weights + cache) / B + 36 · o, the cache read at the average 1025 tokens in BF16 (SGLang's --kv-cache-dtype
  // "auto" takes the model's data type, BF16 in these checkpoints' configs, the FP8 ones' too): the two dense models give the set-up's B and o, and the MoE model's 48 layers as dense ones would
  // take (weights + cache) / B + 48 · o; what it took beyond that is its MoE layers' own cost.
  struct Width {
    const char* format;
    double dense_small, dense_large, moe;  // tokens/s
    double per_layer_us;                   // kVllmMoeLayerOverhead's high end for the width (speed.cpp)
  };
  const auto read = [](const char* model, const char* format) {
    return static_cast<double>(speed_model(model, format).weight_bytes_read + kv_bytes(model, 1025));
  };
  for (const Width& w : {Width{"bf16", 133.13, 81.73, 137.18, 9.0}, Width{"fp8", 200.61, 150.25, 155.55, 19.6}}) {
    CAPTURE(w.format);
    const double small = read("qwen3-4b", w.format), large = read("qwen3-8b", w.format);
    const SpeedModel moe = speed_model("qwen3-30b-a3b", w.format);
    REQUIRE(speed_model("qwen3-4b", w.format).num_layers == 36);
    REQUIRE(speed_model("qwen3-8b", w.format).num_layers == 36);
    REQUIRE(moe.num_layers == 48);
    REQUIRE(moe.expert_layers() == 48);
    const double bandwidth = (large - small) / (1 / w.dense_large - 1 / w.dense_small);  // bytes/s
    const double layer = (1 / w.dense_small - small / bandwidth) / 36;                     // s
    const double as_dense = read("qwen3-30b-a3b", w.format) / bandwidth + 48 * layer;
    const double per_moe_layer = (1 / w.moe - as_dense) / 48;
    CAPTURE(bandwidth);
    CAPTURE(layer);
    CHECK(per_moe_layer * 1e6 == doctest::Approx(w.per_layer_us).epsilon(0.02));
    // The speed model charges that width's figure to vLLM and SGLang.
    const Range charged = moe_layer_overhead_for(efficiency(Engine::sglang, GpuClass::datacenter), moe);
    CHECK(charged.low == 0);
    CHECK(charged.high * 1e6 == doctest::Approx(w.per_layer_us));
  }
  // Hand arithmetic for BF16: the cache is 147,456 B a token for both dense models (36 layers · 8 KV heads · 128 · 2
  // · 2 B) and 98,304 for the MoE one (48 · 4 · 128 · 2 · 2), 151.1 and 100.8 MB at 1025 tokens. B = (15.288 − 8.196
  // GB) / (12.235 − 7.512 ms) = 1.501 TB/s; o = (7.512 − 5.459 ms) / 36 = 57.0 µs; as dense layers 6.184 GB / B +
  // 48 · o = 4.120 + 2.736 = 6.856 ms against 7.290 measured: 9.0 µs for each of the 48 MoE layers.
  CHECK(kv_bytes("qwen3-4b", 1) == 147456);
  CHECK(kv_bytes("qwen3-8b", 1) == 147456);
  CHECK(kv_bytes("qwen3-30b-a3b", 1) == 98304);
  // gpt-oss's MXFP4 experts (4.25 bits with their scales) fall in the 4-bit class.
  CHECK(speed_model("gpt-oss-20b", "mxfp4").expert_bits() == doctest::Approx(4.25).epsilon(0.01));
  CHECK(moe_layer_overhead_for(efficiency(Engine::sglang, GpuClass::datacenter), speed_model("gpt-oss-20b", "mxfp4"))
            .low == doctest::Approx(82e-6));
  // The explanation says which model the 4-bit figure was measured on; the 16-bit one needs no such word.
  SpeedOptions o;
  o.engine = Engine::sglang;
  o.batch = 4;
  const auto said = [&](const char* model, const char* format) {
    auto d = estimate_decode(speed_model(model, format), gpu("h100-sxm"), o);
    REQUIRE(d.ok());
    return d.value().explanation.text.find("measured on gpt-oss's MXFP4 experts") != std::string::npos;
  };
  CHECK(said("gpt-oss-20b", "mxfp4"));
  CHECK_FALSE(said("qwen3-30b-a3b", "bf16"));
}

TEST_CASE("batched MoE decode: the MoE layer's per-step cost comes from two served runs and is checked on others") {
  // llama-batched-bench (ggml-org/llama.cpp tools/batched-bench/batched-bench.cpp) adds token 0 at the same position
  // to every sequence, in the prompt ("common_batch_add(batch, 0, i, { j }, false)") and in each generated step
  // ("common_batch_add(batch, 0, pp + i, { j }, true)"): every sequence holds the same hidden state, so a router sends
  // them all to the same k experts, and its S_TG at B sequences measures llama.cpp's batched kernels on k experts, not
  // the experts a batch of different requests touches. The DGX Spark's runs at B = 2 to 32 (benches/dgx-spark.md) are
  // therefore not pinned (tests/data/speed_measurements.json's "about" says why); its B = 1 runs are single-stream
  // decode. Batched MoE is pinned to served runs on random prompts instead.
  // kVllmMoeLayerOverhead's 4-bit figure (speed.cpp) is derived from two of them: SGLang, gpt-oss-20b (MXFP4) at 4 and
  // 32 requests on an H100 (ai-bot-pro/achatbot PR #183; each run's source line has the arithmetic). The two batches
  // read 6.7 and 13.3 GB a step, yet their steps differ by 2.3 ms only: the rest is a cost per step, which the figure
  // charges each MoE layer. Those two come out near the middle by construction, which checks the arithmetic, not the
  // figure. The 16-bit figure comes from batch-1 runs on an H20 (the test case above). The check is the served MoE
  // run used for neither, held to the 30 % aim: vLLM's Qwen3-30B-A3B BF16 at 10 requests on an H100 (vllm-project/vllm
  // PR #23151, Mean TPOT 13.18 ms): −4.9 %, inside the range.
  int derived = 0, independent = 0;
  for (const SpeedMeasurement& m : measurements()) {
    if (m.metric != "decode" || m.batch == 1) continue;
    const SpeedModel model = speed_model(m.model.c_str(), m.format.c_str());
    if (model.expert_groups.empty()) continue;
    CAPTURE(m.source);
    CHECK(m.engine != Engine::llamacpp);
    const Range r = predicted(m, gpu(m.gpu.c_str()));
    const double error = (r.low + r.high) / 2 / m.tokens_per_second - 1;
    CAPTURE(error);
    if (m.source.find("ai-bot-pro/achatbot/pull/183") != std::string::npos) {
      // The measured step includes the prefills of the requests that start meanwhile (about 32 of 512 tokens during
      // one request's 1023 steps at 32 requests), a few percent the decode estimate leaves out.
      CHECK(std::abs(error) < 0.10);
      CHECK(r.low <= m.tokens_per_second);
      CHECK(m.tokens_per_second <= r.high);
      ++derived;
    } else {
      CHECK(std::abs(error) < 0.30);
      ++independent;
    }
  }
  CHECK(derived == 2);
  CHECK(independent == 1);
}

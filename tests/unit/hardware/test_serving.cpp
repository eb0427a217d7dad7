// Speed and cost of one scenario on one GPU (serving.hpp): what the memory estimate hands the roofline,
// and the price arithmetic, checked by hand.
#include <doctest/doctest.h>

#include "../test_support.hpp"
#include "hardware/serving.hpp"
#include "json/report_writer.hpp"
#include "json/request.hpp"

using namespace vramfit;

namespace {

Report evaluated(const char* json) {
  auto request = request_from_json(json);
  REQUIRE_MESSAGE(request.ok(), json);
  auto report = evaluate(test::catalog(), request.value());
  REQUIRE_MESSAGE(report.ok(), json << ": " << (report.ok() ? "" : report.error().message.text));
  return std::move(report).value();
}

const ServingSpeed& speed_of(const Report& r) {
  REQUIRE(r.serving.has_value());
  REQUIRE_MESSAGE(r.serving->speed.has_value(), r.serving->speed_unavailable);
  return *r.serving->speed;
}

}  // namespace

TEST_CASE("no GPU, no speed or cost; with one, both") {
  CHECK_FALSE(evaluated(R"({"model":"llama-3.1-8b"})").serving.has_value());
  const Report r = evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090"})");
  const ServingSpeed& s = speed_of(r);
  CHECK(s.decode.tokens_per_second.low > 0);
  CHECK(s.decode.tokens_per_second.low <= s.decode.tokens_per_second.high);
  REQUIRE(s.prefill.has_value());
  CHECK(s.prefill->tokens_per_second.low > 0);
  CHECK(s.prompt_tokens == 512);  // llama-bench pp512
  CHECK(s.note.empty());
}

TEST_CASE("the KV cache one sequence reads per step comes from the scenario's dtype and length") {
  // Llama-3.1-8B: 2 (K, V) × 8 KV heads × 128 × 2 B × 32 layers = 131,072 B per token in fp16.
  const ModelSpec& m = test::preset("llama-3.1-8b");
  SUBCASE("batch does not change the per-sequence cache") {
    const Report r = evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","context":8192,"batch":4})");
    auto o = speed_options_for(m, r.estimate, {});
    REQUIRE(o.ok());
    CHECK(o.value().kv_bytes_per_sequence == 131'072ULL * 8192);
    CHECK(o.value().batch == 4);
    CHECK(o.value().context_tokens == 8192);
    CHECK(o.value().engine == Engine::llamacpp);
  }
  SUBCASE("an average length reads that many tokens, in the cache's dtype") {
    // fp8 cache: 1 B per element → 65,536 B per token; 2000 tokens.
    const Report r = evaluated(R"({"model":"llama-3.1-8b","engine":"vllm","kv_dtype":"fp8","context":8192,"avg_tokens":2000})");
    auto o = speed_options_for(m, r.estimate, {});
    REQUIRE(o.ok());
    CHECK(o.value().kv_bytes_per_sequence == 65'536ULL * 2000);
    CHECK(o.value().context_tokens == 2000);
  }
}

TEST_CASE("the compute path follows the weights, the engine and the GPU's figures") {
  struct Case {
    const char* request;
    ComputePath path;
  };
  const Case cases[] = {
      // llama.cpp multiplies quantized GGUF blocks with int8 MMQ kernels.
      {R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090"})", ComputePath::int8},
      {R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q8_0","gpu":"rtx-4090"})", ComputePath::int8},
      // f16/bf16 GGUF matrices go through cuBLAS in 16 bits.
      {R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"bf16","gpu":"rtx-4090"})", ComputePath::fp16},
      // Apple GPUs have no int8 TOPS in the catalog: the 16-bit figure (also absent) is the fallback.
      {R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"apple-m2-ultra-192gb"})", ComputePath::fp16},
      // fp8 weights use the fp8 units where the catalog has them (H100), 16-bit ones where not (A100).
      {R"({"model":"llama-3.1-8b","engine":"vllm","weights":"fp8","gpu":"h100-sxm"})", ComputePath::fp8},
      {R"({"model":"llama-3.1-8b","engine":"vllm","weights":"fp8","gpu":"a100-80gb-sxm"})", ComputePath::fp16},
      {R"({"model":"llama-3.1-8b","weights":"nf4","gpu":"rtx-4090"})", ComputePath::fp16},
  };
  for (const Case& c : cases) {
    CAPTURE(c.request);
    CHECK(speed_of(evaluated(c.request)).compute == c.path);
  }
}

TEST_CASE("FP8 and FP4 formats compute natively only on a GPU whose tensor cores have them, else weight-only") {
  const auto prefill_of = [](const char* json) {
    const Report r = evaluated(json);
    const ServingSpeed& s = speed_of(r);
    REQUIRE(s.prefill.has_value());
    return *s.prefill;
  };
  // MXFP8 needs Blackwell's block-scaled tensor cores (sm_100): an H100 (sm_90) runs it at its 16-bit rate.
  CHECK(speed_of(evaluated(R"({"model":"llama-3.1-8b","engine":"vllm","weights":"mxfp8","gpu":"h100-sxm"})")).compute ==
        ComputePath::fp16);
  CHECK(speed_of(evaluated(R"({"model":"llama-3.1-8b","engine":"vllm","weights":"mxfp8","gpu":"b200"})")).compute ==
        ComputePath::fp8);
  // Weight-only, the prompt costs the same FLOPs at the same 16-bit rate as in bf16: equal prefill speed.
  const PrefillSpeed bf16 = prefill_of(R"({"model":"llama-3.1-8b","engine":"vllm","weights":"bf16","gpu":"h100-sxm"})");
  const PrefillSpeed nvfp4 = prefill_of(R"({"model":"llama-3.1-8b","engine":"vllm","weights":"nvfp4","gpu":"h100-sxm"})");
  CHECK(nvfp4.tokens_per_second.high == doctest::Approx(bf16.tokens_per_second.high));
  CHECK(nvfp4.explanation.text.find("nvfp4 computes natively from sm_100; NVIDIA H100 SXM (sm_90) runs it weight-only") !=
        std::string::npos);
  // On a B200 NVFP4 (activations quantized too: W4A4) multiplies FP4 × FP4 at the datasheet's rate: HGX B200 "FP4
  // Tensor Core 18 PFLOPS" per GPU with sparsity, 9000 dense.
  const Report b200 = evaluated(R"({"model":"llama-3.1-8b","engine":"vllm","weights":"nvfp4","gpu":"b200"})");
  CHECK(speed_of(b200).compute == ComputePath::fp4);
  CHECK(speed_of(b200).prefill->explanation.text.find("of 9000 FP4 TFLOPS") != std::string::npos);
  // MXFP4 checkpoints (gpt-oss) keep 16-bit activations: vLLM's MXFP4 MoE kernels take bf16 or MXFP8 activations,
  // never FP4, so the 16-bit rate stands, said to be a lower bound.
  const Report oss = evaluated(R"({"model":"gpt-oss-20b","engine":"vllm","gpu":"b200"})");
  CHECK(speed_of(oss).compute == ComputePath::fp16);
  CHECK(speed_of(oss).prefill->explanation.text.find("16-bit or MXFP8 activations") != std::string::npos);
  // FP8 from Ada (sm_89): an A100 (sm_80) runs FP8 weight-only; bf16 weights need no word.
  CHECK(prefill_of(R"({"model":"llama-3.1-8b","engine":"vllm","weights":"fp8","gpu":"a100-80gb-sxm"})")
            .explanation.text.find("fp8 computes natively from sm_89") != std::string::npos);
  CHECK(bf16.explanation.text.find("natively") == std::string::npos);
}

TEST_CASE("llama.cpp -ngl below the layer count reads the rest from system RAM") {
  const char* partial = R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090","gpu_layers":16})";
  const Report partial_report = evaluated(partial);
  const ServingSpeed& s = speed_of(partial_report);
  CHECK(s.decode.cpu_seconds.low > 0);
  const Report all_report = evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090"})");
  const ServingSpeed& all = speed_of(all_report);
  CHECK(all.decode.cpu_seconds.high == 0);
  CHECK(s.decode.tokens_per_second.high < all.decode.tokens_per_second.low);
  // Doubling the system bandwidth halves the CPU part: 60 GB/s by default, 120 here.
  const Report faster = evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090",
      "gpu_layers":16,"system_bandwidth":120})");
  CHECK(speed_of(faster).decode.cpu_seconds.low == doctest::Approx(s.decode.cpu_seconds.low / 2));
}

TEST_CASE("Apple GPUs: prefill at the FP32 shader rate, the M5 refused for want of a figure, and say why") {
  // M2 Ultra, 76-core GPU: 76 · 128 · 2 · 1.398 GHz = 27.2 TFLOPS (data/gpus.json), the 16-bit path (no INT8
  // figure), named FP16 in the explanation as the catalog has no BF16 one.
  const Report r = evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"apple-m2-ultra-192gb"})");
  const ServingSpeed& s = speed_of(r);
  CHECK(s.decode.tokens_per_second.low > 0);
  REQUIRE(s.prefill.has_value());
  CHECK(s.prefill->explanation.text.find("of 27.2 FP16 TFLOPS") != std::string::npos);
  CHECK_FALSE(r.serving->cost.usd_per_hour.has_value());  // no cloud price: none, never 0
  CHECK(report_to_json(r).find("\"usd_per_hour\":null") != std::string::npos);
  // The M5's GPU multiplies in its Neural Accelerators, for which Apple publishes no 16-bit figure.
  const Report m5 = evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"apple-m5-max-128gb"})");
  const ServingSpeed& n = speed_of(m5);
  CHECK(n.decode.tokens_per_second.low > 0);
  CHECK_FALSE(n.prefill.has_value());
  CHECK(n.prefill_unavailable.text.find("Apple M5 Max") != std::string::npos);
  CHECK(n.prefill_unavailable.text.find("no FP16 TFLOPS figure") != std::string::npos);
  CHECK(report_to_json(m5).find("\"prefill_tokens_per_second\":null") != std::string::npos);
}

TEST_CASE("llama.cpp with FlashAttention off: the request's attention reaches the speed model, and the text says so") {
  // Llama-3.1-8B's 4096-token prompt on an RTX 4090 in llama.cpp's default passes of 512: below 1024 tokens a pass its
  // CUDA kernels multiply every cached token with FlashAttention on or off, so the FLOPs agree; the explanation names
  // the count it used (test_speed.cpp pins the two counts where they differ).
  const std::string request = R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090",)"
                              R"("context":8192,"prompt_tokens":4096,"attention":")";
  const Report fa = evaluated((request + "sdpa\"}").c_str());
  const Report no_fa = evaluated((request + "eager\"}").c_str());
  REQUIRE(speed_of(fa).prefill.has_value());
  REQUIRE(speed_of(no_fa).prefill.has_value());
  CHECK(speed_of(no_fa).prefill->explanation.text.find("with FlashAttention off") != std::string::npos);
  CHECK(speed_of(fa).prefill->explanation.text.find("with FlashAttention off") == std::string::npos);
  CHECK(speed_of(no_fa).prefill->attention_flops == doctest::Approx(speed_of(fa).prefill->attention_flops));
}

TEST_CASE("an encoder has no decode speed") {
  const Report r = evaluated(R"({"model":"bert-base","gpu":"rtx-4090"})");
  CHECK_FALSE(r.serving->speed.has_value());
  CHECK(r.serving->speed_unavailable.text.find("is an encoder") != std::string::npos);
  CHECK(r.serving->cost.usd_per_hour.has_value());
  CHECK_FALSE(r.serving->cost.usd_per_million_tokens.has_value());
}

TEST_CASE("dollars per million tokens: the hour's price over the tokens made in it") {
  // RTX 4090 at $0.34 per hour (data/gpus.json). $/1M = 0.34 / (tokens/s × 3600) × 10⁶ = 94.44… / tokens/s,
  // the low end at the fast speed and the high end at the slow one.
  const Report r = evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090"})");
  const ServingCost& c = r.serving->cost;
  REQUIRE(c.usd_per_hour.has_value());
  CHECK(*c.usd_per_hour == doctest::Approx(0.34));
  REQUIRE(c.usd_per_million_tokens.has_value());
  const Range tps = speed_of(r).decode.tokens_per_second;
  CHECK(c.usd_per_million_tokens->low * tps.high == doctest::Approx(340'000.0 / 3600));
  CHECK(c.usd_per_million_tokens->high * tps.low == doctest::Approx(340'000.0 / 3600));
  CHECK_FALSE(c.energy.has_value());  // not asked for
}

TEST_CASE("the electricity of a card you own: TDP × hours × price") {
  // RTX 4090: 450 W board power → 0.45 kWh per hour; at $0.30/kWh, $0.135 per hour.
  const Report r = evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090",
      "usd_per_kwh":0.30})");
  const ServingCost& c = r.serving->cost;
  REQUIRE(c.energy.has_value());
  CHECK(c.energy->tdp_w == 450);
  CHECK(c.energy->kwh_per_hour == doctest::Approx(0.45));
  CHECK(c.energy->usd_per_hour == doctest::Approx(0.135));
  REQUIRE(c.energy->usd_per_million_tokens.has_value());
  const Range tps = speed_of(r).decode.tokens_per_second;
  CHECK(c.energy->usd_per_million_tokens->low * tps.high == doctest::Approx(135'000.0 / 3600));
  SUBCASE("free electricity costs nothing per token") {
    const Report free = evaluated(R"({"model":"llama-3.1-8b","gpu":"rtx-4090","usd_per_kwh":0})");
    REQUIRE(free.serving->cost.energy.has_value());
    CHECK(free.serving->cost.energy->usd_per_million_tokens->high == 0);
  }
  SUBCASE("a GPU without a TDP says so") {
    const Report a10g = evaluated(R"({"model":"llama-3.1-8b","gpu":"a10g","usd_per_kwh":0.3})");
    CHECK_FALSE(a10g.serving->cost.energy.has_value());
    CHECK(a10g.serving->cost.energy_unavailable.text.find("no board power") != std::string::npos);
  }
}

TEST_CASE("a scenario that does not fit still gets a speed, with a note") {
  const Report r = evaluated(R"({"model":"llama-3.1-70b","weights":"bf16","gpu":"rtx-4090"})");
  CHECK(r.gpus.front().fit == Fit::does_not_fit);
  CHECK(speed_of(r).note.text.find("does not fit on one GeForce RTX 4090") != std::string::npos);
}

TEST_CASE("the memory split for tensor parallel is check_fit's") {
  const Report r = evaluated(R"({"model":"llama-3.1-70b","weights":"bf16","gpu":"a100-80gb-sxm"})");
  const MemoryNeed need = memory_need(r.estimate);
  CHECK(need.per_gpu_bytes == r.estimate.overhead);
  CHECK(need.shardable_bytes + need.per_gpu_bytes == r.estimate.total);
  CHECK(gpus_needed(need.shardable_bytes, need.per_gpu_bytes, r.gpus.front().gpu->usable_bytes(), r.headroom) ==
        r.gpus.front().gpus_needed);
}

TEST_CASE("speed and cost inputs are checked and name their field") {
  struct Case {
    const char* json;
    const char* field;
  };
  const Case cases[] = {
      {R"({"model":"llama-3.1-8b","system_bandwidth":0})", "system_bandwidth"},
      {R"({"model":"llama-3.1-8b","system_bandwidth":"fast"})", "system_bandwidth"},
      {R"({"model":"llama-3.1-8b","prompt_tokens":0})", "prompt_tokens"},
      {R"({"model":"llama-3.1-8b","usd_per_kwh":-1})", "usd_per_kwh"},
      {R"({"model":"llama-3.1-8b","gpus":[1,2]})", "gpus"},
      {R"({"model":"llama-3.1-8b","budget_per_hour":"cheap"})", "budget_per_hour"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    auto request = request_from_json(c.json);
    Error error = request ? evaluate(test::catalog(), request.value()).error() : request.error();
    CHECK(error.field == c.field);
  }
}

TEST_CASE("the serving and ranking keys survive the JSON request") {
  auto r = request_from_json(R"({"model":"llama-3.1-8b","system_bandwidth":90,"prompt_tokens":2048,"usd_per_kwh":0.25,
      "gpus":["h100-sxm","l40s"],"budget_per_hour":12.5})");
  REQUIRE(r.ok());
  CHECK(r.value().serving.system_bandwidth_gb_s == 90.0);
  CHECK(r.value().serving.prompt_tokens == 2048u);
  CHECK(r.value().serving.usd_per_kwh == 0.25);
  CHECK(r.value().gpus == std::vector<std::string>{"h100-sxm", "l40s"});
  CHECK(r.value().budget_per_hour == 12.5);
  CHECK(request_from_json(R"({"gpus":" h100-sxm, l40s ,"})").value().gpus == std::vector<std::string>{"h100-sxm", "l40s"});
}

TEST_CASE("time to first token: the whole prompt prefilled in the engine's chunks, attention growing with its square") {
  // llama.cpp: n_ubatch 512 (common.h), so a 32768-token prompt takes 64 forward passes.
  const Report r = evaluated(
      R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090","context":32768,"prompt_tokens":32768})");
  const ServingSpeed& s = speed_of(r);
  REQUIRE(s.prefill.has_value());
  CHECK(s.prefill_chunk == 512);
  CHECK(s.prefill->chunks == 64);
  // Seconds and tokens/s are one figure: the prompt over the time, the fast end's speed at the short time.
  CHECK(s.prefill->seconds.low == doctest::Approx(32768.0 / s.prefill->tokens_per_second.high));
  // Llama-3.1-8B: 32 layers · 32 heads · 128 = 131,072 of attention width. llama.cpp's CUDA kernels below 1024 tokens
  // a pass multiply every cell in use (test_speed.cpp): Σ over the 64 passes of 512 · 512(k + 1) = 512² · 2080 keys,
  // 4 · 131072 of FLOPs each (the causal mask alone would let through 32768²/2 = 512² · 2048).
  CHECK(s.prefill->attention_flops == doctest::Approx(4.0 * 512.0 * 512.0 * 2080.0 * 131072.0));
  // The quadratic term: 64 times the prompt takes more than 64 times as long.
  const Report short_prompt = evaluated(
      R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090","context":32768,"prompt_tokens":512})");
  CHECK(s.prefill->seconds.low > 64 * speed_of(short_prompt).prefill->seconds.low);
  SUBCASE("vLLM prefills in chunks of max_num_batched_tokens, transformers in one pass") {
    const Report v = evaluated(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":32768,"prompt_tokens":32768})");
    REQUIRE(v.estimate.vllm.has_value());
    CHECK(speed_of(v).prefill_chunk == v.estimate.vllm->max_num_batched_tokens);
    const Report t = evaluated(
        R"({"model":"llama-3.1-8b","engine":"transformers","gpu":"h100-sxm","context":32768,"prompt_tokens":32768})");
    CHECK(speed_of(t).prefill_chunk == 0);
    CHECK(speed_of(t).prefill->chunks == 1);
  }
}

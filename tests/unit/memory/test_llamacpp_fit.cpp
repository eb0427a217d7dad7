// llama.cpp's --fit plan, pinned to the log in llama.cpp's tools/fit-params/README.md (build 6895, Qwen3-30B-A3B F16
// GGUF on an RTX 4090; text as in https://github.com/ggml-org/llama.cpp/blob/master/tools/fit-params/README.md):
//   projected to use 61807 MiB of device memory vs. 24077 MiB of free device memory
//   cannot fulfill margin of 1024 MiB, need to reduce device memory by 42444 MiB
//   context size reduced from 40960 to 4096 -> need 3456 MiB less memory in total
//   with only dense weights in device memory there is a total surplus of 16164 MiB
//   - CUDA0 (NVIDIA GeForce RTX 4090): 48 layers (34 overflowing),  19187 MiB used,   1199 MiB free
//   -c 4096 -ngl 48 -ot blk\.14\.ffn_(up|down|gate)_(ch|)exps=CPU, ... ,blk\.47\.ffn_(up|down|gate)_(ch|)exps=CPU
//   | - CUDA0 (RTX 4090) | 24077 = 945 + (19187 = 17904 + 384 + 898) + 3945 |
// The free memory fit measured against is what it left plus what it planned: 1199 + 19187 = 20386 MiB (and
// 61807 − 20386 + 1024 = 42445 ≈ the 42444 MiB it had to shed).
#include "../test_support.hpp"
#include "engine_reports.hpp"
#include "json/request.hpp"
#include "memory/engines/llamacpp_fit.hpp"
#include "questions/evaluate.hpp"

using namespace vramfit;

namespace {

constexpr double kMiBytes = 1048576.0;
constexpr std::uint64_t kLogFreeBytes = 20386 * kMiB;

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / kMiBytes; }

LlamaCppFitPlan plan_for(const char* model, const char* weights, std::uint64_t free_bytes) {
  InferenceOptions o;
  o.engine = Engine::llamacpp;
  o.weight_format = parse_weight_format(weights).value();
  o.weights = o.weight_format->dtype;
  auto in = llamacpp_fit_inputs(test::preset(model), o, free_bytes, false);
  REQUIRE(in.ok());
  return plan_llamacpp_fit(in.value());
}

}  // namespace

TEST_CASE("llama.cpp's fit lowers Qwen3-30B-A3B's context to 4096, then puts the experts of layers 14-47 in RAM") {
  const LlamaCppFitPlan p = plan_for("qwen3-30b-a3b", "f16", kLogFreeBytes);
  CHECK(p.step == LlamaFitStep::experts);
  CHECK(p.fits);
  // "context size reduced from 40960 to 4096 -> need 3456 MiB less memory in total" (the KV cache alone, 48 layers ×
  // 4 KV heads × 128 × 2 (K, V) × 2 B = 96 KiB per cell, × (40960 − 4096) cells) and "projected to use 61807 MiB"
  // (every weight but the token embeddings, KV at 40960, the compute buffer) are rows of tests/data/validation.json.
  CHECK(p.context_start == 40960);
  CHECK(p.context == 4096);
  // "48 layers (34 overflowing)", "-ngl 48 -ot blk\.14\. ... blk\.47\.ffn_..._exps=CPU".
  CHECK(p.total_layers == 48);
  CHECK(p.gpu_layers == 48);
  CHECK_FALSE(p.output_on_gpu);
  CHECK(p.expert_layers == 48);
  CHECK(p.cpu_expert_layers == 34);
  CHECK(p.first_cpu_expert_layer == 14);
  CHECK(p.n_cpu_moe == 34);  // the same bytes as the first 34 layers' experts: every layer is alike
  // Breakdown "(19187 = 17904 + 384 + 898)". Model: 48 × (attention 2048·(4096 + 512 + 512) + 4096·2048 = 18.87 M
  // × 2 B = 36 MiB, f32 router 128 × 2048 × 4 B = 1 MiB, norms) + 14 × experts 3 × 128 × 768 × 2048 × 2 B = 1152 MiB
  // = 1776.8 + 16128 = 17904.8 MiB. Context: 96 KiB × 4096 = 384 MiB.
  CHECK(mib(p.gpu_model_bytes) == doctest::Approx(17904).epsilon(0.001));
  CHECK(mib(p.gpu_context_bytes) == doctest::Approx(384).epsilon(0.001));
  // The compute buffer is the one figure off: the log's 898 MiB holds staging copies of the experts in RAM for
  // prompt batches (ggml's op offload), which vramfit does not model; 512 ubatch tokens × (151936 + 4096) × 4 B of
  // logits = 304.75 MiB is what it counts, so the plan leaves ~600 MiB more free than the log.
  CHECK(mib(p.gpu_compute_bytes) == doctest::Approx(304.75).epsilon(0.001));
  CHECK(mib(p.gpu_bytes) == doctest::Approx(19187).epsilon(0.04));
}

TEST_CASE("llama.cpp's fit on a 16 GB card keeps the experts of 10 layers on the GPU") {
  // By hand, the same F16 file with 15840 MiB free (16 GiB − the 512 MiB CUDA context − 32 MiB cuBLAS workspace):
  // target 15840 − 1024 = 14816 MiB. At the 4096 floor the dense part is 1776.8 + 384 + 304.75 = 2465.5 MiB, which
  // leaves 12350.5 MiB = 10.7 layers of experts at 1152 MiB: layers 0-9 keep theirs, 10-47 (38) go to RAM.
  const LlamaCppFitPlan p = plan_for("qwen3-30b-a3b", "f16", 15840 * kMiB);
  CHECK(p.step == LlamaFitStep::experts);
  CHECK(p.context == 4096);
  CHECK(p.first_cpu_expert_layer == 10);
  CHECK(p.n_cpu_moe == 38);
  CHECK(mib(p.gpu_bytes) == doctest::Approx(2465.5 + 10 * 1152).epsilon(0.001));
}

TEST_CASE("llama.cpp's fit stops at the context when the lowered context is enough") {
  // Qwen3-30B-A3B in F16 at 40960 needs ~61.8 GB: on 80 GB free it fits as is; with 60000 MiB free the target is
  // 58976 MiB, between the 4096 floor (61807 − 3456 = 58351) and 40960: 4096 + 36864 × (58976 − 58351) / 3456
  // ≈ 10762, rounded down to 256 = 10752 (by hand with the log's figures; vramfit's own land within a step).
  const LlamaCppFitPlan roomy = plan_for("qwen3-30b-a3b", "f16", 80 * 1024 * kMiB);
  CHECK(roomy.step == LlamaFitStep::none);
  CHECK(roomy.context == 40960);
  CHECK(roomy.output_on_gpu);
  const LlamaCppFitPlan p = plan_for("qwen3-30b-a3b", "f16", 60000 * kMiB);
  CHECK(p.step == LlamaFitStep::context);
  CHECK(p.context % 256 == 0);
  CHECK(p.context >= 10752 - 512);
  CHECK(p.context <= 10752 + 512);
  CHECK(p.gpu_layers == 48);
  CHECK(p.cpu_expert_layers == 0);
}

TEST_CASE("llama.cpp's fit moves whole layers of a dense model, the last ones staying on the GPU") {
  // Pure arithmetic: 10 layers of 1000 B + 100 B cache, compute 500 B, 6600 B free, margin 0:
  // 500 + 5 × 1100 = 6000 ≤ 6600 < 7100: five layers on the GPU.
  LlamaCppFitInputs in;
  in.free_bytes = 6600;
  in.margin_bytes = 0;
  in.context_start = in.context_floor = 4096;
  in.layer_bytes.assign(10, 1000);
  in.expert_bytes.assign(10, 0);
  in.cache_bytes_start.assign(10, 100);
  in.cache_bytes_floor.assign(10, 100);
  in.output_bytes = 300;
  in.compute_bytes = 500;
  const LlamaCppFitPlan p = plan_llamacpp_fit(in);
  CHECK(p.step == LlamaFitStep::layers);
  CHECK(p.gpu_layers == 5);
  CHECK(p.gpu_bytes == 6000);
  CHECK(p.host_model_bytes == 5 * 1000 + 300);
  CHECK(p.n_cpu_moe == 0);
}

TEST_CASE("llama.cpp builds: which are modelled, and where a draft joins --fit's target") {
  // PR #23485 ("server: add margin for draft model for fit") is in b9305 and not in b9297: PR #23801's table
  // (ggml-org/llama.cpp#23801) measures "b9297 (pre-regression baseline)" with no "[spec]" reservation and "b9305
  // (with PR #23485 bug)" with 509 MiB added to fit_params_target. b10488 is the build Ollama 0.32.15 bundles.
  CHECK(parse_llamacpp_build("b10488") == 10488ULL);
  CHECK(parse_llamacpp_build("B9297") == 9297ULL);
  CHECK(parse_llamacpp_build("9305") == 9305ULL);
  CHECK_FALSE(parse_llamacpp_build("0.1.2").has_value());  // a release tag, not a build
  CHECK_FALSE(parse_llamacpp_build("b").has_value());
  CHECK_FALSE(parse_llamacpp_build("").has_value());
  CHECK(llamacpp_build_modelled(9297));
  CHECK(llamacpp_build_modelled(10488));
  CHECK_FALSE(llamacpp_build_modelled(9296));
  CHECK_FALSE(llamacpp_build_modelled(10489));
  CHECK_FALSE(llamacpp_draft_in_fit(9297));
  CHECK(llamacpp_draft_in_fit(9305));
  CHECK(llamacpp_version_name(9297) == "b9297");
}

TEST_CASE("--fit's margin: its target plus the projector and, from b9305, the draft that llama-server adds to it") {
  // PR #21489's own log (ggml-org/llama.cpp#21489, Qwen2.5-Omni-3B): "[mtmd] estimated memory usage of mmproj is
  // 2447.80 MiB" and then "will leave 106812 >= 3471 MiB of free device memory": 1024 + 2447.80 = 3471.80 MiB,
  // printed whole.
  const auto projector = static_cast<std::uint64_t>(2447.80 * 1048576.0);
  CHECK(llamacpp_fit_margin({1024 * kMiB, projector, 0, 10488}) / kMiB == 3471);
  // An MTP head through the same path (tools/server/server-context.cpp load_model: "[spec] estimated memory usage of
  // MTP context is 648.06 MiB", then "will leave 1834 >= 1672 MiB of free device memory"; HilbertraumAI/HilbertRaum
  // issue #318, RTX 3090, a build after PR #23485): 1024 + 648.06 = 1672.06 MiB.
  const auto mtp = static_cast<std::uint64_t>(648.06 * 1048576.0);
  CHECK(llamacpp_fit_margin({1024 * kMiB, 0, mtp, 10488}) / kMiB == 1672);
  // b9297 plans without it: its margin is the target alone.
  CHECK(llamacpp_fit_margin({1024 * kMiB, 0, mtp, 9297}) == 1024 * kMiB);
}

TEST_CASE("llama.cpp's version is selectable: b9297 plans without the draft, b10488 keeps room for it") {
  const char* b10488 = R"({"model":"qwen2.5-7b","engine":"llamacpp","draft":"qwen2.5-0.5b","gpu":"rtx-4060-ti-8gb"})";
  const Report now = test::evaluate_json(b10488);
  REQUIRE(now.llamacpp_fit);
  REQUIRE(now.estimate.draft > 0);
  CHECK(now.llamacpp_fit->margin_bytes == 1024 * kMiB + now.estimate.draft);
  CHECK(now.llamacpp_fit->margin_holds_draft);
  CHECK_FALSE(test::has_note(now, "llamacpp.fit_without_draft"));
  // PR #23485 (b9305) is the source of the room; b10488 is assumed to keep it, and the note says so.
  CHECK(test::has_note(now, "llamacpp.fit_with_draft"));
  const Report old = test::evaluate_json(
      R"({"model":"qwen2.5-7b","engine":"llamacpp","engine_version":"b9297","draft":"qwen2.5-0.5b","gpu":"rtx-4060-ti-8gb"})");
  REQUIRE(old.llamacpp_fit);
  CHECK(old.llamacpp_fit->margin_bytes == 1024 * kMiB);
  CHECK_FALSE(old.llamacpp_fit->margin_holds_draft);
  CHECK(test::has_note(old, "llamacpp.fit_without_draft"));
  CHECK_FALSE(test::has_note(old, "llamacpp.fit_with_draft"));
  // The version is said in the answer and on the command line.
  REQUIRE(old.estimate.llamacpp);
  CHECK(old.estimate.llamacpp->build == 9297ULL);
  CHECK(old.command.find("# llama.cpp b9297") != std::string::npos);
  CHECK(now.command.find("# llama.cpp b10488") != std::string::npos);
  // A build outside b9297 to b10488, or something else, is refused on engine_version, naming the builds allowed.
  for (const char* version : {"b9000", "b10500", "0.11"}) {
    auto request = request_from_json(std::string(R"({"model":"qwen2.5-7b","engine":"llamacpp","engine_version":")") +
                                     version + "\"}");
    REQUIRE(request.ok());
    auto refused = evaluate(test::catalog(), request.value());
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "engine_version");
    CHECK(refused.error().message.id == "llamacpp.version_unmodelled");
    CHECK(refused.error().message.text.find("b9297 to b10488") != std::string::npos);
  }
}

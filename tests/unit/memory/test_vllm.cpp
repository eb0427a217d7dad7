// vLLM V1's KV pool by its mechanism, pinned to what vLLM printed. The llm-d-benchmark measurements (vLLM 0.11.0
// on an H100 80GB, gpu_memory_utilization 0.9, max_model_len 16000, server defaults):
// https://github.com/llm-d/llm-d-benchmark/blob/4f4d44943c39b76b28e30dfa1fb0dfaf1ee894b5/config_explorer/empirical-vllm-memory-results.md
// Each row there satisfies KV = 0.9 × 79.18 GiB − weights − torch peak − non-torch to 0.01 GiB.
#include <cmath>  // std::round
#include <string>  // std::string

#include "engine_reports.hpp"
#include "../validation_rows.hpp"
#include "json/request.hpp"
#include "memory/inference.hpp"

using namespace vramfit;

namespace {

using test::evaluate_json;

constexpr double kGiBytes = 1073741824.0;

const VllmCapacity& vllm_of(const Report& report) {
  REQUIRE(report.estimate.vllm.has_value());
  return *report.estimate.vllm;
}

// The KV pool and torch peak vLLM printed ("Available KV cache memory: X GiB", "Peak activation memory: Y GiB") for a
// preset on an H100 at max_model_len 16000: the validation table's rows, which quote them.
void check_llmd_row(const char* model, const char* kv_row, const char* peak_row) {
  const std::string json =
      std::string(R"({"engine":"vllm","engine_version":"0.11","gpu":"h100-sxm","context":16000,"model":")") + model + "\"}";
  const Report report = evaluate_json(json);
  const VllmCapacity& v = vllm_of(report);
  CAPTURE(model);
  CHECK(test::within_row(static_cast<double>(v.kv_capacity_bytes), kv_row));
  CHECK(test::within_row(static_cast<double>(v.profile_activation_bytes), peak_row));
}

}  // namespace

TEST_CASE("vLLM takes gpu_memory_utilization of the driver's total: an H100 80GB shows 79.18 GiB") {
  // llm-d-benchmark: "Free memory on device: 78.57/79.18 GiB on startup", "Desired GPU utilization: 0.9 (71.26 GiB)".
  const Report report = evaluate_json(
      R"({"model":"llama-3.1-8b","engine":"vllm","engine_version":"0.11","gpu":"h100-sxm","context":16000})");
  const VllmCapacity& v = vllm_of(report);
  CHECK(static_cast<double>(v.driver_total_bytes) / kGiBytes == doctest::Approx(79.18).epsilon(0.0001));
  CHECK(static_cast<double>(v.budget_bytes) / kGiBytes == doctest::Approx(71.26).epsilon(0.0002));
  // vllm serve on a GPU of ≥ 70 GiB that is not an A100: 1024 sequences, 8192 batched tokens.
  CHECK(v.max_num_seqs == 1024);
  CHECK(v.max_num_batched_tokens == 8192);
}


TEST_CASE("vLLM on an RTX 5090 takes gpu_memory_utilization of the 31.36 GiB CUDA reports, not of the 32 GB sold") {
  // vLLM 0.28.0 on an RTX 5090 (nvidia-smi "32607 MiB", driver 595.84): "Free memory on device (30.86/31.36 GiB) on
  // startup. Desired GPU memory utilization is (0.9, 28.22 GiB)"; deviceQuery on driver 570.133.04: "Total amount of
  // global memory: 32117 MBytes (33677180928 bytes)" (aikitoria/open-gpu-kernel-modules#1). 0.9 × 31.36 = 28.224.
  // nvidia-smi's 32607 MiB (31.84 GiB) is NVML's whole framebuffer, which vLLM never sees.
  const Report report = evaluate_json(
      R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-5090","context":16000,"gpu_util":0.9})");
  const VllmCapacity& v = vllm_of(report);
  CHECK(static_cast<double>(v.driver_total_bytes) / kGiBytes == doctest::Approx(31.36).epsilon(0.0002));
  CHECK(std::round(static_cast<double>(v.budget_bytes) / kGiBytes * 100) / 100 == doctest::Approx(28.22));
}

TEST_CASE("vLLM on an A100 80GB takes gpu_memory_utilization of the 79.14 GiB CUDA reports under Linux") {
  // torch on two 'NVIDIA A100 80GB PCIe' under Linux (nvidia-smi "Driver Version: 550.127.05", "58661MiB /
  // 81920MiB"): "GPU 1 has a total capacity of 79.14 GiB of which 840.75 MiB is free". nvidia-smi prints the same
  // 81920MiB for 'NVIDIA A100-SXM4-80GB', so the SXM card's total is the same. By hand: 0.92 × 79.14 = 72.81 GiB.
  for (const char* gpu : {"a100-80gb-pcie", "a100-80gb-sxm"}) {
    CAPTURE(gpu);
    const Report report = evaluate_json(std::string(R"({"model":"llama-3.1-8b","engine":"vllm","context":16000,"gpu":")") +
                                        gpu + R"("})");
    const VllmCapacity& v = vllm_of(report);
    CHECK(static_cast<double>(v.driver_total_bytes) / kGiBytes == doctest::Approx(79.14).epsilon(0.0001));
    CHECK(std::round(static_cast<double>(v.budget_bytes) / kGiBytes * 100) / 100 == doctest::Approx(72.81));
    // vllm serve keeps an A100's defaults at 256 sequences and 2048 batched tokens, whatever its memory.
    CHECK(v.max_num_seqs == 256);
  }
}

TEST_CASE("vLLM's torch peak is the sampler's dummy run: llm-d-benchmark's rows within 5 %") {
  // The rows' figures and quotes: tests/data/validation.json.
  check_llmd_row("llama-3.1-8b", "vllm-llama-3.1-8b-h100-kv", "vllm-llama-3.1-8b-h100-peak");
  check_llmd_row("qwen3-0.6b", "vllm-qwen3-0.6b-h100-kv", "vllm-qwen3-0.6b-h100-peak");
  check_llmd_row("qwen3-32b", "vllm-qwen3-32b-h100-kv", "vllm-qwen3-32b-h100-peak");
  check_llmd_row("gpt-oss-20b", "vllm-gpt-oss-20b-h100-kv", "vllm-gpt-oss-20b-h100-peak");
}

TEST_CASE("gpt-oss-120b at gpu_memory_utilization 0.95: the pool from vLLM's own weight figure") {
  // "| gpt-oss-120b | SUCCESS | 64.38 | 7.38 | 0.13 | 1.03 | 3.33 | 1 | 16000 |", a run at 0.95:
  // 0.95 × 79.18 − 64.38 − 7.38 − 0.13 = 3.33 GiB. vLLM holds 64.38 GiB of weights on an H100, the MXFP4
  // checkpoint's 60.8 GiB padded for its MoE kernels; with that weight figure the pool agrees within 5 %.
  const Report report = evaluate_json(R"({"model":"gpt-oss-120b","engine":"vllm","engine_version":"0.11",
      "gpu":"h100-sxm","context":16000,"gpu_util":0.95})");
  const VllmCapacity& v = vllm_of(report);
  CHECK(static_cast<double>(v.profile_activation_bytes) / kGiBytes == doctest::Approx(7.38).epsilon(0.05));
  const auto pool = detail::vllm_kv_capacity(v.driver_total_bytes, 0.95, static_cast<std::uint64_t>(64.38 * kGiBytes),
                                             v.profile_activation_bytes, v.non_torch_bytes, v.kv_bytes_per_token, 16000);
  CHECK(static_cast<double>(pool.kv_capacity_bytes) / kGiBytes == doctest::Approx(3.33).epsilon(0.05));
}

TEST_CASE("the sampler's fp32 logits for gpt-oss at max_num_seqs 1024 are vllm#27508's 786 MiB") {
  // https://github.com/vllm-project/vllm/issues/27508: sampler.py "logits = logits.to(torch.float32)" →
  // "Tried to allocate 786.00 MiB": 1024 × 201,088 × 4 B = 823,656,448 B = 785.5 MiB.
  const ModelSpec& spec = test::preset("gpt-oss-120b");
  CHECK(spec.vocab_size == 201'088);
  CHECK(1024 * spec.vocab_size * kVllmSamplerFp32Bytes == 823'656'448ULL);
  // The whole dummy run holds 36 B + the bf16 logits per logit, plus the forward's [8192, 2880] bf16 output.
  const Report report = evaluate_json(R"({"model":"gpt-oss-120b","engine":"vllm","gpu":"h100-sxm","context":16000})");
  CHECK(vllm_of(report).sampler_bytes == 1024ULL * 201'088 * 38 + 8192ULL * 2880 * 2);
}

TEST_CASE("a GPU without a driver-reported total keeps its nominal memory, and the estimate says so") {
  // The catalog has no driver figure for the A30: its 24 GiB nominal is the total vLLM's fraction is taken of.
  const Report report = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"a30","context":8192})");
  CHECK(vllm_of(report).driver_total_bytes == 24ULL * 1073741824);
  bool said = false;
  for (const auto& note : report.estimate.notes) said = said || note.text.find("no driver-reported total") != std::string::npos;
  CHECK(said);
  // Below 70 GiB: vllm serve's small defaults, 256 sequences and 2048 batched tokens.
  CHECK(vllm_of(report).max_num_seqs == 256);
  CHECK(vllm_of(report).max_num_batched_tokens == 2048);
}

TEST_CASE("tensor parallel: weights and KV heads divided per GPU, the sampler peak not (llm-d, vLLM 0.11, H100)") {
  // "| Qwen3-32B | SUCCESS | 30.59 | 5.64 | 0.54 | -0.33 | … | 2 | 16000 |": TP2, per rank 30.59 GiB of weights, the
  // same 5.64 GiB torch peak as TP1, 0.54 GiB non-torch; its KV on each GPU is the validation table's row.
  const Report qwen = evaluate_json(
      R"({"model":"qwen3-32b","engine":"vllm","engine_version":"0.11","gpu":"h100-sxm","context":16000,"tp":2})");
  const VllmCapacity& q = vllm_of(qwen);
  CHECK(static_cast<double>(q.weights_bytes) / kGiBytes == doctest::Approx(30.59).epsilon(0.05));
  CHECK(static_cast<double>(q.profile_activation_bytes) / kGiBytes == doctest::Approx(5.64).epsilon(0.05));
  CHECK(test::within_row(static_cast<double>(q.kv_capacity_bytes), "vllm-qwen3-32b-h100-tp2-kv"));
  // Qwen3-32B: 64 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 262,144 B per token; 4 heads on each of 2 GPUs.
  CHECK(q.kv_bytes_per_token == 131'072);
  // Llama-3.3-70B-Instruct-FP8-dynamic at TP2: "Model loading took: 33.88 GiB", "Peak activation memory: 4.84 GiB",
  // "Non-torch memory: 0.55 GiB"; its KV pool is the validation table's row.
  const Report llama = evaluate_json(
      R"({"model":"llama-3.3-70b","weights":"fp8","engine":"vllm","engine_version":"0.11","gpu":"h100-sxm",
          "context":16000,"tp":2})");
  CHECK(test::within_row(static_cast<double>(vllm_of(llama).kv_capacity_bytes), "vllm-llama-3.3-70b-fp8-h100-tp2-kv"));
  CHECK(qwen.estimate.per_gpu.gpus == 2);
  CHECK(qwen.estimate.per_gpu.activations == qwen.estimate.activations);

  // https://github.com/vllm-project/vllm/issues/21348: Qwen3-235B-A22B-FP8 on 4 × H100, util 0.9, max_model_len
  // 40960: "Available KV cache memory: 8.11 GiB", "GPU KV cache size: 178,880 tokens". 94 layers × 1 KV head
  // (4 / TP4) × 128 × 2 × 2 B = 48,128 B per token on each GPU.
  const Report big = evaluate_json(
      R"({"model":"qwen3-235b-a22b","weights":"fp8","engine":"vllm","engine_version":"0.11","gpu":"h100-sxm",
          "context":40960,"tp":4})");
  const VllmCapacity& b = vllm_of(big);
  CHECK(b.kv_bytes_per_token == 48'128);
  // The printed pool in tokens: 8.11 GiB / 48,128 B = 180,940 ≈ 178,880 (−1.1 %, the GiB figure's rounding).
  const auto printed = detail::vllm_kv_capacity(static_cast<std::uint64_t>(8.11 * kGiBytes), 1.0, 0, 0, 0,
                                                b.kv_bytes_per_token, 40960);
  CHECK(static_cast<double>(printed.kv_capacity_tokens) == doctest::Approx(178'880).epsilon(0.02));
  // The pool itself comes out near 10.1 GiB: that log's vLLM (0.9/0.10, with LMCache) predates 0.11's snapshot
  // after NCCL init (#25359), so its non-torch figure held NCCL's buffers, which 0.11 no longer counts.
  CHECK(b.kv_capacity_bytes > printed.kv_capacity_bytes);
  CHECK(big.gpus.front().fit == Fit::fits);
  CHECK(big.gpus.front().gpus_needed == 4);
}

TEST_CASE("tensor parallel must divide the attention heads; KV heads are replicated beyond their count") {
  // Llama-3.1-8B: 32 query heads, 8 KV heads. TP 3 divides neither: refused, naming the field.
  auto request = request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","tp":3})");
  REQUIRE(request.ok());
  auto refused = evaluate(test::catalog(), request.value());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "tp");
  // TP 16 > 8 KV heads: each GPU keeps one whole KV head, 32 layers × 1 × 128 × 2 × 2 B = 16,384 B per token.
  auto wide = request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","tp":16,"context":8192})");
  REQUIRE(wide.ok());
  auto report = evaluate(test::catalog(), wide.value());
  REQUIRE_MESSAGE(report.ok(), report.error().message);
  CHECK(report.value().estimate.vllm->kv_bytes_per_token == 16'384);
  // Another engine has no multi-GPU serving model here.
  auto other = request_from_json(R"({"model":"llama-3.1-8b","engine":"llamacpp","tp":2})");
  REQUIRE(other.ok());
  auto no = evaluate(test::catalog(), other.value());
  REQUIRE_FALSE(no.ok());
  CHECK(no.error().field == "tp");
}

TEST_CASE("from vLLM 0.21 the CUDA graphs come out of the pool, and gpu_memory_utilization defaults to 0.92") {
  // vLLM PR #38284 (v0.21.0): "CUDA graph memory profiling is enabled (default since v0.21.0). The current
  // --gpu-memory-utilization=0.9500 is equivalent to --gpu-memory-utilization=0.9334 without CUDA graph memory
  // profiling", i.e. the estimate is subtracted from util × total. On an H100 (79.18 GiB = 85,018,877,624 B):
  // floor(0.92 × total) − floor(0.9 × total) = 78,217,367,414 − 76,516,989,861 = 1,700,377,553 B more budget, less
  // the 480 MiB (503,316,480 B) of graphs now inside it: 1,197,061,073 B more KV room than under 0.11's rule.
  const VllmCapacity old_rule = vllm_of(evaluate_json(
      R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":16000,"engine_version":"0.11"})"));
  const VllmCapacity new_rule = vllm_of(evaluate_json(
      R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":16000,"engine_version":"v0.21.1"})"));
  CHECK(new_rule.gpu_util == 0.92);
  CHECK(new_rule.budget_bytes == 78'217'367'414ULL);
  CHECK(new_rule.cuda_graphs_in_budget);
  CHECK(new_rule.kv_capacity_bytes - old_rule.kv_capacity_bytes == 1'197'061'073ULL);
  // --enforce-eager captures no graphs: nothing to subtract, and 480 MiB less outside the pool under 0.11's rule.
  const Report eager = evaluate_json(
      R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":16000,"engine_version":"0.21","enforce_eager":true})");
  CHECK(vllm_of(eager).kv_capacity_bytes - new_rule.kv_capacity_bytes == 503'316'480ULL);
  CHECK(vllm_of(eager).cuda_graph_bytes == 0);
  // 0.20 and its release candidates still keep the graphs outside and 0.9; 0.24 is the last of this rule.
  CHECK(parse_vllm_version("0.20.2rc1") == VllmRule::graphs_outside);
  CHECK(parse_vllm_version("0.9.2") == VllmRule::graphs_outside);
  CHECK(parse_vllm_version("0.24.1") == VllmRule::graphs_inside);
  CHECK(vllm_default_gpu_util(VllmRule::graphs_inside) == 0.92);
  CHECK(vllm_default_gpu_util(VllmRule::graphs_outside) == 0.9);
}

TEST_CASE("vLLM 0.25 to 0.27 run dense models on Model Runner V2, which sets nothing aside for their CUDA graphs") {
  // vLLM at v0.27 (main of 2026-08-09, d6941300f): VllmConfig.use_v2_model_runner picks Model Runner V2 for a
  // generating model that is not hybrid, not attention-free and not a mixture of experts (unless its architecture is
  // in DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES), the default since PR #44443 (v0.25.0 release notes: "Model Runner V2
  // is now the default for all dense models"). Its profile_cudagraph_memory (vllm/v1/worker/gpu/model_runner.py) is
  // "return 0", so Worker.determine_available_memory subtracts nothing for the graphs and capture_model adds them after
  // the pool, beyond gpu_memory_utilization (vllm#49224); CacheConfig.gpu_memory_utilization stays 0.92. Llama-3.1-8B
  // on an H100: the same floor(0.92 × 85,018,877,624) = 78,217,367,414 B budget as 0.21, and 480 MiB (503,316,480 B)
  // more KV room, the graph estimate 0.21 subtracts.
  const VllmCapacity v21 = vllm_of(evaluate_json(
      R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":16000,"engine_version":"0.21"})"));
  const Report report = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":16000})");
  const VllmCapacity& v = vllm_of(report);
  CHECK(v.rule == VllmRule::hybrid_prefix_caching);
  CHECK(vllm_rule_version(v.rule) == "0.27");
  CHECK(v.engine_version == "0.27");
  CHECK(v.model_runner_v2);
  CHECK_FALSE(v.cuda_graphs_in_budget);
  CHECK(v.gpu_util == 0.92);
  CHECK(v.budget_bytes == 78'217'367'414ULL);
  CHECK(v.kv_capacity_bytes - v21.kv_capacity_bytes == 503'316'480ULL);
  // --enforce-eager changes nothing in the pool: there was nothing to subtract.
  const Report eager = evaluate_json(
      R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":16000,"enforce_eager":true})");
  CHECK(vllm_of(eager).kv_capacity_bytes == v.kv_capacity_bytes);
  bool said = false, said_eager = false;
  for (const auto& note : report.estimate.notes) said = said || note.id == "vllm.graphs_outside_v2";
  for (const auto& note : eager.estimate.notes) said_eager = said_eager || note.id == "vllm.graphs_outside_v2";
  CHECK(said);
  CHECK_FALSE(said_eager);
  // A mixture of experts (Qwen3MoeForCausalLM, GptOssForCausalLM) and a hybrid (Qwen3.5's Gated DeltaNet layers) keep
  // the V1 runner, whose estimate comes out of the pool as from 0.21.
  for (const char* model : {"qwen3-30b-a3b", "gpt-oss-20b", "qwen3.5-27b"}) {
    CAPTURE(model);
    const VllmCapacity m = vllm_of(evaluate_json(std::string(R"({"engine":"vllm","gpu":"h100-sxm","context":16000,)") +
                                                 R"("model":")" + model + "\"}"));
    CHECK_FALSE(m.model_runner_v2);
    CHECK(m.cuda_graphs_in_budget);
  }
  CHECK(parse_vllm_version("0.25.0") == VllmRule::runner_v2);
  CHECK(parse_vllm_version("0.26.1") == VllmRule::runner_v2);
  CHECK(parse_vllm_version("v0.27.1") == VllmRule::hybrid_prefix_caching);
  // 0.25 runs dense models on V2 as 0.27 does: the same pool for Llama-3.1-8B.
  CHECK(vllm_of(evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":16000,
      "engine_version":"0.25"})")).kv_capacity_bytes == v.kv_capacity_bytes);
}

TEST_CASE("from vLLM 0.27 a hybrid model caches prefixes by default: two state pages per group") {
  // PR #50991 (main 2026-08-04, after 0.26.0, which vllm#50159 ran on 2026-08-01, and before the 0.27 branch): EngineArgs._set_default_chunked_prefill_and_prefix_caching_
  // args drops "and not model_config.is_hybrid", and CacheConfig's mamba_cache_mode defaults to "align" with prefix
  // caching, as in the 0.24 log pinned above (two state pages per group). Qwen3.5-27B at 32,768 tokens: 42 blocks of
  // the full group + 2 pages in each of 3 state groups = 48 per request, where 0.19 held 45.
  const Report report = evaluate_json(R"({"model":"qwen3.5-27b","engine":"vllm","gpu":"h200-sxm","context":32768,
      "max_num_batched_tokens":16384})");
  const VllmCapacity& v = vllm_of(report);
  CHECK(v.blocks_per_request == 48);
  // 0.25 and 0.26 held one page per state group, as 0.19: 45.
  CHECK(vllm_of(evaluate_json(R"({"model":"qwen3.5-27b","engine":"vllm","gpu":"h200-sxm","context":32768,
      "max_num_batched_tokens":16384,"engine_version":"0.26"})")).blocks_per_request == 45);
  bool said = false;
  for (const auto& note : report.estimate.notes) said = said || note.id == "vllm.state_pages_cached";
  CHECK(said);
}

TEST_CASE("vLLM 0.28 and later are refused as newer than the newest version modelled") {
  // 0.28 raised max_num_batched_tokens to 16,384 on GPUs of ≥ 160 GiB (PR #51726) and 0.29 gave Model Runner V2 a
  // CUDA graph estimate (PR #53306): rules of releases whose source was not read.
  for (const char* version : {"0.28.0", "v0.29.0", "0.30", "1.0"}) {
    CAPTURE(version);
    CHECK_FALSE(parse_vllm_version(version).has_value());
    CHECK(vllm_version_after_modelled(version));
  }
  auto request = request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","engine_version":"0.29.0"})");
  REQUIRE(request.ok());
  const auto report = evaluate(test::catalog(), request.value());
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().field == "engine_version");
  CHECK(report.error().message.text.find("0.27") != std::string::npos);
}

TEST_CASE("a vLLM version before 0.9.2, or one that cannot be read, is refused naming the field") {
  for (const char* version : {"0.8.5", "0.9.1", "latest", "", "0..1"}) {
    CAPTURE(version);
    CHECK_FALSE(parse_vllm_version(version).has_value());
    CHECK_FALSE(vllm_version_after_modelled(version));
  }
  auto request = request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","engine_version":"0.8.5"})");
  REQUIRE(request.ok());
  const auto report = evaluate(test::catalog(), request.value());
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().field == "engine_version");
  CHECK(report.error().message.text.find("0.9.2 to 0.27") != std::string::npos);
  // The version is vLLM's: another engine refuses it rather than ignoring it.
  auto other = request_from_json(R"({"model":"llama-3.1-8b","engine_version":"0.21"})");
  REQUIRE(other.ok());
  CHECK(evaluate(test::catalog(), other.value()).error().field == "engine_version");
}

TEST_CASE("the version choices a page offers each read as a memory rule other than the engine's default") {
  // Where the rules change (ENGINES.md): vLLM 0.21 moves the CUDA graphs inside gpu_memory_utilization, 0.25 runs
  // dense models on Model Runner V2, which leaves them out again, and 0.27 caches hybrid models' prefixes; SGLang up to
  // 0.5.2 sizes mem_fraction_static by TP (PR #10975 made it by GPU memory from 0.5.3), and up to 0.5.9 the reserve
  // leaves out the prefill CUDA graphs (on by default from 0.5.10, release notes: #16331); Ollama from 0.30 runs
  // llama-server (llm/llama_server.go first appears in v0.30.0), keeps a vision projector on the GPU where it and
  // 1 GiB fit from 0.30.11 (above 10 GiB before) and has --fit leave room for it from 0.31.2 (the default, 0.32.15);
  // up to 0.11.10 its estimator placed the layers, and up to 0.6.6 its num_ctx was 2048; mlx-lm up to 0.26.4 computes
  // logits for the prompt's whole last chunk (PR #406 in 0.27.0 keeps the last token's only); llama.cpp before b9305
  // plans --fit without room for a draft model (PR #23485).
  int seen = 0;
  for (const EngineVersionChoice& c : engine_version_choices()) {
    CAPTURE(c.version);
    ++seen;
    if (c.engine == Engine::vllm) CHECK(parse_vllm_version(c.version) != VllmRule::hybrid_prefix_caching);
    if (c.engine == Engine::sglang)
      CHECK((parse_sglang_version(c.version) == SglangRule::by_tp ||
             parse_sglang_version(c.version) == SglangRule::by_gpu_memory));
    if (c.engine == Engine::ollama) CHECK(parse_ollama_version(c.version) != OllamaRule::llama_server_fit_target);
    if (c.engine == Engine::mlx) CHECK(parse_mlx_version(c.version) == MlxRule::chunk_logits);
    if (c.engine == Engine::llamacpp) CHECK_FALSE(llamacpp_draft_in_fit(parse_llamacpp_build(c.version).value_or(0)));
  }
  CHECK(seen == 11);
  CHECK(parse_vllm_version("0.25") == VllmRule::runner_v2);
  CHECK(parse_vllm_version("0.21") == VllmRule::graphs_inside);
  CHECK(parse_ollama_version("0.31.1") == OllamaRule::llama_server_projector_room);
  CHECK(parse_ollama_version("0.30.10") == OllamaRule::llama_server);
  CHECK(parse_ollama_version("0.6.6") == OllamaRule::num_ctx_2048);
  // The defaults the pages list first are the other rules: vLLM from 0.25, SGLang from 0.5.10, Ollama from 0.31.2.
  CHECK(parse_vllm_version("0.11") == VllmRule::graphs_outside);
  CHECK(parse_vllm_version(kVllmVersionModelled) == VllmRule::hybrid_prefix_caching);
  CHECK(parse_sglang_version("0.5.10") == SglangRule::with_prefill_graphs);
  CHECK(parse_ollama_version(kOllamaVersionModelled) == OllamaRule::llama_server_fit_target);
  CHECK(parse_mlx_version("0.31.3") == MlxRule::last_token_logits);
}

TEST_CASE("an encoder under vLLM holds no KV pool, so nothing refuses it for want of one") {
  // BERT's layers are vLLM's EncoderOnlyAttention, whose get_kv_cache_spec returns None ("Encoder attention is a
  // special case that doesn't need a KV Cache", vllm/model_executor/layers/attention/encoder_only_attention.py).
  // With no spec, EngineCore._initialize_kv_caches skips the profile ("Attention free models don't need memory for
  // kv cache", vllm/v1/engine/core.py) and check_enough_kv_cache_memory returns at once (v1/core/kv_cache_utils.py).
  const Report report = evaluate_json(R"({"model":"bert-base","engine":"vllm","gpu":"rtx-4090"})");
  const VllmCapacity& v = vllm_of(report);
  CHECK(v.driver_total_bytes == 0);
  CHECK(v.kv_capacity_tokens == 0);
  CHECK(report.estimate.kv_cache == 0);
  // What it takes is what BERT base needs: 109.5 M parameters × 2 B of bf16 weights ≈ 0.22 GB, plus one batch's
  // activations and vLLM's overhead, well inside a 24 GB card; the headline says it fits, not that vLLM refuses.
  CHECK(report.estimate.weights > 210'000'000);
  CHECK(report.estimate.weights < 230'000'000);
  CHECK(report.verdict.kind == VerdictKind::fits);
  bool said = false;
  for (const auto& note : report.estimate.notes) {
    CHECK(note.id != "vllm.kv_short");
    CHECK(note.id != "vllm.choose_gpu");
    said = said || note.id == "vllm.no_kv_cache";
  }
  CHECK(said);
}

namespace {

const VllmLayerKind kQwen35Full{VllmSpecKind::full, 16, 4096, 0, 0};
const VllmLayerKind kQwen35State{VllmSpecKind::state, 48, 0, 3'207'168, 0};

bool refuses(const Report& report) {
  for (const auto& note : report.estimate.notes)
    if (note.id == "vllm.kv_short") return true;
  return false;
}

}  // namespace

TEST_CASE("a hybrid model's groups: Qwen3.5-27B holds 784-token blocks in 4 groups, as vLLM 0.19 printed (vllm#40691)") {
  // https://github.com/vllm-project/vllm/issues/40691, vLLM 0.19.0, `vllm serve Qwen3.5-27B --max-model-len 32768
  // --max-num-seqs 16 --max-num-batched-token 16384`: "GPU KV cache size: 290,864 tokens", "Maximum concurrency for
  // 32,768 tokens per request: 33.04x". By hand from its config.json: 16 full-attention layers, 4 KV heads × 256 ×
  // 2 (K, V) × 2 B = 4,096 B per token; 48 Gated DeltaNet layers, conv 3 × (2 × 16 × 128 + 48 × 128) × 2 B (bf16) +
  // recurrent 48 × 128 × 128 × 4 B (mamba_ssm_dtype float32) = 3,207,168 B. Attention block 16 × cdiv(3,207,168,
  // 16 × 4,096) = 784 tokens, page 784 × 4,096 = 3,211,264 B. Groups of min(16, 48) = 16 layers: 1 full + 3 state.
  const VllmLayerKind kinds[] = {kQwen35Full, kQwen35State};
  const VllmKvGroups g = vllm_kv_groups(kinds, 32768, 16384, 16);
  CHECK(g.attention_block_tokens == 784);
  CHECK(g.page_bytes == 3'211'264);
  CHECK(g.group_size == 16);
  CHECK(g.groups == 4);
  // A request: cdiv(32,768, 784) = 42 blocks of the full group + one state page in each of 3 groups = 45.
  CHECK(g.blocks_per_request == 45);
  // Both lines hold for 1,487 blocks only: 1,487 // 4 groups × 784 = 290,864 tokens, 1,487 / 45 = 33.04
  // (1,486 / 45 = 33.02). That is a pool of 1,487 × 16 × 3,211,264 B.
  const std::uint64_t pool = 1487ULL * 16 * 3'211'264;
  const auto old_print = detail::vllm_kv_capacity(pool, 1.0, 0, 0, 0, g, 32768, VllmRule::graphs_outside);
  CHECK(old_print.num_blocks == 1487);
  CHECK(old_print.kv_capacity_tokens == 290'864);
  CHECK(old_print.concurrency_ratio == doctest::Approx(33.04).epsilon(0.0002));
  CHECK(old_print.max_concurrency == 33);
  // From 0.21 (PR #41069, vllm#40694's "After") the same pool prints int(33.044 × 32,768) = 1,082,800 tokens.
  const auto new_print = detail::vllm_kv_capacity(pool, 1.0, 0, 0, 0, g, 32768, VllmRule::graphs_inside);
  CHECK(new_print.kv_capacity_tokens == 1'082'800);
  CHECK(new_print.max_concurrency == 33);
}

TEST_CASE("Qwen3.5-27B's layer kinds as vLLM 0.19 sizes them from the preset: 4,096 B per token, 3,207,168 B of state") {
  const Report report = evaluate_json(R"({"model":"qwen3.5-27b","engine":"vllm","engine_version":"0.19",
      "gpu":"h200-sxm","context":32768,"max_num_batched_tokens":16384})");
  const VllmCapacity& v = vllm_of(report);
  CHECK(v.block_tokens == 784);
  CHECK(v.kv_cache_groups == 4);
  CHECK(v.blocks_per_request == 45);
  CHECK(v.block_bytes == 16 * 3'211'264ULL);
  CHECK(v.kv_capacity_tokens == v.num_blocks / 4 * 784);
}

TEST_CASE("vLLM 0.24 prints int(concurrency × max_model_len): Qwen3.6-35B-A3B's 567,978 tokens to the token") {
  // github.com/noonghunna/club-3090 issue 612, vLLM 0.24, fp8 KV, max_model_len 131,072, prefix caching on
  // (mamba_cache_mode align: two state pages per group): "Available KV cache memory: 5.98 GiB", "GPU KV cache size:
  // 567,978 tokens", "Maximum concurrency for 131,072 tokens per request: 4.33x". By hand: 10 attention layers × 2 KV
  // heads × 256 × 2 × 1 B = 1,024 B per token and layer; 30 Gated DeltaNet layers of 3 × (2 × 16 × 128 + 32 × 128)
  // × 2 B + 32 × 128 × 128 × 4 B = 2,146,304 B. Block 16 × cdiv(2,146,304, 16,384) = 2,096 tokens, page 2,146,304 B,
  // groups of 10: one row is 21,463,040 B; floor(5.98 GiB / that) = 299 blocks. A request: cdiv(131,072, 2,096) = 63
  // + 3 groups × 2 pages = 69; 299 / 69 = 4.333, × 131,072 = 567,978.
  const VllmLayerKind kinds[] = {{VllmSpecKind::full, 10, 1024, 0, 0}, {VllmSpecKind::state, 30, 0, 2'146'304, 0}};
  const VllmKvGroups g = vllm_kv_groups(kinds, 131072, 2048, 16, 2);
  CHECK(g.attention_block_tokens == 2096);
  CHECK(g.row_bytes == 21'463'040);
  CHECK(g.blocks_per_request == 69);
  const auto c = detail::vllm_kv_capacity(static_cast<std::uint64_t>(5.98 * kGiBytes), 1.0, 0, 0, 0, g, 131072,
                                          VllmRule::graphs_inside);
  CHECK(c.num_blocks == 299);
  CHECK(c.kv_capacity_tokens == 567'978);
  CHECK(c.concurrency_ratio == doctest::Approx(4.33).epsilon(0.001));
  CHECK(c.max_concurrency == 4);
}

TEST_CASE("Gemma 4 at 131,072 tokens: a sliding layer holds its window, so vLLM starts where full length would not") {
  // myoceane.fr/index.php/ai-vllm-a100-gemma-4 (2026-04): `vllm serve google/gemma-4-26B-A4B --max-model-len 131072
  // --gpu-memory-utilization 0.9` on an A100 80GB started: "Model loading took 48.5 GiB", "Available KV cache
  // memory: 21.5 GiB". At full length every layer would need 131,072 × (25 × 8 KV heads × 256 × 2 × 2 B + 5 × 2 × 512
  // × 2 × 2 B) = 131,072 × 225,280 B = 27.5 GiB, more than it had. vLLM's check (check_enough_kv_cache_memory,
  // SlidingWindowSpec.max_memory_usage_bytes) charges a sliding layer cdiv(min(1,024 − 1 + 2,048, L), 16) + 1 = 193
  // blocks (2,048 batched tokens: vllm serve's default on an A100). Pages: sliding 16 × 8,192 = 131,072 B, the full
  // layers' 4,096 B per token take 32-token blocks to match. Groups of 5: 5 sliding + 1 full; a request holds
  // 5 × 193 + cdiv(131,072, 32) = 965 + 4,096 = 5,061 blocks of 5 × 131,072 B = 3,316,776,960 B (3.09 GiB).
  const VllmLayerKind kinds[] = {{VllmSpecKind::sliding, 25, 8192, 0, 1024}, {VllmSpecKind::full, 5, 4096, 0, 0}};
  const VllmKvGroups g = vllm_kv_groups(kinds, 131072, 2048, 16);
  CHECK(g.groups == 6);
  CHECK(g.group_size == 5);
  CHECK(g.blocks_per_request == 5061);
  CHECK(g.row_bytes * g.blocks_per_request == 3'316'776'960ULL);
  // vLLM refuses below that pool and starts at it.
  const std::uint64_t need = 3'316'776'960ULL;
  CHECK(detail::vllm_kv_capacity(need - 1, 1.0, 0, 0, 0, g, 131072, VllmRule::graphs_outside).max_concurrency == 0);
  CHECK(detail::vllm_kv_capacity(need, 1.0, 0, 0, 0, g, 131072, VllmRule::graphs_outside).max_concurrency == 1);

  const Report report = evaluate_json(R"({"model":"gemma-4-26b-a4b","engine":"vllm","gpu":"a100-80gb-sxm",
      "context":131072})");
  const VllmCapacity& v = vllm_of(report);
  CHECK(v.request_bytes == need);
  CHECK(v.max_concurrency >= 1);
  CHECK_FALSE(refuses(report));
  CHECK(report.verdict.kind != VerdictKind::refuses);
}

TEST_CASE("a request too long for the pool is refused, naming what one request needs") {
  // Llama-3.1-8B: 32 layers × 8 KV heads × 128 × 2 × 2 B = 131,072 B per token; 131,072 tokens need 16 GiB, more
  // than a 24 GB card keeps after 15 GiB of weights.
  const Report report = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-4090","context":131072})");
  const VllmCapacity& v = vllm_of(report);
  CHECK(v.request_bytes == 131072ULL * 131072);
  CHECK(v.max_concurrency == 0);
  CHECK(refuses(report));
  CHECK(report.verdict.kind == VerdictKind::refuses);
}

namespace {

// DeepSeek-V4-Flash's attention as vLLM caches it with fp8 KV (config.json: 43 layers, compress_ratios 2 × 0,
// 21 × 4, 20 × 128; sliding_window 128, head_dim 512, index_head_dim 128): 584-B fp8_ds_mla entries, 132-B indexer
// keys, pages aligned to 576 B.
const VllmDsv4Layers kFlash{2, 21, 20, 128, 512, 128, 584, 132, 576};

}  // namespace

TEST_CASE("DeepSeek-V4-Flash under vLLM: five packed groups, and the 6.66 GiB one request of 30,000 needs (vllm#44376)") {
  // vLLM main 91a893de (2026-08-20). Pages (kv_cache_interface.py _apply_alignment_padding): the sliding-window
  // cache 64 · 584 = 37,376 → 37,440 B (sparse_swa.py, block 64); ratio-4 entries 256 / 4 · 584 → 37,440, indexer
  // keys 64 · 132 = 8,448 → 8,640; ratio-128 entries 2 · 584 = 1,168 → 1,728; compressor states (compressor.py, fp32,
  // 2 · overlap · dim wide): ratio 4 blocks of 4, 4 · 2,048 · 4 = 32,768 → 32,832 and the indexer's 4 · 512 · 4 =
  // 8,192 → 8,640; ratio 128 blocks of 8, 8 · 1,024 · 4 = 32,768 → 32,832.
  // Groups (kv_cache_utils.py group_and_unify_kv_cache_specs, _get_kv_cache_groups_uniform_groups): the compressed
  // kinds in one (21 layer tuples), the sliding caches (43), the ratio-4 states (21), the ratio-128 states (20);
  // _approximate_gcd from 21: d = 22 pads 1 + 1 + 1 + 2 = 5 (d = 21: 21), so the 43 sliding caches split into
  // cdiv(43, 22) = 2 groups: 5 groups. A block id takes the largest group's row (_get_packed_kv_cache_layout):
  // 21 · 37,440 + 21 · 8,640 + 20 · 1,728 = 1,002,240 B.
  // A request (get_max_concurrency_for_kv_cache_config): cdiv(L, 256) in the compressed group and, with F tokens in
  // flight, cdiv(min(127 + F, L), 64) + 1 in each sliding group, cdiv(min(7 + F, L), 4) + 1 in the ratio-4 states,
  // cdiv(min(127 + F, L), 8) + 1 in the ratio-128 states. vLLM's check (_max_memory_usage_bytes_from_groups)
  // charges each of those blocks 22 tuples · (37,440 + 8,640 + 1,728) = 1,051,776 B.
  //
  // vllm#44376, comment of 2026-06-03: DeepSeek-V4-Flash on 2 GH200 (96 GB) with TP 2, the LLM class (16,384
  // batched tokens on a GPU of ≥ 70 GiB; that month's sliding caches held max_num_batched_tokens beyond the window),
  // block_size 256, fp8 KV, max_model_len 30,000: "6.66 GiB KV cache is needed, which is larger than the available
  // KV cache memory (5.44 GiB). Based on the available memory, the estimated maximum model length is 13528."
  // By hand: 118 + 2 · 259 + 4,099 + 2,065 = 6,800 blocks · 1,051,776 B = 7,152,076,800 B = 6.661 GiB.
  const VllmKvGroups g = vllm_dsv4_groups(kFlash, 30000, 16384, 256);
  CHECK(g.groups == 5);
  CHECK(g.group_size == 22);
  CHECK(g.row_bytes == 1'002'240);
  CHECK(g.attention_block_tokens == 256);
  CHECK(g.blocks_per_request == 6800);
  CHECK(g.request_block_bytes == 1'051'776);
  // At 13,528 tokens: 53 + 2 · 213 + 3,383 + 1,692 = 5,554 blocks (5.4404 GiB); at 13,529: 5,556 (5.4423 GiB).
  // vLLM checks against the pool less one block: a pool of 5.442 GiB ("5.44") starts at 13,528 and not at 13,529.
  const VllmKvGroups at13528 = vllm_dsv4_groups(kFlash, 13528, 16384, 256);
  const VllmKvGroups at13529 = vllm_dsv4_groups(kFlash, 13529, 16384, 256);
  CHECK(at13528.blocks_per_request == 5554);
  CHECK(at13529.blocks_per_request == 5556);
  const auto pool = static_cast<std::uint64_t>(5.442 * kGiBytes);
  const auto fits = [&](const VllmKvGroups& groups, std::uint64_t len) {
    return detail::vllm_kv_capacity(pool, 1.0, 0, 0, 0, groups, len, VllmRule::graphs_inside).max_concurrency > 0;
  };
  CHECK(fits(at13528, 13528));
  CHECK_FALSE(fits(at13529, 13529));
  const auto refused = detail::vllm_kv_capacity(pool, 1.0, 0, 0, 0, g, 30000, VllmRule::graphs_inside);
  CHECK(refused.max_concurrency == 0);
  CHECK(refused.request_bytes == 7'152'076'800ULL);
}

TEST_CASE("DeepSeek-V4-Flash under vLLM prints concurrency × max_model_len tokens, not the pool over bytes per token") {
  // update_kv_cache_capacity (kv_cache_utils.py, main 91a893de): "GPU KV cache size: int(concurrency · L) tokens".
  // `vllm serve` on a GPU of ≥ 70 GiB: 8,192 batched tokens, two batches in flight with async scheduling
  // (VllmConfig.max_in_flight_tokens): F = 16,384. At L = 32,768 a request holds 128 + 2 · 259 + 4,099 + 2,065 =
  // 6,810 blocks, most of them the sliding caches' and the compressor states' whatever L. A 50 GiB pool is
  // 53,687,091,200 // 1,002,240 = 53,567 blocks: concurrency 53,567 / 6,810 = 7.866, int(7.866 · 32,768) = 257,750
  // tokens, where the pool over its 3,915 B per token (21 · 46,080 + 20 · 1,728 B per 256 tokens) says 13,713,177.
  const VllmKvGroups g = vllm_dsv4_groups(kFlash, 32768, 16384, 256);
  CHECK(g.blocks_per_request == 6810);
  const auto c = detail::vllm_kv_capacity(50ULL * 1073741824ULL, 1.0, 0, 0, 0, g, 32768, VllmRule::graphs_inside);
  CHECK(c.num_blocks == 53'567);
  CHECK(c.concurrency_ratio == doctest::Approx(7.866).epsilon(0.0001));
  CHECK(c.max_concurrency == 7);
  CHECK(c.kv_capacity_tokens == 257'750);
  // DeepSeek-V4-Pro (61 layers: 30 × 4, 31 × 128, none window-only): tuples 31, 61, 30, 31 → d = 31, the sliding
  // caches again in 2 groups; row 30 · 37,440 + 30 · 8,640 + 31 · 1,728 = 1,435,968 B.
  const VllmKvGroups pro = vllm_dsv4_groups({0, 30, 31, 128, 512, 128, 584, 132, 576}, 32768, 16384, 256);
  CHECK(pro.groups == 5);
  CHECK(pro.group_size == 31);
  CHECK(pro.row_bytes == 1'435'968);
  CHECK(pro.blocks_per_request == 6810);
  CHECK(pro.request_block_bytes == 31 * 47'808ULL);
}

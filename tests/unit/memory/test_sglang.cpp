// SGLang's KV pool by its mechanism (ModelRunner.profile_max_num_token): rest = F1 − F0 × (1 − mem_fraction_static),
// max_total_num_tokens = int(rest · 2^30) // cell, pinned to lines SGLang printed. SGLang's "GB" is 2^30 bytes
// (memory_pool.py divides by GB = 1 << 30).
#include <string>

#include "engine_reports.hpp"
#include "../validation_rows.hpp"
#include "json/request.hpp"
#include "memory/inference.hpp"
#include "questions/evaluate.hpp"

using namespace vramfit;

namespace {

using test::evaluate_json;

constexpr double kGiBytes = 1073741824.0;

std::uint64_t gib_bytes(double gib) { return static_cast<std::uint64_t>(gib * kGiBytes); }

const SglangCapacity& sglang_of(const Report& report) {
  REQUIRE(report.estimate.sglang.has_value());
  return *report.estimate.sglang;
}

}  // namespace

TEST_CASE("SGLang's pool from its own log figures: mem_fraction_static × free before the weights − weights") {
  // https://github.com/sgl-project/sglang/pull/4760 (Meta-Llama-3.1-8B-Instruct, one H100, default 0.88):
  //   "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.48 GB, mem usage=15.11 GB."
  //   "KV Cache is allocated. #tokens: 442750, K size: 27.02 GB, V size: 27.02 GB"
  // F0 = 63.48 + 15.11 = 78.59; rest = 63.48 − 78.59 × 0.12 = 54.049 GiB; cell 32 layers × 8 heads × (128 + 128) ×
  // 2 B = 131,072 B; 54.049 × 2^30 / 131,072 = 442,771 tokens (the GB figures carry two decimals: ± 50 tokens).
  const SglangCapacity llama = detail::sglang_kv_capacity(gib_bytes(78.59), 0.88, gib_bytes(15.11), 131'072, 131'072);
  CHECK(llama.max_total_num_tokens == doctest::Approx(442'750).epsilon(0.0005));
  // github.com/didier-durand/llms-in-clouds docs/sglang.md: QwQ-32B on 4 × L4 (--tensor-parallel-size 4, default 0.85):
  //   "Load weight begin. avail mem=21.63 GB", "Load weight end. ... avail mem=6.09 GB, mem usage=15.54 GB."
  //   "KV Cache is allocated. #tokens: 46611, K size: 1.42 GB, V size: 1.42 GB"
  // 64 layers × 2 KV heads per rank (8 / 4) × 256 × 2 B = 65,536 B; (6.09 − 21.63 × 0.15) × 2^30 / 65,536 = 46,621.
  const SglangCapacity qwq = detail::sglang_kv_capacity(gib_bytes(21.63), 0.85, gib_bytes(15.54), 65'536, 131'072);
  CHECK(qwq.max_total_num_tokens == doctest::Approx(46'611).epsilon(0.002));
  // The same log: "max_total_num_tokens=46611, ..., context_len=131072"; one 131,072-token sequence does not fit.
  CHECK(qwq.max_concurrency == 0);
  // --max-total-tokens only lowers the count (init_memory keeps the profiled value when it is larger).
  CHECK(detail::sglang_kv_capacity(gib_bytes(21.63), 0.85, gib_bytes(15.54), 65'536, 4096, 20'000).max_total_num_tokens ==
        20'000);
  CHECK(detail::sglang_kv_capacity(gib_bytes(21.63), 0.85, gib_bytes(15.54), 65'536, 4096, 90'000).max_total_num_tokens ==
        qwq.max_total_num_tokens);
}

TEST_CASE("SGLang's default mem_fraction_static: by tensor parallel up to 0.5.2, by GPU memory from 0.5.3") {
  // server_args.py up to 0.5.2: 0.88 on one GPU, 0.87 at TP2, 0.85 at TP4, 0.81 at TP8; the QwQ log above runs
  // "mem_fraction_static=0.85, ... tp_size=4".
  CHECK(sglang_defaults(SglangRule::by_tp, 23'000, 1, 1, false).mem_fraction_static == 0.88);
  CHECK(sglang_defaults(SglangRule::by_tp, 23'000, 4, 1, false).mem_fraction_static == 0.85);
  CHECK(sglang_defaults(SglangRule::by_tp, 81'000, 8, 1, false).mem_fraction_static == 0.81);
  // From PR #10975 on an 80 GB GPU: reserved = 512 + 8192 × 1.5 + 256 × 2 + 1/8 × 1024 = 13,440 MiB. SGLang's docs
  // run on an H100 prints "mem_fraction_static=0.835, ... chunked_prefill_size=8192, ... tp_size=1" (nvidia-smi's
  // 81,559 MiB: (81,559 − 13,440) / 81,559 = 0.8352); vramfit has the driver's 79.18 GiB = 81,080 MiB, 0.834.
  const SglangDefaults h100 = sglang_defaults(SglangRule::by_gpu_memory, 81'080, 1, 1, false);
  CHECK(h100.reserved_mib == 13'440);
  CHECK(h100.chunked_prefill_size == 8192);
  CHECK(h100.mem_fraction_static == doctest::Approx(0.835).epsilon(0.0015));
  // A 24 GB card at TP1: 512 + 2048 × 1.5 + 24 × 2 + 128 = 3,760 MiB (ENGINES.md §2.2's table).
  CHECK(sglang_defaults(SglangRule::by_gpu_memory, 24'000, 1, 1, false).reserved_mib == 3'760);
  CHECK(parse_sglang_version("0.5.2") == SglangRule::by_tp);
  CHECK(parse_sglang_version("v0.5.3rc0") == SglangRule::by_gpu_memory);
  CHECK(parse_sglang_version("0.4.6.post1") == SglangRule::by_tp);
  CHECK_FALSE(parse_sglang_version("latest").has_value());
}

TEST_CASE("SGLang's default mem_fraction_static from 0.5.10: the reserve also holds the prefill CUDA graphs") {
  // v0.5.10's release notes: "Piecewise CUDA Graph Enabled by Default ... #16331"; server_args.py (sgl-project/sglang
  // 001067f) reserve_for_graph_mb adds cuda_graph_max_bs × 2 for decode and, with prefill graphs on, 8 MiB per
  // captured prefill size ("Only non-torch memory is counted"), or 1.5 × 1024 for an MLA model; the sizes
  // (_generate_prefill_cuda_graph_batch_sizes) are 4..32 step 4 (8), 48..256 step 16 (14), 288..512 step 32 (8),
  // 576..1024 step 64 (8), 1280..4096 step 256, then 4608.. step 512, up to chunked_prefill_size (2048 for MLA).
  // 16 GB card (bucket < 20 GiB: chunked_prefill_size 2048, cuda_graph_max_bs 8), an RTX A4000's nvidia-smi
  // 16,376 MiB (github.com/togethercomputer/OpenChatKit/issues/62: "14595MiB / 16376MiB"), TP1: sizes up to
  // 2048 are 8 + 14 + 8 + 8 + 4 = 42; reserved = 512 + 2048 × 1.5 + 1/8 × 1024 + 8 × 2 + 42 × 8
  // = 512 + 3,072 + 128 + 16 + 336 = 4,064 MiB; (16,376 − 4,064) / 16,376 = 0.75183 → 0.752 (0.5.3 to 0.5.9:
  // 3,728 MiB, 12,648 / 16,376 = 0.77235 → 0.772).
  const SglangDefaults small = sglang_defaults(SglangRule::with_prefill_graphs, 16'376, 1, 1, false);
  CHECK(small.prefill_graph_sizes == 42);
  CHECK(small.reserved_mib == 4'064);
  CHECK(small.mem_fraction_static == 0.752);
  CHECK(sglang_defaults(SglangRule::by_gpu_memory, 16'376, 1, 1, false).mem_fraction_static == 0.772);
  // 80 GB H100, nvidia-smi 81,559 MiB (bucket < 90 GiB: chunked_prefill_size 8192, cuda_graph_max_bs 256), TP1:
  // sizes up to 8192 are 8 + 14 + 8 + 8 + 12 + 8 = 58, the list SGLang's docs run of 2026-03-08 prints as
  // "piecewise_cuda_graph_tokens=[4, 8, ..., 7680, 8192]" with piecewise_cuda_graph_max_tokens=8192
  // (docs.sglang.io, Offline Engine API); reserved = 512 + 12,288 + 128 + 512 + 58 × 8 = 13,904 MiB (above the
  // 10 GiB floor); (81,559 − 13,904) / 81,559 = 0.82952 → 0.83.
  const SglangDefaults h100 = sglang_defaults(SglangRule::with_prefill_graphs, 81'559, 1, 1, false);
  CHECK(h100.prefill_graph_sizes == 58);
  CHECK(h100.reserved_mib == 13'904);
  CHECK(h100.mem_fraction_static == 0.83);
  // An MLA model (DeepSeek-V3's latent cache) reserves a flat 1.5 GiB for its prefill graphs instead:
  // 512 + 12,288 + 128 + 512 + 1,536 = 14,976 MiB, (81,559 − 14,976) / 81,559 = 0.81638 → 0.816.
  const SglangDefaults mla = sglang_defaults(SglangRule::with_prefill_graphs, 81'559, 1, 1, false, true);
  CHECK(mla.reserved_mib == 14'976);
  CHECK(mla.mem_fraction_static == 0.816);
  // 0.5.10 is where the rule changes; 0.5.9 keeps the older one.
  CHECK(parse_sglang_version("0.5.10") == SglangRule::with_prefill_graphs);
  CHECK(parse_sglang_version("v0.5.10.post1") == SglangRule::with_prefill_graphs);
  CHECK(parse_sglang_version("0.5.9") == SglangRule::by_gpu_memory);
  CHECK(parse_sglang_version("0.6.0") == SglangRule::with_prefill_graphs);
}

TEST_CASE("SGLang without a version is taken as 0.5.10 and later, and says so") {
  // The 16,376 MiB card above at 0.752, against 0.772 with "engine_version":"0.5.9"; the answer names the version.
  const InferenceOptions defaults;
  CHECK(defaults.sglang_rule == SglangRule::with_prefill_graphs);
  CHECK(sglang_rule_version(SglangRule::with_prefill_graphs) == "0.5.10");
  CHECK(sglang_rule_version(SglangRule::by_gpu_memory) == "0.5.3");
  CHECK(sglang_rule_version(SglangRule::by_tp) == "0.5.2");
  // A version asked is the one named, whichever release's rule it runs: 0.4.1 runs 0.5.2's table by tensor parallel.
  const Report now = evaluate_json(R"({"model":"llama-3.1-8b","engine":"sglang","gpu":"h100-sxm"})");
  CHECK(sglang_of(now).engine_version == "0.5.10");
  const Report old = evaluate_json(R"({"model":"llama-3.1-8b","engine":"sglang","gpu":"h100-sxm",
      "engine_version":"v0.4.1"})");
  CHECK(sglang_of(old).rule == SglangRule::by_tp);
  CHECK(sglang_of(old).engine_version == "0.4.1");
}

TEST_CASE("SGLang on one H100 from the preset: Llama-3.1-8B within 5 % of two printed pools") {
  // SGLang's docs (OpenAI API notebook, a run of 2025-01-23, Meta-Llama-3.1-8B-Instruct, mem_fraction_static 0.88):
  //   "Load weight begin. avail mem=78.81 GB", "KV Cache is allocated. K size: 27.13 GB, V size: 27.13 GB.",
  //   "max_total_num_tokens=…, ..., context_len=131072"
  // and PR #4760's run above: both pools are the validation table's rows, which quote them. vramfit: F0 = 79.18 − 0.5 (CUDA context) GiB, weights 16,060,522,496 B.
  const Report report = evaluate_json(R"({"model":"llama-3.1-8b","engine":"sglang","gpu":"h100-sxm",
      "engine_version":"0.4.1"})");
  const SglangCapacity& c = sglang_of(report);
  CHECK(c.mem_fraction_static == 0.88);
  CHECK(c.cell_bytes == 131'072);
  CHECK(c.context_len == 131'072);
  CHECK(test::within_row(static_cast<double>(c.max_total_num_tokens), "sglang-llama-3.1-8b-h100-docs"));
  CHECK(test::within_row(static_cast<double>(c.max_total_num_tokens), "sglang-llama-3.1-8b-h100-pr4760"));
  // K and V of the pool as SGLang prints them: 27.13 GB each.
  CHECK(static_cast<double>(c.max_total_num_tokens * c.cell_bytes) / 2 / kGiBytes == doctest::Approx(27.13).epsilon(0.05));
}

TEST_CASE("SGLang tensor parallel 4: Qwen3-235B-A22B-FP8 on 4 × H100 at mem_fraction_static 0.93") {
  // https://github.com/vllm-project/vllm/issues/21348: "python3 -m sglang.launch_server --model
  // /path/to/Qwen3-235B-A22B-FP8 --tp 4 ... --mem-fraction-static 0.93" on 4 × H100 printed
  //   "KV Cache is allocated. #tokens: …, K size: 8.23 GB, V size: 8.23 GB" (the tokens: the validation table's row)
  // 94 layers × 1 KV head per rank (4 / 4) × (128 + 128) × 2 B = 48,128 B per token: 2 × 8.23 GB of them.
  const Report report = evaluate_json(R"({"model":"qwen3-235b-a22b","weights":"fp8","engine":"sglang",
      "gpu":"h100-sxm","tp":4,"mem_fraction_static":0.93})");
  const SglangCapacity& c = sglang_of(report);
  CHECK(c.cell_bytes == 48'128);
  CHECK(c.tensor_parallel == 4);
  CHECK_FALSE(c.mem_fraction_default);
  CHECK(test::within_row(static_cast<double>(c.max_total_num_tokens), "sglang-qwen3-235b-fp8-h100-tp4"));
  CHECK(report.estimate.per_gpu.gpus == 4);
  CHECK(report.estimate.per_gpu.weights == c.weights_bytes);
}

TEST_CASE("SGLang keeps the MLA latent whole on every rank: Kimi K2.5 at tensor parallel 8") {
  // A published run log of "sglang serve --model-path moonshotai/Kimi-K2.5 --tp 8" (image
  // rocm/sgl-dev:v0.5.8.post1-rocm720-mi35x-20260218, 8 × MI355X): "mem_fraction_static=0.8260405859375" (the
  // default lowered for the vision tower), "Load weight begin. avail mem=283.53 GB" (the lowest rank),
  // "Load weight end. ... avail mem=209.96 GB, mem usage=73.58 GB.", "KV Cache is allocated. #tokens: 2454421,
  // KV size: 160.63 GB". 61 layers × (kv_lora_rank 512 + qk_rope_head_dim 64) × 2 B = 70,272 B per token on each
  // rank; (0.82604 × 283.53 − 73.57) × 2^30 / 70,272 = 2,454,5xx tokens.
  const Report report = evaluate_json(R"({"model":"kimi-k2.5","engine":"sglang","gpu":"b200","tp":8})");
  const SglangCapacity& c = sglang_of(report);
  CHECK(c.cell_bytes == 70'272);
  const SglangCapacity logged =
      detail::sglang_kv_capacity(gib_bytes(283.53), 0.8260405859375, gib_bytes(283.53 - 209.96), c.cell_bytes, 262'144);
  CHECK(logged.max_total_num_tokens == doctest::Approx(2'454'421).epsilon(0.0005));
  CHECK(static_cast<double>(2'454'421ULL * c.cell_bytes) / kGiBytes == doctest::Approx(160.63).epsilon(0.0005));
}

TEST_CASE("SGLang's inputs: its flags belong to it, and what stops it from starting is said") {
  auto refused = [](const std::string& json) {
    auto request = request_from_json(json);
    REQUIRE(request.ok());
    return evaluate(test::catalog(), request.value());
  };
  const auto vllm_fraction = refused(R"({"model":"llama-3.1-8b","engine":"vllm","mem_fraction_static":0.8})");
  REQUIRE_FALSE(vllm_fraction.ok());
  CHECK(vllm_fraction.error().field == "mem_fraction_static");
  const auto bad_version = refused(R"({"model":"llama-3.1-8b","engine":"sglang","engine_version":"newest"})");
  REQUIRE_FALSE(bad_version.ok());
  CHECK(bad_version.error().field == "engine_version");
  // Llama-3.1-70B in bf16 (141 GB) on one H100: the weights fill the fraction, SGLang refuses to start.
  const Report big = evaluate_json(R"({"model":"llama-3.1-70b","engine":"sglang","gpu":"h100-sxm"})");
  CHECK(sglang_of(big).max_total_num_tokens == 0);
  bool said = false;
  for (const auto& note : big.estimate.notes) said = said || note.text.find("increase --mem-fraction-static") != std::string::npos;
  CHECK(said);
  CHECK(big.gpus.front().fit == Fit::does_not_fit);
}

TEST_CASE("SGLang's command line: launch_server with the flags that differ from its defaults") {
  const Report report = evaluate_json(R"({"model":"qwen3-235b-a22b","weights":"fp8","engine":"sglang",
      "gpu":"h100-sxm","tp":4,"mem_fraction_static":0.93,"context":32768})");
  CHECK(report.command.rfind("python -m sglang.launch_server --model-path ", 0) == 0);
  CHECK(report.command.find(" --tp 4") != std::string::npos);
  CHECK(report.command.find(" --mem-fraction-static 0.93") != std::string::npos);
  CHECK(report.command.find(" --context-length 32768") != std::string::npos);
}

// Memory other programs already hold on the GPU (memory_in_use), as each engine meets it. Sources:
// vLLM PR #19312 (first in 0.9.1; vllm/v1/worker/utils.py request_memory, read at zyongye/vllm 91a893de), SGLang
// model_runner_kv_cache_mixin.py _profile_available_bytes ("rest_memory = available_gpu_memory -
// pre_model_load_memory * (1 - mem_fraction_static)", both from get_available_gpu_memory), llama.cpp
// common/fit.cpp (free from ggml_backend_dev_memory, margin --fit-target 1024 MiB), Ollama v0.11.10
// discover/gpu.go:279 (gpuInfo.FreeMemory = uint64(memInfo.free)) and llm/memory.go:317 (FreeMemory > overhead +
// used + layerSize), Ollama v0.33.0-rc2 server/routes.go:2045 (the context tier from TotalMemory − GpuOverhead).
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "engine_reports.hpp"
#include "hardware/fit.hpp"
#include "json/answer.hpp"
#include "json/report_writer.hpp"
#include "memory/in_use.hpp"
#include "questions/evaluate.hpp"
#include "questions/remedies.hpp"

using namespace vramfit;

namespace {

using test::evaluate_json;
using test::has_note;

std::uint64_t gib(double g) { return static_cast<std::uint64_t>(std::llround(g * 1073741824.0)); }

const GpuFit& row_of(const Report& r, const std::string& id) {
  for (const auto& f : r.gpus)
    if (f.gpu->id == id) return f;
  FAIL("no row " << id);
  return r.gpus.front();
}

}  // namespace

TEST_CASE("vLLM's start check against the three logged refusals (PR #19312)") {
  // vllm#20305 (v0.9.1): "Free memory on device (31.44/47.38 GiB) on startup is less than desired GPU memory
  // utilization (0.95, 45.01 GiB)". Free at the check is total − CUDA context − others: others = 47.38 − 0.5 − 31.44.
  const std::uint64_t total = gib(47.38);
  const std::uint64_t others = total - 512 * kMiB - gib(31.44);
  const VllmStartCheck a = vllm_start_check(total, 0.95, others);
  CHECK(a.free_bytes == gib(31.44));
  CHECK(std::abs(static_cast<double>(a.requested_bytes) / 1073741824.0 - 45.01) < 0.005);  // 0.95 × 47.38 = 45.011
  CHECK_FALSE(a.starts);
  // The most that starts: 31.44 / 47.38 = 0.6636 → 0.66; ceil(0.66 × 47.38 GiB) = 31.27 GiB ≤ 31.44 GiB.
  CHECK(a.util_that_fits == doctest::Approx(0.66));
  // vllm#23192 (H200): "(7.34/139.72 GiB) ... (0.9, 125.75 GiB)": 0.9 × 139.72 = 125.748; 7.34 / 139.72 = 0.0525.
  const std::uint64_t h200 = gib(139.72);
  const VllmStartCheck b = vllm_start_check(h200, 0.9, h200 - 512 * kMiB - gib(7.34));
  CHECK(std::abs(static_cast<double>(b.requested_bytes) / 1073741824.0 - 125.75) < 0.005);
  CHECK_FALSE(b.starts);
  CHECK(b.util_that_fits == doctest::Approx(0.05));
  // pytorch#175666: "Free memory on device cuda:0 (19.77/22.05 GiB) ... (0.9, 19.84 GiB)": 0.9 × 22.05 = 19.845 > 19.77.
  const std::uint64_t l4 = gib(22.05);
  const VllmStartCheck c = vllm_start_check(l4, 0.9, l4 - 512 * kMiB - gib(19.77));
  CHECK_FALSE(c.starts);
  CHECK(c.util_that_fits == doctest::Approx(0.89));  // 19.77 / 22.05 = 0.8966
  // Nothing in use and the default 0.92 on a 24 GiB card: 24 − 0.5 = 23.5 GiB free ≥ 22.08 GiB: it starts.
  CHECK(vllm_start_check(24 * kGiB, 0.92, 0).starts);
}

TEST_CASE("vLLM with memory in use: the pool stays, or it does not start and says which util does") {
  // RTX A6000: the driver shows 47.4 GiB (data/gpus.json). 0.92 × 47.4 = 43.608 GiB requested.
  const Report empty = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-a6000","context":8192})");
  // 2 GiB in use: 47.4 − 0.5 − 2 = 44.9 GiB free ≥ 43.608: it starts, and the budget is util × total as before, so the
  // KV pool is the same (gpu_worker.py determine_available_memory: requested_memory − non_kv_cache_memory).
  const Report two = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-a6000","context":8192,
      "memory_in_use":2})");
  REQUIRE(two.estimate.vllm_start);
  CHECK(two.estimate.vllm_start->starts);
  CHECK(two.estimate.vllm->kv_capacity_bytes == empty.estimate.vllm->kv_capacity_bytes);
  CHECK(two.estimate.in_use == 2 * kGiB);
  CHECK(has_note(two, "in_use.vllm_starts"));
  // What the card keeps free is 2 GiB less: total − budget − in use.
  CHECK(row_of(two, "rtx-a6000").free_bytes == row_of(empty, "rtx-a6000").free_bytes - static_cast<std::int64_t>(2 * kGiB));
  // 15 GiB in use: 47.4 − 0.5 − 15 = 31.9 GiB free < 43.608 GiB: vLLM refuses to start; 31.9 / 47.4 = 0.673 → 0.67.
  const Report fifteen = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-a6000","context":8192,
      "memory_in_use":15})");
  REQUIRE(fifteen.estimate.vllm_start);
  CHECK_FALSE(fifteen.estimate.vllm_start->starts);
  CHECK(fifteen.estimate.vllm_start->util_that_fits == doctest::Approx(0.67));
  CHECK(has_note(fifteen, "in_use.vllm_refuses"));
  CHECK(row_of(fifteen, "rtx-a6000").fit == Fit::does_not_fit);
  // The row says how far short the start check falls: 31.9 − 43.608 = −11.708 GiB.
  CHECK(static_cast<double>(row_of(fifteen, "rtx-a6000").free_bytes) / 1073741824.0 == doctest::Approx(-11.708).epsilon(0.001));
  // At 0.67 it starts, and the pool shrinks by (0.92 − 0.67) × 47.4 GiB = 11.85 GiB.
  const Report lower = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-a6000","context":8192,
      "memory_in_use":15,"gpu_util":0.67})");
  CHECK(lower.estimate.vllm_start->starts);
  CHECK(row_of(lower, "rtx-a6000").fit != Fit::does_not_fit);
  const double shrink = static_cast<double>(empty.estimate.vllm->kv_capacity_bytes - lower.estimate.vllm->kv_capacity_bytes);
  CHECK(shrink / 1073741824.0 == doctest::Approx(0.25 * 47.4).epsilon(0.001));
}

TEST_CASE("SGLang with memory in use: gone from the free memory before loading, so the pool shrinks by mfs × it") {
  // _profile_available_bytes: rest = (F0 − W) − F0 × (1 − mfs) = mfs × F0 − W, and F0 =
  // mem_get_info's free before the weights, which others' memory is gone from: the pool shrinks by mfs × in use.
  const Report empty = evaluate_json(R"({"model":"llama-3.1-8b","engine":"sglang","gpu":"h100","context":8192,
      "mem_fraction_static":0.8})");
  const Report busy = evaluate_json(R"({"model":"llama-3.1-8b","engine":"sglang","gpu":"h100","context":8192,
      "mem_fraction_static":0.8,"memory_in_use":6})");
  CHECK(empty.estimate.sglang->free_at_start_bytes - busy.estimate.sglang->free_at_start_bytes == 6 * kGiB);
  const double shrink =
      static_cast<double>(empty.estimate.sglang->kv_capacity_bytes - busy.estimate.sglang->kv_capacity_bytes);
  CHECK(shrink == doctest::Approx(0.8 * 6 * 1073741824.0).epsilon(0.0001));  // 4.8 GiB
  // The default fraction reads the card's capacity (get_device_memory_capacity), not free memory: unchanged.
  const Report def = evaluate_json(R"({"model":"llama-3.1-8b","engine":"sglang","gpu":"h100","context":8192})");
  const Report def_busy = evaluate_json(R"({"model":"llama-3.1-8b","engine":"sglang","gpu":"h100","context":8192,
      "memory_in_use":6})");
  CHECK(def.estimate.sglang->mem_fraction_static == def_busy.estimate.sglang->mem_fraction_static);
}

TEST_CASE("llama.cpp --fit measures free memory with the others' memory gone") {
  // common/fit.cpp: projected_free = dmd.free − projected_used against the 1024 MiB margin; free is cudaMemGetInfo's.
  const Report empty = evaluate_json(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090"})");
  const Report busy = evaluate_json(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090",
      "memory_in_use":1.5})");
  REQUIRE(empty.llamacpp_fit);
  REQUIRE(busy.llamacpp_fit);
  CHECK(empty.llamacpp_fit->free_bytes - busy.llamacpp_fit->free_bytes == gib(1.5));
  CHECK(busy.llamacpp_fit->margin_bytes == 1024 * kMiB);  // the margin is kept on top, not replaced
}

TEST_CASE("Ollama up to 0.11.10: discovery's free memory is without the others', before OLLAMA_GPU_OVERHEAD") {
  const Report empty = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.11.10",
      "gpu":"rtx-4090"})");
  const Report busy = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.11.10",
      "gpu":"rtx-4090","memory_in_use":6,"ollama_gpu_overhead":1073741824})");
  REQUIRE(empty.estimate.ollama);
  REQUIRE(busy.estimate.ollama);
  CHECK(empty.estimate.ollama->available_bytes - busy.estimate.ollama->available_bytes == 6 * kGiB);
  CHECK(busy.estimate.ollama->gpu_overhead_bytes == kGiB);  // kept apart, as memory.go adds it to what is used
  // The note on the free memory names the memory in use where there is some.
  CHECK(has_note(empty, "ollama.free_memory"));
  CHECK_FALSE(has_note(empty, "ollama.free_memory_in_use"));
  CHECK(has_note(busy, "ollama.free_memory_in_use"));
  CHECK_FALSE(has_note(busy, "ollama.free_memory"));
}

TEST_CASE("Ollama from 0.30: llama-server's --fit sees the others' memory; the default context does not") {
  // routes.go:2045: totalVRAM += gpu.TotalMemory − envconfig.GpuOverhead(): total, not free; 23.49 GiB ≥ 23 → 32768.
  const Report busy = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0",
      "gpu":"rtx-4090","memory_in_use":6})");
  CHECK(busy.estimate.context_tokens == 32768);
  CHECK(has_note(busy, "in_use.ollama_default_context"));
  const Report empty = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0",
      "gpu":"rtx-4090"})");
  REQUIRE(busy.llamacpp_fit);
  REQUIRE(empty.llamacpp_fit);
  CHECK(empty.llamacpp_fit->free_bytes - busy.llamacpp_fit->free_bytes == 6 * kGiB);
  // One "already in use" line, not one from the llama-server estimate inside and another from Ollama's.
  int lines = 0;
  for (const auto& x : busy.estimate.explanations) lines += x.key == "in_use";
  CHECK(lines == 1);
}

TEST_CASE("transformers: the total must fit what the others leave; the breakdown counts the card") {
  // Llama 3.1 8B in bf16: 16,060,522,496 B of weights alone; an RTX 4090 shows 24 GiB (the catalog's usable).
  const Report empty = evaluate_json(R"({"model":"llama-3.1-8b","gpu":"rtx-4090","context":4096})");
  const Report busy = evaluate_json(R"({"model":"llama-3.1-8b","gpu":"rtx-4090","context":4096,"memory_in_use":1.5})");
  CHECK(row_of(empty, "rtx-4090").free_bytes - row_of(busy, "rtx-4090").free_bytes == static_cast<std::int64_t>(gib(1.5)));
  CHECK(busy.estimate.total == empty.estimate.total);  // the model's own memory does not change
  const auto j = nlohmann::json::parse(report_to_json(busy));
  CHECK(j["breakdown"]["in_use"] == gib(1.5));
  CHECK(j["breakdown"]["total"] == busy.estimate.total + gib(1.5));
  bool explained = false;
  for (const auto& x : j["explanations"]) explained = explained || x["key"] == "in_use";
  CHECK(explained);
  // 8 GiB more in use: 16.06 GB of weights + 8 GiB > 24 GiB: no longer fits.
  const Report full = evaluate_json(R"({"model":"llama-3.1-8b","gpu":"rtx-4090","context":4096,"memory_in_use":8})");
  CHECK(row_of(full, "rtx-4090").fit == Fit::does_not_fit);
}

TEST_CASE("A Mac: other programs' memory counts against the RAM, not against the GPU's wired limit") {
  // 64 GB Mac: macOS's default wired limit is 3/4 of the RAM above 32 GB, 48 GiB. 10 GiB in use leaves 54 GiB of RAM:
  // the limit still binds (48); 20 GiB in use leaves 44 GiB: the RAM binds.
  CHECK(usable_beside(48 * kGiB, 10 * kGiB, true, 64 * kGiB) == 48 * kGiB);
  CHECK(usable_beside(48 * kGiB, 20 * kGiB, true, 64 * kGiB) == 44 * kGiB);
  // A discrete card: what is left of it.
  CHECK(usable_beside(24 * kGiB, 6 * kGiB, false, 0) == 18 * kGiB);
  CHECK(usable_beside(24 * kGiB, 30 * kGiB, false, 0) == 0);
  const Report mac = evaluate_json(R"({"model":"llama-3.1-8b","engine":"mlx","gpu":"apple-m4-pro-64gb",
      "memory_in_use":20})");
  CHECK(has_note(mac, "in_use.mac_ram"));
  CHECK(row_of(mac, "apple-m4-pro-64gb").free_bytes ==
        static_cast<std::int64_t>(44 * kGiB) - static_cast<std::int64_t>(mac.estimate.total));
  // llama.cpp on the same Mac reads the same limit (ggml-metal: recommendedMaxWorkingSetSize), and says so too.
  const Report llama = evaluate_json(R"({"model":"llama-3.1-8b","engine":"llamacpp","gpu":"apple-m4-pro-64gb",
      "memory_in_use":20})");
  CHECK(has_note(llama, "in_use.mac_ram"));
}

TEST_CASE("vLLM stopped by memory in use: the remedy is the share that starts, not a smaller model") {
  // As above: 15 GiB in use on an RTX A6000 leaves 31.9 GiB; 31.9 / 47.4 → gpu_memory_utilization 0.67 starts.
  auto request = request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-a6000","context":8192,
      "memory_in_use":15})");
  REQUIRE(request.ok());
  auto r = remedies_for(test::catalog(), request.value());
  REQUIRE(r.ok());
  const Remedy* util = nullptr;
  for (const Remedy& x : r.value().remedies)
    if (x.id == "gpu-util-in-use") util = &x;
  REQUIRE(util != nullptr);
  REQUIRE(util->inputs.size() == 1);
  CHECK(std::string(util->inputs.front().key) == "gpu_util");
  CHECK(util->inputs.front().text == "0.67");
  REQUIRE(util->fit);
  CHECK(*util->fit != Fit::does_not_fit);
}

TEST_CASE("vLLM stopped by memory in use: the share that passes the check must still hold one sequence") {
  // vLLM PR #19312, vllm/v1/worker/utils.py request_memory: it refuses unless the free memory after its CUDA context
  // is at least ceil(gpu_memory_utilization × total); past it, check_enough_kv_cache_memory refuses a pool shorter
  // than one sequence. The RTX 4090's driver shows 23.49 GiB (data/gpus.json).
  // gemma-3-27b in bf16 with 2 GiB in use: 23.49 − 0.5 − 2 = 20.99 GiB free < 0.92 × 23.49 = 21.61 GiB, and
  // 20.99 / 23.49 = 0.894 → 0.89. At 0.89 the budget is 0.89 × 23.49 = 20.91 GiB, below the weights alone
  // (27.4 B parameters × 2 B ≈ 51 GiB): the pool holds nothing, so 0.89 does not start either.
  const Report gemma = evaluate_json(R"({"model":"gemma-3-27b","engine":"vllm","gpu":"rtx-4090","images":2,
      "memory_in_use":2})");
  REQUIRE(gemma.estimate.vllm_start);
  const VllmStartCheck& g = *gemma.estimate.vllm_start;
  CHECK_FALSE(g.starts);
  CHECK(g.util_that_fits == doctest::Approx(0.89));
  CHECK_FALSE(g.fits_holds_sequence);
  CHECK(g.fits_kv_tokens == 0);
  CHECK(gemma.verdict.message.id == "headline.vllm_in_use_short");
  CHECK(has_note(gemma, "in_use.vllm_refuses_short"));
  CHECK_FALSE(has_note(gemma, "in_use.vllm_refuses"));
  // The command keeps the share asked: no share that starts to offer.
  CHECK(gemma.command.find("--gpu-memory-utilization") == std::string::npos);
  // The row's free memory is the larger shortfall: the weights' (over 51 − 21.61 GiB short), not the start
  // check's 20.99 − 21.61 = −0.62 GiB.
  CHECK(row_of(gemma, "rtx-4090").free_bytes < -static_cast<std::int64_t>(gib(25)));

  // qwen3-vl-8b with a 4-token qwen3-0.6b draft and 1.5 GiB in use: 23.49 − 0.5 − 1.5 = 21.49 GiB free
  // < 21.61 GiB asked; 21.49 / 23.49 = 0.9149 → 0.91. The pool at 0.91 is the pool of the same request asked at 0.91
  // on an empty card (the budget is the share of the total, whatever else is in use), shorter than 16,384 tokens.
  const char* qwen = R"({"model":"qwen3-vl-8b","engine":"vllm","draft":"qwen3-0.6b","draft_tokens":4,
      "context":16384,"gpu":"rtx-4090")";
  const Report short_pool = evaluate_json(std::string(qwen) + R"(,"memory_in_use":1.5})");
  const Report at_091 = evaluate_json(std::string(qwen) + R"(,"gpu_util":0.91})");
  REQUIRE(short_pool.estimate.vllm_start);
  const VllmStartCheck& q = *short_pool.estimate.vllm_start;
  CHECK_FALSE(q.starts);
  CHECK(q.util_that_fits == doctest::Approx(0.91));
  REQUIRE(at_091.estimate.vllm);
  CHECK(q.fits_kv_tokens == at_091.estimate.vllm->kv_capacity_tokens);
  CHECK(q.fits_kv_tokens < 16384);
  CHECK(q.sequence_tokens == 16384);
  CHECK_FALSE(q.fits_holds_sequence);
  CHECK(short_pool.verdict.message.id == "headline.vllm_in_use_short");
  CHECK(short_pool.command.find("--gpu-memory-utilization") == std::string::npos);

  // llama-3.1-8b with 15 GiB in use on an RTX A6000 (above): at 0.67 the budget, 0.67 × 47.4 = 31.76 GiB, holds its
  // 15 GiB of weights and a pool of many 8,192-token sequences, so 0.67 starts and the command asks for it.
  const Report llama = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-a6000","context":8192,
      "memory_in_use":15})");
  CHECK(llama.estimate.vllm_start->fits_holds_sequence);
  CHECK(llama.verdict.message.id == "headline.vllm_in_use");
  CHECK(llama.command.find("--gpu-memory-utilization 0.67") != std::string::npos);
}

TEST_CASE("vLLM stopped by memory in use on several GPUs: the headline names them") {
  // Two RTX A6000 with tensor parallelism and 15 GiB in use on each: the check runs on every rank alike.
  const Report two = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-a6000","gpus":2,"tp":2,
      "context":8192,"memory_in_use":15})");
  REQUIRE(two.estimate.vllm_start);
  CHECK_FALSE(two.estimate.vllm_start->starts);
  CHECK(two.verdict.message.id == "headline.vllm_in_use_owned");
}

// Other models kept loaded on the same GPU (the "also" input), as each engine meets them. Sources:
// vLLM docs (engine_args, --gpu-memory-utilization: "a per-instance limit ... two vLLM instances on the same GPU, you
// can set the GPU memory utilization to 0.5 for each instance"), vLLM PR #19312 (0.9.1) vllm/v1/worker/utils.py
// request_memory (the next server's start check against the memory left free), vLLM
// check_enough_kv_cache_memory (the pool holds one sequence of max_model_len); Ollama v0.33.0-rc2 server/sched.go
// (defaultModelsPerGPU = 3 at :86; maxRunners = 3 × GPUs at :286-288; "max runners achieved, unloading one to make
// room" at :266; load(requireFull) "predictedForLoad > freeMemory*80/100" → evict at :549-551; updateFreeSpace takes
// each runner's VRAMByGPU from the free memory at :1295-1334), envconfig/config.go:129-144 (KeepAlive 5 minutes,
// negative: for ever); llama.cpp: each llama-server a process of its own, its --fit measuring the others' memory as
// used (common/fit.cpp, cudaMemGetInfo).
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "engine_reports.hpp"
#include "json/report_writer.hpp"
#include "memory/others.hpp"
#include "questions/evaluate.hpp"

using namespace vramfit;

namespace {

using test::evaluate_json;
using test::has_note;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t at; (at = text.find('\n', start)) != std::string::npos; start = at + 1)
    out.push_back(text.substr(start, at - start));
  out.push_back(text.substr(start));
  return out;
}

Error error_of(const std::string& json) {
  auto request = request_from_json(json);
  if (!request) return request.error();
  auto report = evaluate(test::catalog(), request.value());
  REQUIRE_MESSAGE(!report.ok(), json);
  return report.error();
}

}  // namespace

TEST_CASE("vLLM: the least two-decimal share whose budget holds what a server needs") {
  // By hand: on 80 GiB = 85'899'345'920 B, 20 GiB is exactly 25 %: floor(0.25 × 80 GiB) = 20 GiB holds it.
  const std::uint64_t total = 80 * kGiB;
  CHECK(vllm_util_holding(20 * kGiB, total) == doctest::Approx(0.25));
  // One byte more needs the next hundredth: 0.26 × 80 GiB = 20.8 GiB.
  CHECK(vllm_util_holding(20 * kGiB + 1, total) == doctest::Approx(0.26));
  // 0.8 GiB of 80: 1 %.
  CHECK(vllm_util_holding(80 * kGiB / 100, total) == doctest::Approx(0.01));
  // More than the card: no share holds it.
  CHECK(vllm_util_holding(total + 1, total) == 0);
}

TEST_CASE("vLLM: a second server holds its budget, and the next one's start check sees it gone") {
  const Report r = evaluate_json(R"({"model":"qwen3-8b","engine":"vllm","gpu":"h100-sxm","context":8192,
      "also":"llama-3.1-8b@8192"})");
  REQUIRE(r.estimate.other_models.size() == 1);
  const OtherModel& m = r.estimate.other_models.front();
  CHECK(m.name == "llama-3.1-8b");
  CHECK(m.context_tokens == 8192);
  REQUIRE(r.estimate.vllm);
  const std::uint64_t total = r.estimate.vllm->driver_total_bytes;
  // Its share is the least that passes check_enough_kv_cache_memory: one hundredth less and the pool holds no
  // sequence of 8192 tokens; at the share it holds one at least.
  const double util = m.gpu_util;
  REQUIRE(util > 0);
  const Report at = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":8192,
      "gpu_util":)" + std::to_string(util) + "}");
  CHECK(at.estimate.vllm->max_concurrency >= 1);
  const Report below = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":8192,
      "gpu_util":)" + std::to_string(util - 0.01) + "}");
  CHECK(below.estimate.vllm->max_concurrency == 0);
  // The server holds its budget, floor(util × total) (gpu_worker.py requested_memory), the CUDA graphs where the
  // version captures them outside it (Model Runner V2 from 0.25 sets nothing aside for them, vLLM issue 49224), and
  // its own CUDA context, taken before the baseline its budget is measured from (512 MiB = 536'870'912 B):
  // bytes = floor(util × total) + graphs + 536'870'912.
  const std::uint64_t graphs = at.estimate.vllm->cuda_graphs_in_budget ? 0 : at.estimate.vllm->cuda_graph_bytes;
  CHECK(m.bytes == static_cast<std::uint64_t>(std::floor(static_cast<double>(total) * util)) + graphs + 536'870'912);
  // The next server's check (request_memory): free = total − its CUDA context (512 MiB) − the other's bytes, against
  // ceil(0.92 × total). An 8B model's share in bf16 is well above the 7.5 % that leaves room for 0.92.
  REQUIRE(r.estimate.vllm_start);
  const std::uint64_t free = total - 512 * kMiB - m.bytes;
  CHECK(r.estimate.vllm_start->free_bytes == free);
  CHECK_FALSE(r.estimate.vllm_start->starts);
  const double fits = static_cast<double>(free * 100 / total) / 100.0;
  CHECK(r.estimate.vllm_start->util_that_fits == doctest::Approx(fits));
  // Two command lines: the other server with its share, then this one with the share that starts.
  const auto lines = lines_of(r.command);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].starts_with("vllm serve meta-llama/"));
  char share[16];
  std::snprintf(share, sizeof share, "%g", util);
  CHECK(lines[0].find(std::string("--gpu-memory-utilization ") + share) != std::string::npos);
  std::snprintf(share, sizeof share, "%g", fits);
  CHECK(lines[1].starts_with("vllm serve Qwen/"));
  CHECK(lines[1].find(std::string("--gpu-memory-utilization ") + share) != std::string::npos);
  // Each server binds its port (vllm serve --port, default 8000): the other one takes the next.
  CHECK(lines[0].find(" --port 8001") != std::string::npos);
  CHECK(lines[1].find("--port") == std::string::npos);
  CHECK(has_note(r, "other_models.ports"));
  CHECK(has_note(r, "other_models.loaded_last"));
  CHECK(has_note(r, "other_models.command_order"));
  // The breakdown: a line of its own, nothing in the person's "in use", and the card's total counts it.
  const auto j = nlohmann::json::parse(report_to_json(r));
  const auto& b = j.at("breakdown");
  CHECK(b.at("other_model:llama-3.1-8b@8192").get<std::uint64_t>() == m.bytes);
  CHECK(b.at("in_use").get<std::uint64_t>() == 0);
  CHECK(b.at("total").get<std::uint64_t>() == r.estimate.total + m.bytes);
}

TEST_CASE("vLLM: other models need a GPU chosen, since each server takes a share of one") {
  const Error e = error_of(R"({"model":"qwen3-8b","engine":"vllm","also":"qwen3-0.6b"})");
  CHECK(e.field == "also");
  CHECK(e.message.id == "also.needs_gpu");
}

TEST_CASE("llama.cpp: each llama-server is a process of its own; the card holds their sum") {
  const Report alone = evaluate_json(R"({"model":"qwen3-8b","engine":"llamacpp","gpu":"rtx-4090","context":8192})");
  // llama-server's default -c (common.h n_ctx 4096) for the other model, said on its command line.
  const Report other = evaluate_json(R"({"model":"qwen3-0.6b","engine":"llamacpp","gpu":"rtx-4090","context":4096})");
  const Report r = evaluate_json(R"({"model":"qwen3-8b","engine":"llamacpp","gpu":"rtx-4090","context":8192,
      "also":"qwen3-0.6b"})");
  REQUIRE(r.estimate.other_models.size() == 1);
  const OtherModel& m = r.estimate.other_models.front();
  CHECK(m.context_tokens == 4096);
  // Its KV cache by hand from Qwen/Qwen3-0.6B's config.json (28 layers, 8 KV heads, head_dim 128, f16):
  // 2 × 28 × 8 × 128 × 2 B = 114,688 B a token × 4,096 = 469,762,048 B, the "llama_kv_cache: size = 448.00 MiB"
  // llama-server prints for -c 4096; the footprint holds it and more (weights, compute buffer, context).
  CHECK(other.estimate.kv_cache == 469'762'048);
  CHECK(m.bytes > 469'762'048 + 1'000'000'000);
  CHECK(m.bytes == other.estimate.per_gpu.total);
  CHECK(r.estimate.in_use == m.bytes);
  // Both fit a 24 GB card whole: this model's lines stay as they are alone, and the total adds the other's.
  CHECK(r.estimate.total == alone.estimate.total);
  const auto j = nlohmann::json::parse(report_to_json(r));
  CHECK(j.at("breakdown").at("total").get<std::uint64_t>() == alone.estimate.total + other.estimate.per_gpu.total);
  // Its line is explained (formula, values, source) like every other; nothing else is in use, so no such line.
  int explained = 0, in_use = 0;
  for (const Explanation& x : r.estimate.explanations) {
    explained += x.key == "other_model:qwen3-0.6b@4096" && !x.formula.empty() && !x.source.empty();
    in_use += x.key == "in_use";
  }
  CHECK(explained == 1);
  CHECK(in_use == 0);
  const auto lines = lines_of(r.command);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].starts_with("llama-server -m Qwen3-0.6B"));
  CHECK(lines[0].find(" -c 4096") != std::string::npos);
  CHECK(lines[1].starts_with("llama-server -m Qwen3-8B"));
  // llama-server's --port defaults to 8080 (tools/server/README.md): the other server takes 8081.
  CHECK(lines[0].find(" --port 8081") != std::string::npos);
  CHECK(lines[1].find("--port") == std::string::npos);
}

TEST_CASE("transformers: the other model is a process of its own, its weights and cache beside this one's") {
  // Qwen3-0.6B in bf16: 596,049,920 parameters (keras-hub's published count) × 2 B = 1,192,099,840 B; its KV cache
  // from Qwen/Qwen3-0.6B's config.json (28 layers, 8 KV heads, head_dim 128, bf16): 2 × 28 × 8 × 128 × 2 B =
  // 114,688 B a token × 4,096 = 469,762,048 B. A second PyTorch process holds all of its own total (its CUDA context
  // and caching allocator too), which this one finds gone from the card.
  const Report other = evaluate_json(R"({"model":"qwen3-0.6b","engine":"transformers","gpu":"rtx-4090","context":4096})");
  CHECK(other.estimate.weights == 1'192'099'840);
  CHECK(other.estimate.kv_cache == 469'762'048);
  const Report r = evaluate_json(R"({"model":"qwen3-8b","engine":"transformers","gpu":"rtx-4090","context":4096,
      "also":"qwen3-0.6b@4096"})");
  REQUIRE(r.estimate.other_models.size() == 1);
  const OtherModel& m = r.estimate.other_models.front();
  CHECK(m.bytes == other.estimate.per_gpu.total);
  CHECK(m.bytes > 1'192'099'840ULL + 469'762'048ULL);
  CHECK(r.estimate.in_use == m.bytes);
  int explained = 0;
  for (const Explanation& x : r.estimate.explanations)
    explained += x.key == "other_model:qwen3-0.6b@4096" && x.source.id == "explain.other_model.source_transformers";
  CHECK(explained == 1);
}

TEST_CASE("MLX: the other model stays loaded in mlx_lm.server on a port of its own") {
  // mlx_lm.generate exits after its prompt; mlx_lm.server (mlx_lm/server.py: --model, --port with default 8080)
  // keeps the model loaded.
  const Report r = evaluate_json(R"({"model":"llama-3.1-8b","engine":"mlx","gpu":"apple-m4-pro-64gb","context":4096,
      "also":"qwen3-0.6b@4096,llama-3.2-1b@4096"})");
  const auto lines = lines_of(r.command);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].starts_with("mlx_lm.server --model Qwen/"));
  CHECK(lines[0].ends_with(" --port 8081"));
  CHECK(lines[1].starts_with("mlx_lm.server --model meta-llama/"));
  CHECK(lines[1].ends_with(" --port 8082"));
  CHECK(lines[2].starts_with("mlx_lm.generate --model meta-llama/"));
  CHECK(has_note(r, "other_models.ports_mlx"));
}

TEST_CASE("Ollama: one server keeps the models loaded; past 3 per GPU OLLAMA_MAX_LOADED_MODELS must say more") {
  const Report one = evaluate_json(R"({"model":"qwen3-8b","engine":"ollama","gpu":"rtx-4090","context":4096,
      "weights":"q4_k_m","also":"qwen3-0.6b@4096"})");
  // keep_alive: 5 minutes unless OLLAMA_KEEP_ALIVE; negative keeps them (envconfig.KeepAlive).
  CHECK(one.command.starts_with("OLLAMA_KEEP_ALIVE=-1 OLLAMA_CONTEXT_LENGTH"));
  CHECK(has_note(one, "other_models.ollama_keep_alive"));
  CHECK_FALSE(has_note(one, "other_models.ollama_max_loaded"));
  CHECK_FALSE(has_note(one, "other_models.ollama_evicts"));
  // Four models on one GPU: maxRunners = defaultModelsPerGPU (3) × 1, and loadedCount ≥ maxRunners unloads one.
  const Report four = evaluate_json(R"({"model":"qwen3-8b","engine":"ollama","gpu":"rtx-4090","context":4096,
      "weights":"q4_k_m","also":"qwen3-0.6b@4096,llama-3.2-1b@4096,qwen2.5-0.5b@4096"})");
  CHECK(four.estimate.other_models.size() == 3);
  CHECK(has_note(four, "other_models.ollama_max_loaded"));
  CHECK(four.command.starts_with("OLLAMA_KEEP_ALIVE=-1 OLLAMA_MAX_LOADED_MODELS=4 "));
}

TEST_CASE("Ollama: a model predicted above 80% of the memory the others leave makes the scheduler unload them") {
  // By hand, Q4_K_M at about 4.8 bits per weight: Qwen3-32B's 32.8 B weights are a 32.8 × 4.8 / 8 ≈ 19.7 GB file;
  // beside an 8B model's runner (8.2 × 4.8 / 8 ≈ 4.9 GB of weights, with its cache and buffers) a 24 GB card
  // leaves at most 19 GB free, of which 80 % is 15.2 GB < 19.7 GB: load() returns needEvict.
  const Report r = evaluate_json(R"({"model":"qwen3-32b","engine":"ollama","gpu":"rtx-4090","context":4096,
      "weights":"q4_k_m","also":"qwen3-8b@4096"})");
  CHECK(has_note(r, "other_models.ollama_evicts"));
  // It then loads alone: the answer is the model's own, on an empty card, and the headline says the other goes.
  const Report alone = evaluate_json(R"({"model":"qwen3-32b","engine":"ollama","gpu":"rtx-4090","context":4096,
      "weights":"q4_k_m"})");
  CHECK(r.estimate.other_models.empty());
  CHECK(r.estimate.in_use == 0);
  CHECK(r.estimate.total == alone.estimate.total);
  CHECK(r.verdict.kind == alone.verdict.kind);
  CHECK(r.verdict.message.id == "headline.ollama_unloads_others");
  CHECK(r.verdict.text().starts_with("Ollama unloads qwen3-8b first, then: " + alone.verdict.message.text));
  CHECK(r.command.find("qwen3-8b") == std::string::npos);
}

TEST_CASE("--also: a bad context, an unknown model, too many, each named with the field") {
  auto bad = request_from_json(R"({"model":"qwen3-8b","also":"qwen3-0.6b@lots"})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "also");
  CHECK(bad.error().message.id == "input.also_context");
  auto empty = request_from_json(R"({"model":"qwen3-8b","also":"@8192"})");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message.id == "input.also_model");
  auto many = request_from_json(R"({"model":"qwen3-8b","also":"a,b,c,d,e,f,g,h,i"})");
  REQUIRE_FALSE(many.ok());
  CHECK(many.error().message.id == "input.also_count");
  const Error unknown = error_of(R"({"model":"qwen3-8b","engine":"llamacpp","gpu":"rtx-4090","also":"no-such-model"})");
  CHECK(unknown.field == "also");
  CHECK(unknown.message.id == "also.error");
  CHECK(unknown.message.text.find("no-such-model") != std::string::npos);
}

TEST_CASE("--also: the main model's own vision settings stay its own") {
  // --language-model-only drops this model's vision tower (vLLM interfaces.py _mark_tower_model); the other server,
  // a vision model started for its own use, keeps its tower: its line has no such flag.
  const Report r = evaluate_json(R"({"model":"qwen3.6-27b","engine":"vllm","gpu":"h100-80gb","context":8192,
      "language_model_only":true,"also":"qwen3-vl-2b@8192"})");
  const auto lines = lines_of(r.command);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("--language-model-only") == std::string::npos);
  CHECK(lines[1].find("--language-model-only") != std::string::npos);
}

TEST_CASE("SGLang: another server holds its mem_fraction_static share of the memory it found free") {
  // SGLang _profile_available_bytes: rest = F1 − F0 × (1 − fraction), F1 = F0 − weights, so weights + pool =
  // fraction × F0 (the pool rounded down to whole cells); the server holds that whole share whatever one request
  // uses, plus what lies outside it (activations, graphs, CUDA context).
  const Report alone = evaluate_json(R"({"model":"qwen3-0.6b","engine":"sglang","gpu":"h100-sxm","context":8192})");
  const Report r = evaluate_json(R"({"model":"qwen3-8b","engine":"sglang","gpu":"h100-sxm","context":8192,
      "also":"qwen3-0.6b@8192"})");
  REQUIRE(r.estimate.other_models.size() == 1);
  REQUIRE(alone.estimate.sglang);
  const SglangCapacity& s = *alone.estimate.sglang;
  const PerGpuMemory& g = alone.estimate.per_gpu;
  const double share = s.mem_fraction_static * static_cast<double>(s.free_at_start_bytes);
  const std::uint64_t outside = g.total - g.weights - g.kv_cache - g.state_cache;
  const std::uint64_t bytes = r.estimate.other_models.front().bytes;
  // By hand: bytes − outside = fraction × F0 less under one cell (rest // cell) and a byte of rounding.
  CHECK(static_cast<double>(bytes - outside) <= share + 1);
  CHECK(static_cast<double>(bytes - outside) >= share - static_cast<double>(s.cell_bytes) - 1);
  // Far more than its one request's 8192 tokens of cache: the pool is most of the card.
  CHECK(bytes > g.total);
  CHECK(has_note(r, "other_models.sglang_fraction"));
  CHECK(has_note(r, "other_models.ports"));
  CHECK(lines_of(r.command)[0].find(" --port 30001") != std::string::npos);
}

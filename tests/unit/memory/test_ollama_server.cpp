// Ollama from 0.30 runs llama-server (ollama/ollama llm/llama_server.go, first in v0.30.0 (PR #16031); read at
// v0.33.0-rc2 and v0.32.15, the default, and at v0.30.0, v0.30.11 and v0.31.2 where the projector's handling changes):
// its context tiers (server/routes.go Server.Serve), the cap at n_ctx_train (llm/server.go NewLlamaServer), the
// batch it picks (server/sched.go automaticGenerationBatch), llama-server's --fit with -c given, and its command.
// No Ollama ≥ 0.30 log with its layers and buffers was found to pin against: the figures below are by hand.
#include <string>

#include <nlohmann/json.hpp>

#include "engine_reports.hpp"
#include "json/answer.hpp"
#include "memory/engines/ollama_server.hpp"
#include "questions/evaluate.hpp"

using namespace vramfit;

using test::evaluate_json;
using test::has_note;

TEST_CASE("Ollama 0.30+: num_ctx by the GPU's memory, as server/routes.go tiers it") {
  // "Use slightly lower thresholds (47/23 GiB vs. 48/24 GiB)": 23 GiB and 47 GiB are the first bytes of each tier.
  CHECK(ollama_vram_num_ctx(23 * kGiB - 1) == 4096);
  CHECK(ollama_vram_num_ctx(23 * kGiB) == 32768);
  CHECK(ollama_vram_num_ctx(47 * kGiB - 1) == 32768);
  CHECK(ollama_vram_num_ctx(47 * kGiB) == 262144);
  CHECK(ollama_vram_num_ctx(0) == 4096);
  // An RTX 4090's driver total is 23.49 GiB (torch "total capacity of 23.49 GiB", driver 575, Sautenich/UAV-VLA#7;
  // 23.68 on older drivers, zai-org/CogVideo#36): ≥ 23 GiB either way, so
  // 32768, below Llama 3.1 8B's 131072 (its config.json max_position_embeddings).
  const Report rtx = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0","gpu":"rtx-4090"})");
  CHECK(rtx.estimate.context_tokens == 32768);
  CHECK(rtx.context_source == "engine_default");
  CHECK(has_note(rtx, "ollama.context_tier"));
  // OLLAMA_GPU_OVERHEAD is taken off the total first: 23.49 − 1 = 22.49 GiB < 23 GiB → 4096.
  const Report less = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0",
      "gpu":"rtx-4090","ollama_gpu_overhead":1073741824})");
  CHECK(less.estimate.context_tokens == 4096);
  CHECK(has_note(less, "ollama.gpu_overhead_tier"));
  // An H100 80GB shows 79.18 GiB (vLLM's "78.57/79.18 GiB" log): 262144, capped at the model's 131072.
  const Report h100 = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.30","gpu":"h100"})");
  CHECK(h100.estimate.context_tokens == 131072);
  CHECK(has_note(h100, "ollama.context_capped"));
  // A context asked for above n_ctx_train is capped the same way.
  const Report asked = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.30",
      "context":200000})");
  CHECK(asked.estimate.context_tokens == 131072);
  // A multimodal model runs with at least 2048 tokens (server/sched.go getRunner), even when asked for fewer.
  const Report vision = evaluate_json(R"({"model":"gemma-3-27b","engine":"ollama","engine_version":"0.33.0",
      "context":1024,"gpu":"rtx-4090"})");
  CHECK(vision.estimate.context_tokens == 2048);
  CHECK(has_note(vision, "ollama.vision_min_context"));
  CHECK(has_note(vision, "ollama.projector_gpu"));
  CHECK(has_note(vision, "ollama.projector_fit_target"));
  // Without a GPU the tier is unknown: 4096, and a note says so.
  const Report none = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0"})");
  CHECK(none.estimate.context_tokens == 4096);
  CHECK(has_note(none, "ollama.context_no_gpu"));
}

TEST_CASE("Ollama sizes against the total CUDA reports on Linux, not NVML's: from 0.30 and up to 0.11.10") {
  // From 0.30 Ollama's TotalMemory is what `llama-server --list-devices` prints (discover/llama_server.go,
  // deviceLineRegex, v0.33.0-rc2), which ggml_backend_cuda_device_get_memory takes from cudaMemGetInfo
  // (ggml-org/llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu); an RTX 5090 on Linux, b7166: "CUDA0: NVIDIA GeForce RTX 5090
  // (32106 MiB, 55372 MiB free)" (ggml-org/llama.cpp#17536; its free figure is that build's unified-memory bug).
  // server/routes.go tiers num_ctx by that total and --fit plans against the free memory: on an empty card the total
  // less the CUDA context and cuBLAS workspace the estimate counts. The catalog's 31.36 GiB is 32112.6 MiB (deviceQuery
  // 32117 MiB on driver 570.133.04); NVML's total, nvidia-smi's "32607MiB", is 501 MiB above the listed one.
  const Report fit = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.32.15",
      "gpu":"rtx-5090"})");
  REQUIRE(fit.llamacpp_fit);
  const double total_mib = static_cast<double>(fit.llamacpp_fit->free_bytes + fit.estimate.overhead) / kMiB;
  CHECK(total_mib == doctest::Approx(32106).epsilon(16.0 / 32106));
  // Up to 0.11.10 Ollama's discovery read cuMemGetInfo_v2 or cudaMemGetInfo (discover/gpu_info_nvcuda.c,
  // gpu_info_cudart.c; NVML only on Windows: gpu_linux.go's NvmlGlobs is empty). Ollama 0.5.12 on Ubuntu 24.04 with an
  // RTX 5090 (ollama/ollama#9415): 'now.total="31.4 GiB" now.free="30.9 GiB" now.used="513.4 MiB"', and sched.go's
  // "new model will fit in available VRAM in single GPU, loading ... available=33139130368": the free memory its
  // estimator sizes against. 31.36 GiB less 513.4 MiB (0.501367 GiB) is 33,134,204,884 B, 4.7 MiB below: the catalog's
  // 0.01 GiB step is 10 MiB. NVML's 32607 MiB less 513.4 MiB would be 33,652,578,714 B, 490 MiB above.
  const Report old = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.5.12",
      "gpu":"rtx-5090","memory_in_use":0.501367})");
  REQUIRE(old.estimate.ollama);
  CHECK(static_cast<double>(old.estimate.ollama->available_bytes) / kMiB ==
        doctest::Approx(33139130368.0 / kMiB).epsilon(8.0 / 31604));
}

TEST_CASE("Ollama 0.30+: the batch it passes as -b/-ub, and PredictServerVRAM") {
  // PredictServerVRAM's cache for Llama 3.1 8B (32 blocks, 8 KV heads, 4096 / 32 = 128) at 131072 tokens:
  // 2 · 32 · 8 · 128 · 131072 · 2 B = 17,179,869,184 B = 16 GiB.
  CHECK(ollama_predicted_vram(test::preset("llama-3.1-8b"), 0, 131072) == 16 * kGiB);
  CHECK(ollama_predicted_vram(test::preset("llama-3.1-8b"), 5, 131072) == 16 * kGiB + 5);
  // generationBatchForContext: above 32768 tokens 2048, above 4096 1024, else 512.
  CHECK(ollama_generation_batch({4096, 0, 0, false, true}) == 512);
  CHECK(ollama_generation_batch({32768, 0, 0, false, true}) == 1024);
  CHECK(ollama_generation_batch({32769, 0, 0, false, true}) == 2048);
  // 79.18 GiB free: 2048 needs the prediction ≤ 60 % (47.5 GiB); 48 GiB is above, but ≤ 75 % (59.4 GiB) with the
  // 768 MiB surcharge under 80 % (63.3 GiB) − 48: 1024. 64 GiB is above 80 %: 512.
  const std::uint64_t h100 = 85'018'877'624;  // 79.18 GiB, as the catalog rounds it
  CHECK(ollama_generation_batch({131072, 47 * kGiB, h100, false, true}) == 2048);
  CHECK(ollama_generation_batch({131072, 48 * kGiB, h100, false, true}) == 1024);
  CHECK(ollama_generation_batch({131072, 64 * kGiB, h100, false, true}) == 512);
  // Flash attention off on CUDA: 512, or 256 above 4096 tokens on a GPU of at most 8 GiB.
  CHECK(ollama_generation_batch({32768, 0, 24 * kGiB, true, true}) == 512);
  CHECK(ollama_generation_batch({32768, 0, 8 * kGiB, true, true}) == 256);
  CHECK(ollama_generation_batch({32768, 0, 8 * kGiB, true, false}) == 1024);  // not CUDA: by the context
  // On the H100 at 131072: Llama 3.1 8B's file (at most its 16.06 GB in bf16) + 16 GiB stays under 47.5 GiB → 2048,
  // which llama.cpp's compute buffer is then sized for.
  const Report r = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0","gpu":"h100"})");
  REQUIRE(r.estimate.llamacpp.has_value());
  CHECK(r.estimate.llamacpp->n_ubatch == 2048);
  CHECK(r.estimate.llamacpp->n_ctx == 131072);
  // The cache is llama.cpp's f16 cache: 131,072 B per token (32 layers · 2 · 8 · 128 · 2 B) × 131072 = 16 GiB.
  CHECK(r.estimate.kv_cache == 16 * kGiB);
  CHECK(has_note(r, "ollama.llama_server"));
}

TEST_CASE("Ollama 0.30+: llama-server's --fit places experts and layers but keeps the context Ollama passes") {
  // Qwen3-30B-A3B F16 (61 GB) on an RTX 4090: tier 32768 (below its 40960). Fit only changes n_ctx when it is 0
  // (llama.cpp common/fit.cpp), and Ollama always passes -c: the plan keeps 32768 and moves experts instead.
  const Report ollama = evaluate_json(
      R"({"model":"qwen3-30b-a3b","engine":"ollama","engine_version":"0.33.0","weights":"f16","gpu":"rtx-4090"})");
  REQUIRE(ollama.llamacpp_fit.has_value());
  const LlamaCppFitPlan& plan = *ollama.llamacpp_fit;
  CHECK(plan.context_set);
  CHECK(plan.context == 32768);
  CHECK(plan.context_start == 32768);
  CHECK(plan.step == LlamaFitStep::experts);
  // Every layer stays on the GPU with its cache: 48 layers · 2 · 4 KV heads · 128 · 2 B = 98,304 B per token,
  // × 32768 = 3 GiB.
  CHECK(plan.gpu_context_bytes == 3 * kGiB);
  CHECK(plan.margin_bytes == 1024 * kMiB);  // fit's own margin: no projector, no LLAMA_ARG_FIT_TARGET
  // The file alone (≈ 61 GB) is above 80 % of the 23.49 GiB: the batch stays 512.
  CHECK(ollama.estimate.llamacpp->n_ubatch == 512);
  // llama.cpp run by hand without -c starts from the training context and lowers it first.
  const Report llama = evaluate_json(R"({"model":"qwen3-30b-a3b","engine":"llamacpp","weights":"f16","gpu":"rtx-4090"})");
  REQUIRE(llama.llamacpp_fit.has_value());
  CHECK(llama.llamacpp_fit->context < 32768);
  CHECK(plan.cpu_expert_layers > llama.llamacpp_fit->cpu_expert_layers);  // the larger cache leaves less for experts
}

TEST_CASE("Ollama 0.30+: its environment is the command, never llama-server's own flags") {
  // The tier of the chosen GPU is Ollama's own default: nothing to set.
  const Report plain = evaluate_json(
      R"({"model":"qwen3-30b-a3b","engine":"ollama","engine_version":"0.33.0","weights":"f16","gpu":"rtx-4090"})");
  CHECK(plain.command == "ollama serve  # Ollama 0.33.0");
  const Report set = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0",
      "gpu":"rtx-4090","context":8192,"batch":2,"kv_dtype":"q8_0"})");
  CHECK(set.command == "OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_NUM_PARALLEL=2 OLLAMA_KV_CACHE_TYPE=q8_0 ollama serve  # Ollama 0.33.0");
  CHECK(set.command_note.text.find("/set parameter num_ctx 8192") != std::string::npos);
  // -c is num_ctx × numParallel, -np numParallel (startLlamaServer).
  CHECK(set.estimate.llamacpp->n_ctx == 16384);
  const Report off = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0",
      "context":8192,"attention":"eager"})");
  CHECK(off.command == "OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_FLASH_ATTENTION=0 ollama serve  # Ollama 0.33.0");
  // A bf16 cache goes to llama-server as it is (Ollama's SupportsKVCacheType has no caller from v0.30.0).
  const Report bf16 = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0",
      "gpu":"rtx-4090","kv_dtype":"bf16"})");
  CHECK(bf16.command == "OLLAMA_KV_CACHE_TYPE=bf16 ollama serve  # Ollama 0.33.0");
  // Without a GPU the 4096 assumed is pinned, so that the server runs what was estimated.
  const Report none = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0"})");
  CHECK(none.command == "OLLAMA_CONTEXT_LENGTH=4096 ollama serve  # Ollama 0.33.0");
  // num_gpu set: Ollama passes -ngl and fit does not run.
  const Report layers = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0",
      "gpu":"rtx-4090","gpu_layers":20})");
  CHECK_FALSE(layers.llamacpp_fit.has_value());
  CHECK(layers.command_note.text.find("/set parameter num_gpu 20") != std::string::npos);
  // A quantized cache with flash attention off: llama-server refuses to start.
  auto refused = request_from_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0",
      "kv_dtype":"q8_0","attention":"eager"})");
  REQUIRE(refused.ok());
  auto error = evaluate(test::catalog(), refused.value());
  REQUIRE_FALSE(error.ok());
  CHECK(error.error().field == "kv_dtype");
}

TEST_CASE("Ollama's versions: up to 0.11.10 and from 0.30 modelled, 0.11.11 to 0.29 refused") {
  // The projector's rule changes at v0.30.11 (limitedMMProjOffloadMemory replaced by mmprojOffloadHeadroom) and
  // v0.31.2 (LLAMA_ARG_FIT_TARGET, PR #16996, commit a6293eb51).
  CHECK(parse_ollama_version("0.30") == OllamaRule::llama_server);
  CHECK(parse_ollama_version("v0.30.10") == OllamaRule::llama_server);
  CHECK(parse_ollama_version("0.30.11") == OllamaRule::llama_server_projector_room);
  CHECK(parse_ollama_version("0.31.1") == OllamaRule::llama_server_projector_room);
  CHECK(parse_ollama_version("0.31.2") == OllamaRule::llama_server_fit_target);
  CHECK(parse_ollama_version("0.32.15") == OllamaRule::llama_server_fit_target);
  CHECK(parse_ollama_version("0.33.0-rc2") == OllamaRule::llama_server_fit_target);
  CHECK(parse_ollama_version(kOllamaVersionModelled) == InferenceOptions{}.ollama_rule);
  CHECK(parse_ollama_version("0.11.10") == OllamaRule::num_ctx_4096);
  CHECK_FALSE(parse_ollama_version("0.11.11").has_value());
  CHECK_FALSE(parse_ollama_version("0.29.9").has_value());
  auto request = request_from_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.20"})");
  REQUIRE(request.ok());
  auto refused = evaluate(test::catalog(), request.value());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "engine_version");
  CHECK(refused.error().message.id == "ollama.version_unmodelled");
  CHECK(refused.error().message.text.find("test allocations") != std::string::npos);
}

TEST_CASE("Ollama 0.30+: the report's engine is ollama, its buffers llama.cpp's") {
  const Report r = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0","gpu":"rtx-4090"})");
  CHECK(r.estimate.engine == Engine::ollama);
  CHECK_FALSE(r.estimate.ollama.has_value());  // not the old estimator's figures
  const auto answer_json = nlohmann::json::parse(
      answer(test::catalog(), R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0","gpu":"rtx-4090"})"));
  CHECK(answer_json["inputs"]["engine"] == "ollama");
  CHECK(answer_json["inputs"]["context"] == 32768);
  CHECK(answer_json["inputs"]["attention"] == "sdpa");  // --flash-attn auto, on where the GPU supports it
}

TEST_CASE("Ollama's default is the latest release read, 0.32.15; the answer names the version it assumed") {
  // v0.32.15 is the newest tag of ollama/ollama without -rc (v0.33.0 has release candidates only).
  const Report plain = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","gpu":"rtx-4090"})");
  CHECK(plain.estimate.llamacpp.has_value());  // llama-server's buffers, not the estimator's
  CHECK_FALSE(plain.estimate.ollama.has_value());
  CHECK(plain.estimate.context_tokens == 32768);  // the 23.49 GiB card's tier (above)
  const auto answer_of = [](const char* request) { return nlohmann::json::parse(answer(test::catalog(), request)); };
  CHECK(answer_of(R"({"model":"llama-3.1-8b","engine":"ollama"})")["ollama"]["engine_version"] == "0.32.15");
  CHECK(answer_of(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.11.10"})")["ollama"]["engine_version"] ==
        "0.11.10");
  CHECK(answer_of(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.30.2"})")["ollama"]["engine_version"] ==
        "0.30.2");
}

TEST_CASE("Ollama 0.30+: a vision model's projector on the GPU, and from 0.31.2 the room --fit keeps for it") {
  // Gemma 3 27B's tower and projector: 423,060,336 parameters (google/gemma-3-27b-it), an F16 mmproj of
  // 2 · 423,060,336 = 846,120,672 B (mmprojMemoryRequirement: the projector's tensors). Ollama passes --mmproj and
  // leaves the projector on the GPU; from v0.31.2 LLAMA_ARG_FIT_TARGET = ⌈(846,120,672 + 1 GiB) / MiB⌉ =
  // ⌈1830.93⌉ = 1831 MiB (llm/llama_server.go mmprojFitTargetMiB).
  constexpr std::uint64_t projector = 846'120'672ULL;
  const Report now = evaluate_json(R"({"model":"gemma-3-27b","engine":"ollama","weights":"q4_k_m","context":8192,
      "gpu":"rtx-4090"})");
  REQUIRE(now.estimate.llamacpp.has_value());
  CHECK(now.estimate.llamacpp->mmproj_bytes == projector);
  bool grouped = false;
  for (const WeightGroup& g : now.estimate.weight_detail.groups)
    grouped = grouped || (g.what == "vision tower" && g.bytes == projector && g.format == "F16");
  CHECK(grouped);
  REQUIRE(now.llamacpp_fit.has_value());
  REQUIRE(now.estimate.vision.has_value());
  // llama-server (b10488, tools/server/server-context.cpp load_model, PR #21489) adds mtmd_get_memory_usage, the
  // projector's weights and clip's compute buffer, to that target: 1831 MiB + 846,120,672 B + the buffer. The
  // projector's weights are in it twice, once in Ollama's pad and once in llama-server's (an Ollama log shows the
  // second: "srv load_model: [mtmd] estimated worst-case memory usage of mmproj is 1136.09 MiB" before "fitting
  // params to device memory", ollama/ollama#17482).
  const std::uint64_t clip = now.estimate.vision->compute_bytes;
  CHECK(clip > 0);
  CHECK(now.llamacpp_fit->margin_bytes == 1831 * kMiB + projector + clip);
  CHECK(now.llamacpp_fit->margin_holds_projector);
  CHECK(now.llamacpp_fit->projector_bytes == projector);
  CHECK(now.llamacpp_fit->gpu_bytes == now.llamacpp_fit->gpu_model_bytes + now.llamacpp_fit->gpu_context_bytes +
                                           now.llamacpp_fit->gpu_compute_bytes + projector);
  CHECK(has_note(now, "ollama.projector_gpu"));
  CHECK(has_note(now, "ollama.projector_fit_target"));
  CHECK_FALSE(has_note(now, "llamacpp.mmproj_apart"));
  // llama.cpp without --mmproj leaves the tower out: the weights differ by the projector alone.
  const Report llama = evaluate_json(R"({"model":"gemma-3-27b","engine":"llamacpp","weights":"q4_k_m","context":8192})");
  CHECK(now.estimate.weight_detail.total - llama.estimate.weight_detail.total == projector);
  // 0.30.11 to 0.31.1: the projector on the GPU and no target from Ollama; llama-server (b9840) still adds the
  // projector and clip's buffer to its own 1 GiB.
  const Report before = evaluate_json(R"({"model":"gemma-3-27b","engine":"ollama","engine_version":"0.31.1",
      "weights":"q4_k_m","context":8192,"gpu":"rtx-4090"})");
  REQUIRE(before.llamacpp_fit.has_value());
  CHECK(before.llamacpp_fit->margin_bytes == 1024 * kMiB + projector + clip);
  CHECK(before.llamacpp_fit->projector_bytes == projector);
  CHECK(before.llamacpp_fit->margin_holds_projector);
  CHECK(has_note(before, "ollama.projector_in_fit"));
  CHECK_FALSE(has_note(before, "ollama.projector_fit_target"));
  // 0.30.0 to 0.30.10 keep it on the CPU on a GPU of 10 GiB or less (limitedMMProjOffloadMemory = 10 << 30): the
  // RTX 4060's 8 GB; 0.31.1 needs only 846,120,672 B + 1 GiB there.
  const Report small = evaluate_json(R"({"model":"gemma-3-27b","engine":"ollama","engine_version":"0.30.10",
      "weights":"q4_k_m","context":8192,"gpu":"rtx-4060"})");
  CHECK(small.estimate.llamacpp->mmproj_bytes == 0);
  CHECK(has_note(small, "ollama.projector_cpu_10gib"));
  const Report room = evaluate_json(R"({"model":"gemma-3-27b","engine":"ollama","engine_version":"0.31.1",
      "weights":"q4_k_m","context":8192,"gpu":"rtx-4060"})");
  CHECK(room.estimate.llamacpp->mmproj_bytes == projector);
}

TEST_CASE("Ollama 0.30+: shouldDisableMMProjOffload's reasons, one by one") {
  const ModelSpec& gemma = test::preset("gemma-3-27b");  // 62 blocks: modelLayers 63
  REQUIRE(gemma.num_layers() == 62);
  InferenceOptions o;
  o.engine = Engine::ollama;
  const std::uint64_t required = 846'120'672ULL + kGiB;
  o.gpu_memory_bytes = required;  // "memory < requiredMemory" refuses; equal is enough
  CHECK(ollama_projector(gemma, o).place == OllamaProjectorPlace::gpu);
  CHECK(ollama_projector(gemma, o).fit_target_bytes == 1831 * kMiB);
  o.gpu_memory_bytes = required - 1;
  CHECK(ollama_projector(gemma, o).place == OllamaProjectorPlace::limited_memory);
  o.gpu_memory_bytes = 24 * kGiB;
  o.gpu_layers = 0;
  CHECK(ollama_projector(gemma, o).place == OllamaProjectorPlace::cpu_only);
  o.gpu_layers = 62;  // below BlockCount + 1
  CHECK(ollama_projector(gemma, o).place == OllamaProjectorPlace::partial_offload);
  o.gpu_layers = 63;
  CHECK(ollama_projector(gemma, o).place == OllamaProjectorPlace::gpu);
  o.gpu_layers.reset();
  // Apple's GPU is integrated (discover/llama_server.go: the Apple Silicon Metal device): off before 0.30.11 only.
  o.gpu_is_apple = true;
  o.ollama_rule = OllamaRule::llama_server;
  CHECK(ollama_projector(gemma, o).place == OllamaProjectorPlace::integrated_gpu);
  o.ollama_rule = OllamaRule::llama_server_projector_room;
  CHECK(ollama_projector(gemma, o).place == OllamaProjectorPlace::gpu);
  CHECK(ollama_projector(gemma, o).fit_target_bytes == 0);  // before 0.31.2: --fit's own margin
  // A text model has none.
  CHECK(ollama_projector(test::preset("llama-3.1-8b"), o).place == OllamaProjectorPlace::none);
}

TEST_CASE("The llama.cpp build each Ollama release bundles, as its LLAMA_CPP_VERSION says") {
  // ollama/ollama, the file LLAMA_CPP_VERSION at the tags: v0.30.0 b9452, v0.30.1 to v0.30.3 b9479, v0.30.4 b9493,
  // v0.30.5 to v0.30.8 b9509, v0.30.9 b9626, v0.30.10 b9672, v0.30.11 b9781, v0.31.0 and v0.31.1 b9840, v0.31.2 to
  // v0.32.1 b9888, v0.32.2 b10069, v0.32.3 to v0.32.5 b10091, v0.32.6 and v0.32.7 b10242, v0.32.8 and v0.32.9 b10353,
  // v0.32.10 to v0.32.13 b10380, v0.32.14 b10434, v0.32.15 b10488.
  CHECK(ollama_llamacpp_build("0.30.0") == 9452ULL);
  CHECK(ollama_llamacpp_build("0.30.3") == 9479ULL);
  CHECK(ollama_llamacpp_build("0.30.8") == 9509ULL);
  CHECK(ollama_llamacpp_build("0.30.10") == 9672ULL);
  CHECK(ollama_llamacpp_build("0.31.1") == 9840ULL);
  CHECK(ollama_llamacpp_build("v0.32.1") == 9888ULL);
  CHECK(ollama_llamacpp_build("0.32.5") == 10091ULL);
  CHECK(ollama_llamacpp_build("0.32.13") == 10380ULL);
  CHECK(ollama_llamacpp_build("0.32.15") == 10488ULL);
  CHECK_FALSE(ollama_llamacpp_build("0.11.10").has_value());  // before llama-server
  CHECK_FALSE(ollama_llamacpp_build("0.33.0").has_value());   // not read
  // Every one is from kLlamaCppProjectorInFitBuild on (assumed to hold PR #21489: opened 2026-04-05, merged 2026-05-20
  // by a note, b9297 late May 2026): llama-server keeps the projector's room in --fit's target under every Ollama
  // modelled.
  CHECK(*ollama_llamacpp_build("0.30.0") >= kLlamaCppProjectorInFitBuild);
  // The answer names it beside Ollama's own version.
  const Report r = evaluate_json(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.31.1","gpu":"rtx-4090"})");
  REQUIRE(r.estimate.llamacpp.has_value());
  CHECK(r.estimate.llamacpp->build == 9840ULL);
  const auto j = nlohmann::json::parse(answer(
      test::catalog(), R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.31.1","gpu":"rtx-4090"})"));
  CHECK(j["ollama"]["engine_version"] == "0.31.1");
  CHECK(j["ollama"]["llamacpp_version"] == "b9840");
}

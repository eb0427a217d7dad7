// A vision model's encoder: its own line of the breakdown (the tower's weights as each engine loads them), the
// tower's shape read from config.json, the images' size and tokens, and the compute peak as llama.cpp's clip and
// transformers size it; vLLM's profile run with the largest images, SGLang's multimodal fraction, and Ollama 0.11.10's
// projector weights and graph.
#include <cmath>   // std::abs
#include <string>  // std::string

#include <nlohmann/json.hpp>

#include "engine_reports.hpp"
#include "json/answer.hpp"
#include "memory/vision.hpp"
#include "questions/evaluate.hpp"

using namespace vramfit;

namespace {

using test::evaluate_json;
using test::has_note;

double relative(double got, double want) { return std::abs(got - want) / want; }

}  // namespace

TEST_CASE("the vision towers' shapes are read from config.json") {
  // Qwen3.6-27B's vision_config: hidden_size 1152, depth 27, num_heads 16, intermediate_size 4304, patch_size 16,
  // spatial_merge_size 2, temporal_patch_size 2. llama.cpp prints the same tower from its mmproj file
  // (unsloth/Qwen3.6-27B-MTP-GGUF mmproj-BF16.gguf, load_hparams: "n_embd: 1152", "n_head: 16", "n_ff: 4304",
  // "n_layer: 27", "patch_size: 16", "n_merge: 2").
  const auto& qwen = test::preset("qwen3.6-27b").vision;
  CHECK(qwen.schema == "qwen");
  CHECK(qwen.hidden_size == 1152);
  CHECK(qwen.heads == 16);
  CHECK(qwen.intermediate_size == 4304);
  CHECK(qwen.layers == 27);
  CHECK(qwen.patch_size == 16);
  CHECK(qwen.merge == 2);
  CHECK(qwen.temporal_patch == 2);
  CHECK(qwen.image_size == 0);  // native resolution
  // Gemma 3: SigLIP at 896² in 14-pixel patches = 64² = 4096 patches, pooled to mm_tokens_per_image 256 (4 × 4 per
  // token; the Gemma 3 report: "the 896 × 896 image … condensed to 256 tokens").
  const auto& gemma3 = test::preset("gemma-3-27b").vision;
  CHECK(gemma3.schema == "siglip");
  CHECK(gemma3.image_size == 896);
  CHECK(gemma3.patch_size == 14);
  CHECK(gemma3.tokens_per_image == 256);
  CHECK(gemma3.merge == 4);
  CHECK(gemma3.heads == 16);
  // Gemma 4: 16-pixel patches pooled 3 × 3 (pooling_kernel_size), at most 280 tokens (default_output_length; the
  // wrapper's vision_soft_tokens_per_image 280).
  const auto& gemma4 = test::preset("gemma-4-31b").vision;
  CHECK(gemma4.schema == "gemma4");
  CHECK(gemma4.merge == 3);
  CHECK(gemma4.tokens_per_image == 280);
  CHECK(gemma4.layers == 27);
  // Kimi K2.5's MoonViT: vt_hidden_size 1152, 27 layers, 16 heads, patch 14, merge_kernel_size [2, 2].
  const auto& kimi = test::preset("kimi-k2.5").vision;
  CHECK(kimi.schema == "moonvit");
  CHECK(kimi.hidden_size == 1152);
  CHECK(kimi.heads == 16);
  CHECK(kimi.patch_size == 14);
  CHECK(kimi.merge == 2);
  // A text model has none.
  CHECK(test::preset("llama-3.1-8b").vision.patch_size == 0);
}

TEST_CASE("an image's patches and tokens") {
  // Qwen: each side rounded to whole 32-pixel merged patches (smart_resize, factor patch_size × merge):
  // 1024 × 768 → 64 × 48 = 3072 patches, / 2² = 768 tokens.
  const auto& qwen = test::preset("qwen3.6-27b").vision;
  const ImagePatches p = image_patches(qwen, 1024, 768);
  CHECK(p.width == 1024);
  CHECK(p.height == 768);
  CHECK(p.patches == 3072);
  CHECK(p.tokens == 768);
  // 1000 × 700 → round(1000 / 32) = 31 → 992, round(700 / 32) = 22 → 704: 62 × 44 = 2728 patches, 682 tokens.
  const ImagePatches q = image_patches(qwen, 1000, 700);
  CHECK(q.width == 992);
  CHECK(q.height == 704);
  CHECK(q.patches == 2728);
  CHECK(q.tokens == 682);
  // Gemma 3 resizes every image to 896²: 4096 patches, 256 tokens whatever the size.
  const ImagePatches g = image_patches(test::preset("gemma-3-27b").vision, 3000, 2000);
  CHECK(g.patches == 4096);
  CHECK(g.tokens == 256);
  // Gemma 4 keeps at most 280 tokens: 48-pixel merged patches, a 2048² image scaled down until ≤ 280 tokens.
  const ImagePatches g4 = image_patches(test::preset("gemma-4-31b").vision, 2048, 2048);
  CHECK(g4.tokens <= 280);
  CHECK(g4.tokens > 250);
}

TEST_CASE("image sizes read as WIDTHxHEIGHT or one side") {
  CHECK(parse_image_size("1024x768") == std::pair<std::uint64_t, std::uint64_t>{1024, 768});
  CHECK(parse_image_size("1024X768") == std::pair<std::uint64_t, std::uint64_t>{1024, 768});
  CHECK(parse_image_size("1024×768") == std::pair<std::uint64_t, std::uint64_t>{1024, 768});
  CHECK(parse_image_size("896") == std::pair<std::uint64_t, std::uint64_t>{896, 896});
  CHECK_FALSE(parse_image_size("0"));
  CHECK_FALSE(parse_image_size("1024x"));
  CHECK_FALSE(parse_image_size("x768"));
  CHECK_FALSE(parse_image_size("16385"));
  CHECK_FALSE(parse_image_size("1024x768x3"));
  CHECK_FALSE(parse_image_size("big"));
}

TEST_CASE("the vision encoder has its own line: the tower's weights apart from the language model's") {
  // Gemma 3 27B's tower and projector: 423,060,336 parameters (416,866,032 SigLIP + 6,194,304 projector, the
  // preset's count pinned to keras-hub), in bf16 under vLLM: 2 × 423,060,336 = 846,120,672 B.
  constexpr std::uint64_t tower = 846'120'672ULL;
  const Report vllm = evaluate_json(R"({"model":"gemma-3-27b","engine":"vllm","context":8192,"gpu":"h100-80gb"})");
  REQUIRE(vllm.estimate.vision.has_value());
  CHECK(vllm.estimate.vision->weights_bytes == tower);
  CHECK(vllm.estimate.vision->format == "bf16");
  // The line also holds what vLLM's profile run adds for its dummy images (the test below).
  CHECK(vllm.estimate.vision_encoder == tower + vllm.estimate.vision->compute_bytes);
  CHECK(vllm.estimate.weights + tower == vllm.estimate.weight_detail.total);
  CHECK(vllm.estimate.total == vllm.estimate.weights + vllm.estimate.vision_encoder + vllm.estimate.kv_cache +
                                   vllm.estimate.state_cache + vllm.estimate.activations + vllm.estimate.overhead +
                                   vllm.estimate.allocator_reserve);
  CHECK(has_note(vllm, "vision.vllm_profile"));
  // The JSON's breakdown carries the line; its explanation follows the weights'.
  const auto json = nlohmann::json::parse(answer(test::catalog(), R"({"model":"gemma-3-27b","engine":"vllm","gpu":"h100-80gb"})"));
  CHECK(json["breakdown"]["vision_encoder"] == tower + json["vision"]["compute_bytes"].get<std::uint64_t>());
  CHECK(json["vision"]["weights_bytes"] == tower);
  CHECK(json["explanations"][1]["key"] == "vision_encoder");
  // llama.cpp without --mmproj: the tower is a file apart, not loaded (0 B), and said so.
  const Report plain = evaluate_json(R"({"model":"gemma-3-27b","engine":"llamacpp","weights":"q4_k_m"})");
  REQUIRE(plain.estimate.vision.has_value());
  CHECK(plain.estimate.vision->apart);
  CHECK(plain.estimate.vision_encoder == 0);
  // With --mmproj: the mmproj file in F16, the same 846,120,672 B, on the GPU.
  const Report mmproj = evaluate_json(R"({"model":"gemma-3-27b","engine":"llamacpp","weights":"q4_k_m","mmproj":true})");
  REQUIRE(mmproj.estimate.vision.has_value());
  CHECK(mmproj.estimate.vision->weights_bytes == tower);
  CHECK(mmproj.estimate.vision->format == "F16");
  CHECK(mmproj.estimate.weights == plain.estimate.weights);
  // mlx-lm drops the tower when it loads the model (gemma3.py sanitize: weights.pop("vision_tower"),
  // weights.pop("multi_modal_projector")): neither weights nor a line.
  const Report mlx = evaluate_json(R"({"model":"gemma-3-27b","engine":"mlx","weights":"mlx-4bit",
      "gpu":"apple-m2-ultra-192gb"})");
  REQUIRE(mlx.estimate.vision.has_value());
  CHECK(mlx.estimate.vision->apart);
  CHECK(mlx.estimate.vision_encoder == 0);
  CHECK(mlx.estimate.weights + tower == mlx.estimate.weight_detail.total);
  CHECK(has_note(mlx, "vision.mlx_text_only"));
  // A text model has no line.
  const Report text = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-80gb"})");
  CHECK_FALSE(text.estimate.vision.has_value());
  CHECK(text.estimate.vision_encoder == 0);
}

TEST_CASE("llama.cpp's clip compute buffer, reserved at load for the warm-up image") {
  // unsloth/Qwen3.6-27B-MTP-GGUF, mmproj-BF16.gguf on CUDA with flash attention (a llama-server log, 2026-05-14):
  //   warmup: warmup with image size = 1472 x 1472
  //   alloc_compute_meta:      CUDA0 compute buffer size =   248.10 MiB
  //   warmup: flash attention is enabled
  // 1472 = 46 × 16 × 2 (clip.cpp: set_warmup_n_tokens(46*46)); 92² = 8464 patches × (4304 + 3 × 1152) floats ×
  // 4 B = 262,722,560 B = 250.55 MiB, 1 % above the buffer ggml-alloc reserved.
  const Report r = evaluate_json(R"({"model":"qwen3.6-27b","engine":"llamacpp","weights":"q4_k_m","mmproj":true,
      "context":8192})");
  REQUIRE(r.estimate.vision.has_value());
  const VisionEncoder& v = *r.estimate.vision;
  CHECK(v.image_width == 1472);
  CHECK(v.image_height == 1472);
  CHECK(v.patches_per_image == 8464);
  CHECK(v.compute_bytes == 262'722'560ULL);
  CHECK(relative(static_cast<double>(v.compute_bytes), 248.10 * kMiB) < 0.015);
  CHECK(r.estimate.vision_encoder == v.weights_bytes + v.compute_bytes);
  CHECK(has_note(r, "vision.size_engine"));
  // A smaller image fits inside the warm-up's reservation; a larger one grows it: 2048² → 128² = 16384 patches,
  // 4096 tokens (clip.cpp's most, set_limit_image_tokens(8, 4096)): 16384 × 7760 × 4 = 508,559,360 B.
  const Report small = evaluate_json(R"({"model":"qwen3.6-27b","engine":"llamacpp","weights":"q4_k_m","mmproj":true,
      "context":8192,"images":1,"image_size":"512"})");
  CHECK(small.estimate.vision->compute_bytes == 262'722'560ULL);
  const Report large = evaluate_json(R"({"model":"qwen3.6-27b","engine":"llamacpp","weights":"q4_k_m","mmproj":true,
      "context":8192,"images":1,"image_size":"2048x2048"})");
  CHECK(large.estimate.vision->tokens_per_image == 4096);
  CHECK(large.estimate.vision->compute_bytes == 508'559'360ULL);
  // -fa off keeps the 16 heads' patches² scores: 8464² × 16 × 4 = 4,584,914,944 B more at the warm-up image.
  const Report no_fa = evaluate_json(R"({"model":"qwen3.6-27b","engine":"llamacpp","weights":"q4_k_m","mmproj":true,
      "context":8192,"attention":"eager"})");
  CHECK(no_fa.estimate.vision->compute_bytes == 262'722'560ULL + 4'584'914'944ULL);
}

TEST_CASE("transformers runs the tower once over every image's patches") {
  // Gemma 3 27B, 2 images (896², 4096 patches each), bf16, SDPA: 2 × 4096 × (2 × 1152 + 2 × 4304) × 2 B
  // = 178,782,208 B at the MLP of one SigLIP layer.
  const Report r = evaluate_json(R"({"model":"gemma-3-27b","engine":"transformers","images":2,"context":8192})");
  REQUIRE(r.estimate.vision.has_value());
  CHECK(r.estimate.vision->compute_bytes == 178'782'208ULL);
  CHECK(r.estimate.vision->tokens_per_image == 256);
  CHECK(has_note(r, "vision.tokens_in_context"));
  // Eager attention adds each image's 16 heads' 4096² scores and softmax: 2 × 2 × 16 × 4096² × 2 B = 2,147,483,648 B.
  const Report eager = evaluate_json(R"({"model":"gemma-3-27b","engine":"transformers","images":2,"context":8192,
      "attention":"eager"})");
  CHECK(eager.estimate.vision->compute_bytes == 178'782'208ULL + 2'147'483'648ULL);
  // No images: the weights alone.
  const Report none = evaluate_json(R"({"model":"gemma-3-27b","engine":"transformers","context":8192})");
  CHECK(none.estimate.vision->compute_bytes == 0);
  // 40 images of 256 tokens are 10,240 tokens: more than an 8192-token context, said.
  const Report many = evaluate_json(R"({"model":"gemma-3-27b","engine":"transformers","images":40,"context":8192})");
  CHECK(has_note(many, "vision.tokens_over_context"));
}

TEST_CASE("images are refused for a model without a vision tower, and a size must read") {
  auto answer_of = [](const char* request) { return nlohmann::json::parse(answer(test::catalog(), request)); };
  const auto text = answer_of(R"({"model":"llama-3.1-8b","images":1})");
  CHECK(text["ok"] == false);
  CHECK(text["error"]["field"] == "images");
  const auto size = answer_of(R"({"model":"gemma-3-27b","images":1,"image_size":"big"})");
  CHECK(size["ok"] == false);
  CHECK(size["error"]["field"] == "image_size");
  // --mmproj is llama.cpp's: refused for another engine by the inputs' one rule.
  const auto mmproj = answer_of(R"({"model":"gemma-3-27b","engine":"vllm","mmproj":true})");
  CHECK(mmproj["ok"] == false);
}

TEST_CASE("vLLM's profile run encodes the processor's largest images and keeps their embeddings through the dummy batch") {
  // vLLM 0.27 (main of 2026-08-09, d6941300f), vllm/multimodal/encoder_budget.py: MultiModalBudget's
  // encoder_compute_budget = encoder_cache_size = max(max_num_batched_tokens, max_tokens_per_mm_item)
  // (vllm/v1/core/encoder_cache_manager.py compute_mm_encoder_budget); _get_max_items: items = max(1, min(budget //
  // tokens, max_num_seqs × max(1, min(limit, max_model_len // tokens)))); get_dummy_encoder_profile_inputs repeats
  // one dummy image of the largest size that many times. profile_run (gpu_model_runner.py; gpu/mm/
  // encoder_runner.py profile_encoder_cache) encodes them in one batch, keeps the outputs in the encoder cache
  // ("tmp_i") through _dummy_run and the sampler, and clears it after: the torch peak is max(encoder forward,
  // embeddings + the language model's peak).
  // Qwen3.6-27B (Qwen3.5's tower: patch 16, merge 2; preprocessor size.longest_edge 16,777,216 = 16384 × 32²):
  // Qwen2VLProcessingInfo.get_image_size_with_most_features factors 16384 merged patches as 128 × 128, a
  // 4096 × 4096 image of 16384 tokens, the budget max(8192, 16384) = 16384 tokens and 16384 // 16384 = 1 item, as a
  // vLLM log of a Qwen3.5-family hybrid model prints it (github.com/aivrar/vllm-windows-build issue 17,
  // encoder_runner.py:131): "Encoder cache will be initialized with a budget of 16384 tokens, and profiled with 1
  // image items of the maximum feature size."; the same line in a Qwen3.6-27B NVFP4 log on an A6000
  // (github.com/noonghunna/club-3090 issue 1047, gpu_model_runner.py:6465).
  const Report h100 = evaluate_json(R"({"model":"qwen3.6-27b","engine":"vllm","context":32768,"gpu":"h100-80gb"})");
  REQUIRE(h100.estimate.vllm.has_value());
  REQUIRE(h100.estimate.vllm->encoder_profile.has_value());
  const VllmEncoderProfile& p = *h100.estimate.vllm->encoder_profile;
  CHECK(p.modelled);
  CHECK(p.tokens_per_item == 16384);
  CHECK(p.budget_tokens == 16384);
  CHECK(p.items == 1);
  CHECK(p.width == 4096);
  CHECK(p.height == 4096);
  CHECK(p.patches_per_item == 65536);
  // The tower's forward (qwen3_vl.py Qwen3_VisionBlock, no grad; vLLM e7df23228, whose log lines a 0.24.0 log
  // prints): the pixel values, 3 × 2 × 16² = 1536 a patch, and at the MLP the block's input kept for the residual,
  // the normed input (x + self.mlp(self.norm2(x)): Qwen3_VisionMLP.forward's argument until it returns),
  // linear_fc1's output and the activation's, and the position embeddings the forward's encoder_metadata keeps
  // through every block (fast_pos_embed_interpolate, 1152 wide): 3 × 1152 + 2 × 4304 = 12064; in bf16:
  // 65536 × (12064 + 1536) × 2 = 1,782,579,200 B. The embeddings: 16384 tokens × 5120 (the text width; no deepstack
  // levels in Qwen3.5) × 2 = 167,772,160 B.
  CHECK(p.mlp_width == 12064);
  CHECK(p.pixel_values == 1536);
  CHECK(p.encoder_peak_bytes == 1'782'579'200ULL);
  CHECK(p.embeddings_bytes == 167'772'160ULL);
  // On an H100 the sampler's dummy run (1024 rows of the 248,320-token vocabulary) outweighs the encoder: the
  // images add their embeddings alone, and the vision encoder's line holds them beside the tower's weights.
  CHECK(p.language_peak_bytes > p.encoder_peak_bytes);
  CHECK(p.added_bytes == p.embeddings_bytes);
  REQUIRE(h100.estimate.vision.has_value());
  CHECK(h100.estimate.vision->compute_bytes == p.added_bytes);
  CHECK(h100.estimate.vision_encoder == h100.estimate.vision->weights_bytes + p.added_bytes);
  CHECK(h100.estimate.vllm->profile_activation_bytes == h100.estimate.activations + p.added_bytes);
  CHECK(has_note(h100, "vision.vllm_profile_one"));
  CHECK(has_note(h100, "vision.vllm_video"));
  // With one sequence the language model's peak is small and the encoder's forward is the profile's peak:
  // the images add encoder − language peak.
  const Report one = evaluate_json(R"({"model":"qwen3.6-27b","engine":"vllm","context":32768,"gpu":"h100-80gb",
      "max_num_seqs":1,"max_num_batched_tokens":2048})");
  const VllmEncoderProfile& q = *one.estimate.vllm->encoder_profile;
  CHECK(q.items == 1);
  CHECK(q.language_peak_bytes == one.estimate.activations);
  CHECK(q.language_peak_bytes + q.embeddings_bytes < q.encoder_peak_bytes);
  CHECK(q.added_bytes == q.encoder_peak_bytes - q.language_peak_bytes);
  // Its pool is smaller by exactly that than without the tower (--language-model-only: neither built nor loaded,
  // interfaces.py _mark_tower_model), which also frees the tower's weights.
  const Report text = evaluate_json(R"({"model":"qwen3.6-27b","engine":"vllm","context":32768,"gpu":"h100-80gb",
      "max_num_seqs":1,"max_num_batched_tokens":2048,"language_model_only":true})");
  REQUIRE(text.estimate.vision.has_value());
  CHECK(text.estimate.vision->apart);
  CHECK(text.estimate.vision_encoder == 0);
  CHECK_FALSE(text.estimate.vllm->encoder_profile.has_value());
  CHECK(text.estimate.vllm->kv_capacity_bytes ==
        one.estimate.vllm->kv_capacity_bytes + q.added_bytes + one.estimate.vision->weights_bytes);
  CHECK(has_note(text, "vision.vllm_language_only"));
}

TEST_CASE("vLLM's profile for a fixed-size tower: as many images as the encoder budget holds") {
  // Gemma 3 27B: 896² images (pan-and-scan off, gemma3_mm.py get_num_image_tokens: (0 crops + 1) × 256 tokens).
  // On an H100 vllm serve batches 8192 tokens: the budget max(8192, 256) holds 8192 // 256 = 32 images, each 64² =
  // 4096 patches of 3 × 14² = 588 pixel values; SigLIP's MLP (siglip.py SiglipMLP: fc1, act, fc2) holds the
  // residual, the normed input (SiglipEncoderLayer keeps it in hidden_states while self.mlp runs), fc1's output and
  // the activation's, 2 × 1152 + 2 × 4304 = 10912 a patch: 32 × 4096 × (10912 + 588) × 2 B = 3,014,656,000 B;
  // embeddings 32 × 256 × 5376 × 2 B = 88,080,384 B.
  const Report r = evaluate_json(R"({"model":"gemma-3-27b","engine":"vllm","context":8192,"gpu":"h100-80gb"})");
  const VllmEncoderProfile& p = *r.estimate.vllm->encoder_profile;
  CHECK(p.tokens_per_item == 256);
  CHECK(p.budget_tokens == 8192);
  CHECK(p.items == 32);
  CHECK(p.patches_per_item == 4096);
  CHECK(p.encoder_peak_bytes == 3'014'656'000ULL);
  CHECK(p.embeddings_bytes == 88'080'384ULL);
  // The decoder's bound: max_num_seqs 4 × min(limit 999, 1024 // 256 = 4) = 16 images; with 2 images a request
  // (--limit-mm-per-prompt '{"image": 2}') 4 × 2 = 8.
  const Report seqs = evaluate_json(R"({"model":"gemma-3-27b","engine":"vllm","context":1024,"gpu":"h100-80gb",
      "max_num_seqs":4})");
  CHECK(seqs.estimate.vllm->encoder_profile->items == 16);
  const Report two = evaluate_json(R"({"model":"gemma-3-27b","engine":"vllm","context":1024,"gpu":"h100-80gb",
      "max_num_seqs":4,"images":2})");
  CHECK(two.estimate.vllm->encoder_profile->limit == 2);
  CHECK(two.estimate.vllm->encoder_profile->items == 8);
  CHECK_FALSE(has_note(two, "vision.vllm_video"));  // Gemma 3 takes images only
}

TEST_CASE("vLLM's dummy image takes a smaller size given, and the command line says so") {
  // dummy_inputs.py _get_dummy_images: width = min(width, override), height likewise, from ImageDummyOptions in
  // --limit-mm-per-prompt; the budget and the item count stay the largest image's (get_mm_max_tokens_per_item).
  // 1024 × 768 for Qwen3.6: 64 × 48 = 3072 patches, 768 tokens.
  const std::string request = R"({"model":"qwen3.6-27b","engine":"vllm","context":32768,"gpu":"h100-80gb","images":1,
      "image_size":"1024x768"})";
  const Report r = evaluate_json(request);
  const VllmEncoderProfile& p = *r.estimate.vllm->encoder_profile;
  CHECK(p.tokens_per_item == 16384);
  CHECK(p.items == 1);
  CHECK(p.patches_per_item == 3072);
  CHECK(p.tokens_encoded == 768);
  CHECK(p.embeddings_bytes == 768ULL * 5120 * 2);
  const auto json = nlohmann::json::parse(answer(test::catalog(), request));
  const std::string command = json["command"]["text"];
  CHECK(command.find(R"(--limit-mm-per-prompt '{"image": {"count": 1, "width": 1024, "height": 768}}')") !=
        std::string::npos);
  const auto plain = nlohmann::json::parse(answer(test::catalog(), R"({"model":"qwen3.6-27b","engine":"vllm",
      "context":32768,"gpu":"h100-80gb","images":3})"));
  CHECK(std::string(plain["command"]["text"]).find(R"(--limit-mm-per-prompt '{"image": 3}')") != std::string::npos);
  const auto text = nlohmann::json::parse(answer(test::catalog(), R"({"model":"qwen3.6-27b","engine":"vllm",
      "context":32768,"gpu":"h100-80gb","language_model_only":true})"));
  CHECK(std::string(text["command"]["text"]).find("--language-model-only") != std::string::npos);
  // vLLM without its tower reads no images: refused.
  const auto refused = nlohmann::json::parse(answer(test::catalog(), R"({"model":"qwen3.6-27b","engine":"vllm",
      "images":1,"language_model_only":true})"));
  CHECK(refused["ok"] == false);
  CHECK(refused["error"]["field"] == "images");
}

TEST_CASE("SGLang's default fraction for a multimodal model: adjust_mem_fraction_for_vlm") {
  // sgl-project/sglang python/sglang/srt/server_args.py ServerArgs._handle_gpu_memory_settings (from 0.5.3): with the
  // default fraction, `if model_config.is_multimodal: self.adjust_mem_fraction_for_vlm(model_config)` (later
  // arg_groups/memory_hook.py, the same rule unless SGLANG_ENABLE_POST_CAPTURE_KV_SIZING): 0.95 × clamp(1 − 0.1 ×
  // (ratio − 1), 0.8, 1.05), ratio = getattr(vision_config, "num_hidden_layers", 24) × getattr(vision_config,
  // "hidden_size", 1024)² / (24 × 1024²).
  // Gemma 3 (SigLIP: 27 layers of 1152): 27 × 1152² / (24 × 1024²) = 1.423828125 → 0.95 × 0.9576171875.
  CHECK(sglang_vlm_fraction_factor(test::preset("gemma-3-27b").vision) == doctest::Approx(0.909736328125));
  // Kimi K2.5's MoonViT is 27 layers of 1152 too. A published run log (test_sglang.cpp: sglang serve
  // moonshotai/Kimi-K2.5 --tp 8, v0.5.8.post1 on 8 × MI355X) prints mem_fraction_static=0.8260405859375: the
  // 0.5.3 rule's round(…, 3) = 0.908 for that GPU times the factor, 0.908 × 0.909736328125 = 0.8260405859375.
  CHECK(sglang_vlm_fraction_factor(test::preset("kimi-k2.5").vision) == doctest::Approx(0.909736328125));
  CHECK(0.908 * sglang_vlm_fraction_factor(test::preset("kimi-k2.5").vision) ==
        doctest::Approx(0.8260405859375).epsilon(1e-12));
  // Qwen3.5's vision config names its layers depth (sglang/srt/configs/qwen3_vl.py Qwen3VLVisionConfig): 24 stands
  // for them; 1152² / 1024² = 1.265625 → 0.95 × 0.9734375.
  CHECK(sglang_vlm_fraction_factor(test::preset("qwen3.6-27b").vision) == doctest::Approx(0.924765625));
  // An H100's default (0.83 at 81,559 MiB, test_sglang.cpp) becomes it × 0.909736328125 for Gemma 3.
  const Report r = evaluate_json(R"({"model":"gemma-3-27b","engine":"sglang","context":8192,"gpu":"h100-80gb"})");
  REQUIRE(r.estimate.sglang.has_value());
  const double plain = sglang_defaults(SglangRule::with_prefill_graphs, r.estimate.sglang->driver_total_bytes / kMiB, 1,
                                       1, true).mem_fraction_static;
  CHECK(plain == doctest::Approx(0.83).epsilon(0.01));
  CHECK(r.estimate.sglang->vlm_factor == doctest::Approx(0.909736328125));
  CHECK(r.estimate.sglang->mem_fraction_static == doctest::Approx(plain * 0.909736328125));
  CHECK(has_note(r, "sglang.vision_fraction"));
  CHECK(has_note(r, "vision.sglang_encoder"));
  // A fraction given is SGLang's as given.
  const Report given = evaluate_json(R"({"model":"gemma-3-27b","engine":"sglang","context":8192,"gpu":"h100-80gb",
      "mem_fraction_static":0.8})");
  CHECK(given.estimate.sglang->mem_fraction_static == doctest::Approx(0.8));
}

TEST_CASE("Ollama up to 0.11.10 counts the projector's weights and graph with the output layer") {
  // Ollama v0.11.10 llm/memory.go estimateGPULayers: ollamaEngineProjectorWeights, ollamaEngineProjectorGraph =
  // f.VisionGraphSize(); memoryLastLayer = memoryLayerOutput + both, placed after the blocks. fs/ggml/ggml.go
  // VisionGraphSize sums the "v." tensors and, for gemma3, graphSize = 4 × (image_size² × num_channels +
  // embedding_length × patch_size + patches² × head_count), patches = (896 / 14)² = 4096:
  // 4 × (896² × 3 + 1152 × 14 + 4096² × 16) = 1,083,440,128 B. A gemma3:12b log (github.com/atineiatte/
  // deep-research-at-home issue 14, Ollama's runner --ollama-engine) prints projector.weights="795.9 MiB"
  // projector.graph="1.0 GiB". Gemma 3's SigLIP is the same in every size: 416,866,032 parameters without the "mm."
  // projection (6,194,304 for 27B: 1152 × 5376 + 1152), 833,732,064 B in F16 = 795.1 MiB; the log's 0.8 MiB more are
  // the norms and biases Ollama's GGUF keeps in F32.
  const Report r = evaluate_json(R"({"model":"gemma-3-27b","engine":"ollama","engine_version":"0.11.10",
      "weights":"q4_k_m","context":4096,"gpu":"h100-80gb"})");
  REQUIRE(r.estimate.ollama.has_value());
  const OllamaEstimate& c = *r.estimate.ollama;
  CHECK(c.projector_weights_bytes == 833'732'064ULL);
  CHECK(relative(static_cast<double>(c.projector_weights_bytes), 795.9 * kMiB) < 0.002);
  CHECK(c.projector_graph_bytes == 1'083'440'128ULL);
  CHECK(c.projector_on_gpu);
  REQUIRE(r.estimate.vision.has_value());
  CHECK(r.estimate.vision->weights_bytes == 833'732'064ULL);
  CHECK(r.estimate.vision->compute_bytes == 1'083'440'128ULL);
  CHECK(r.estimate.vision_encoder == 833'732'064ULL + 1'083'440'128ULL);
  // The layers hold the language model alone: the tower is no longer folded into them.
  // (62 blocks share the rest equally, rounded down.)
  const WeightBytes& wd = r.estimate.weight_detail;
  const std::uint64_t blocks = wd.total - wd.embedding - wd.output - 2 * 423'060'336ULL;
  CHECK(c.weights_repeating_bytes <= blocks);
  CHECK(c.weights_repeating_bytes + 62 > blocks);
  // memory.required.full grows by both, with the output layer.
  CHECK(c.required_full_bytes >= c.weights_repeating_bytes + c.output_bytes + c.kv_bytes +
                                     c.projector_weights_bytes + c.projector_graph_bytes);
  // A GPU too small for the output layer with the projector keeps both in system RAM.
  const Report small = evaluate_json(R"({"model":"gemma-3-27b","engine":"ollama","engine_version":"0.11.10",
      "weights":"q4_k_m","context":4096,"gpu":"rtx-4060-ti-16gb"})");
  REQUIRE(small.estimate.vision.has_value());
  CHECK(small.estimate.vision->apart);
  CHECK(small.estimate.vision_encoder == 0);
  CHECK(has_note(small, "vision.ollama_projector_ram"));
}

TEST_CASE("Ollama 0.11.10's memory.required.full with the projector, against a gemma3:12b log") {
  // github.com/atineiatte/deep-research-at-home issue 14 (Ollama's runner --ollama-engine, --ctx-size 8192
  // --parallel 2: num_ctx 4096 × 2), its offload line: memory.required.full="10.5 GiB" memory.required.kv="1.3 GiB"
  // memory.weights.repeating="6.0 GiB" memory.weights.nonrepeating="787.5 MiB" memory.graph.full="519.5 MiB"
  // memory.graph.partial="1.3 GiB" projector.weights="795.9 MiB" projector.graph="1.0 GiB". google/gemma-3-12b-it's
  // config.json (48 layers, 8 KV heads of 256, window 1024, SigLIP 27 × 1152 at 896² in 14-pixel patches).
  // The log ran on the CPU (library=cpu), which keeps no minimum; the CUDA one counted here (457 MiB) comes off.
  // Without the projector's 795 MiB and 1.0 GiB the full figure would be 8.7 GiB.
  const Report r = evaluate_json(R"({"engine":"ollama","engine_version":"0.11.10","context":4096,"batch":2,
      "weights":"q4_k_m","gpu":"h100-80gb","config":{"model_type":"gemma3","mm_tokens_per_image":256,
      "text_config":{"model_type":"gemma3_text","hidden_size":3840,"intermediate_size":15360,"num_hidden_layers":48,
      "num_attention_heads":16,"num_key_value_heads":8,"head_dim":256,"sliding_window":1024,
      "sliding_window_pattern":6,"vocab_size":262208},"vision_config":{"model_type":"siglip_vision_model",
      "hidden_size":1152,"intermediate_size":4304,"num_hidden_layers":27,"num_attention_heads":16,"patch_size":14,
      "image_size":896}}})");
  const OllamaEstimate& c = *r.estimate.ollama;
  const auto gib = [](std::uint64_t b) { return static_cast<double>(b) / static_cast<double>(kGiB); };
  CHECK(gib(c.kv_bytes) == doctest::Approx(1.3).epsilon(0.05));
  CHECK(static_cast<double>(c.graph_full_bytes) / kMiB == doctest::Approx(519.5).epsilon(0.002));
  CHECK(static_cast<double>(c.output_bytes) / kMiB == doctest::Approx(787.5).epsilon(0.002));
  CHECK(static_cast<double>(c.projector_weights_bytes) / kMiB == doctest::Approx(795.9).epsilon(0.002));
  CHECK(gib(c.projector_graph_bytes) == doctest::Approx(1.0).epsilon(0.05));
  CHECK(gib(c.required_full_bytes - c.minimum_bytes) == doctest::Approx(10.5).epsilon(0.005));
  CHECK(gib(c.required_full_bytes - c.minimum_bytes - c.projector_weights_bytes - c.projector_graph_bytes) < 8.8);
}

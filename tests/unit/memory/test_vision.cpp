// A vision model's encoder: its own line of the breakdown (the tower's weights as each engine loads them), the
// tower's shape read from config.json, the images' size and tokens, and the compute peak as llama.cpp's clip and
// transformers size it.
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

bool has_note(const Report& report, const std::string& id) {
  for (const auto& note : report.estimate.notes)
    if (note.id == id) return true;
  return false;
}

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
  CHECK(vllm.estimate.vision_encoder == tower);
  CHECK(vllm.estimate.weights + tower == vllm.estimate.weight_detail.total);
  CHECK(vllm.estimate.total == vllm.estimate.weights + vllm.estimate.vision_encoder + vllm.estimate.kv_cache +
                                   vllm.estimate.state_cache + vllm.estimate.activations + vllm.estimate.overhead +
                                   vllm.estimate.allocator_reserve);
  CHECK(has_note(vllm, "vision.compute_not_modelled"));
  // The JSON's breakdown carries the line; its explanation follows the weights'.
  const auto json = nlohmann::json::parse(answer(test::catalog(), R"({"model":"gemma-3-27b","engine":"vllm","gpu":"h100-80gb"})"));
  CHECK(json["breakdown"]["vision_encoder"] == tower);
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

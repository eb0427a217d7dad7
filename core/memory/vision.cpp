#include "memory/vision.hpp"

#include <algorithm>  // std::min, std::max
#include <charconv>   // std::from_chars

#include "memory/engines/engines.hpp"
#include "memory/inference.hpp"
#include "util/units.hpp"  // ceil_div

namespace vramfit {

namespace {

std::optional<std::uint64_t> side_of(std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > kMaxImageSide) return std::nullopt;
  return v;
}

// llama.cpp tools/mtmd/clip.cpp (load_hparams, PROJECTOR_TYPE_QWEN2VL / QWEN25VL / QWEN3VL): at most 4096 tokens an
// image (set_limit_image_tokens(8, 4096)), and the compute buffer reserved at load for a warm-up image of 46 × 46
// merged tokens (set_warmup_n_tokens(46*46), "avoid OOM on warmup"); a fixed-size tower warms up at its image_size.
constexpr std::uint64_t kLlamaQwenWarmupTokensPerSide = 46;
constexpr std::uint64_t kLlamaQwenMaxTokens = 4096;

// A side rounded to whole merged patches (Qwen's smart_resize rounds to a multiple of patch_size × merge), at
// least one.
std::uint64_t rounded(std::uint64_t side, std::uint64_t unit) {
  const std::uint64_t n = (side + unit / 2) / unit;
  return std::max<std::uint64_t>(n, 1) * unit;
}

// The size the engine runs an image at when none is given, and whether it is its own (said in the note).
std::pair<std::uint64_t, std::uint64_t> default_size(const ModelSpec::VisionTower& t, Engine engine) {
  if (t.image_size) return {t.image_size, t.image_size};
  const std::uint64_t unit = t.patch_size * t.merge;
  if (ggml_engine(engine) && t.schema == "qwen") {
    const std::uint64_t side = kLlamaQwenWarmupTokensPerSide * unit;
    return {side, side};
  }
  if (t.tokens_per_image) {  // the largest image the processor keeps: tokens_per_image merged patches, square
    std::uint64_t n = 1;
    while ((n + 1) * (n + 1) <= t.tokens_per_image) ++n;
    return {n * unit, n * unit};
  }
  // No cap in config.json (it is in preprocessor_config.json, not read): 1024 × 1024, said in the note.
  return {1024, 1024};
}

// f32 intermediates (ggml computes the clip graph in f32); -fa on keeps no patches² scores.
std::uint64_t llamacpp_clip_peak(const ModelSpec::VisionTower& t, std::uint64_t patches, bool flash_attn) {
  const std::uint64_t mlp = patches * (t.intermediate_size + 3 * t.hidden_size) * 4;
  const std::uint64_t scores = flash_attn ? 0 : patches * patches * t.heads * 4;
  return mlp + scores;
}

// transformers' vision tower forward under torch.no_grad, every image of the request in one pixel_values batch:
// at the MLP the layer's input (kept for the residual), its normed copy, fc1's output and the activation's output,
// in the model's dtype; eager attention adds each image's heads × patches² scores and their softmax.
std::uint64_t transformers_tower_peak(const ModelSpec::VisionTower& t, std::uint64_t images, std::uint64_t patches,
                                      std::uint64_t dtype_bytes, bool eager) {
  const std::uint64_t all = images * patches;
  const std::uint64_t mlp = all * (2 * t.hidden_size + 2 * t.intermediate_size) * dtype_bytes;
  const std::uint64_t scores = eager ? images * 2 * t.heads * patches * patches * dtype_bytes : 0;
  return mlp + scores;
}

}  // namespace

std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_image_size(std::string_view text) {
  const auto x = text.find_first_of("xX×");
  if (x == std::string_view::npos) {
    const auto side = side_of(text);
    if (!side) return std::nullopt;
    return std::pair{*side, *side};
  }
  // "×" is two bytes in UTF-8: the height starts after the whole separator.
  const std::size_t after = text.substr(x).starts_with("×") ? x + std::string_view("×").size() : x + 1;
  const auto w = side_of(text.substr(0, x)), h = side_of(text.substr(after));
  if (!w || !h) return std::nullopt;
  return std::pair{*w, *h};
}

ImagePatches image_patches(const ModelSpec::VisionTower& t, std::uint64_t width, std::uint64_t height) {
  ImagePatches p;
  if (!t.patch_size || !width || !height) return p;
  const std::uint64_t merge = std::max<std::uint64_t>(t.merge, 1);
  if (t.image_size) {  // resized to the tower's square
    p.width = p.height = t.image_size;
    const std::uint64_t side = t.image_size / t.patch_size;
    p.patches = side * side;
    p.tokens = t.tokens_per_image ? t.tokens_per_image : p.patches / (merge * merge);
    return p;
  }
  const std::uint64_t unit = t.patch_size * merge;
  p.width = rounded(width, unit);
  p.height = rounded(height, unit);
  p.patches = (p.width / t.patch_size) * (p.height / t.patch_size);
  p.tokens = p.patches / (merge * merge);
  if (t.tokens_per_image && p.tokens > t.tokens_per_image) {
    // Scaled down, aspect kept, to the processor's most tokens (Gemma 4's max_soft_tokens).
    while (p.tokens > t.tokens_per_image && (p.width > unit || p.height > unit)) {
      if (p.width >= p.height) p.width -= unit;
      else p.height -= unit;
      p.patches = (p.width / t.patch_size) * (p.height / t.patch_size);
      p.tokens = p.patches / (merge * merge);
    }
  }
  return p;
}

void add_vision_encoder(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o) {
  // Ollama before 0.30 places the projector by its own memory.go estimate (its notes say where): not split here.
  if (!spec.vision_params || spec.is_bare() || e.ollama) return;
  VisionEncoder v;
  v.params = spec.vision_params;
  for (const WeightGroup& g : e.weight_detail.groups)
    if (g.what == "vision tower") {
      v.weights_bytes += g.bytes;
      v.format = g.format;
    }
  // llama.cpp loads the mmproj file only with --mmproj, onto the GPU unless --no-mmproj-offload; the file is F16
  // (convert_hf_to_gguf.py --mmproj writes the tower in f16 by default), whatever the language model's weights.
  if (e.llamacpp) {
    v.weights_bytes = e.llamacpp->mmproj_bytes;
    v.format = "F16";
  }
  v.apart = o.engine == Engine::llamacpp && !o.mmproj_offload;
  if (v.apart) v.format.clear();
  // A checkpoint read from its files has no vision-tower group: its tensors stay in the weights' own lines.
  v.weights_bytes = std::min(v.weights_bytes, e.weights);
  e.weights -= v.weights_bytes;
  // mlx-lm runs the language model alone: each multimodal model's sanitize() drops vision_tower and
  // multi_modal_projector (mlx_lm/models/gemma3.py, qwen3_vl.py); images are mlx-vlm's.
  if (o.engine == Engine::mlx) {
    v.apart = true;
    v.weights_bytes = 0;
    v.format.clear();
  }

  const ModelSpec::VisionTower& t = spec.vision;
  const bool shaped = t.patch_size && t.hidden_size && t.intermediate_size && t.heads;
  v.images = o.images;
  if (shaped && !v.apart) {
    v.size_from_engine = !o.image_width;
    const auto [w, h] = v.size_from_engine ? default_size(t, o.engine) : std::pair{o.image_width, o.image_height};
    ImagePatches p = image_patches(t, w, h);
    if (ggml_engine(o.engine) && t.schema == "qwen" && p.tokens > kLlamaQwenMaxTokens) {
      // clip.cpp scales the image down to image_max_pixels (4096 merged tokens).
      while (p.tokens > kLlamaQwenMaxTokens) p = image_patches(t, p.width * 15 / 16, p.height * 15 / 16);
    }
    v.image_width = p.width;
    v.image_height = p.height;
    v.patches_per_image = p.patches;
    v.tokens_per_image = p.tokens;
    if (ggml_engine(o.engine)) {
      // The buffer reserved at load for the warm-up image, grown by ggml-alloc when a larger image comes; one image
      // at a time (mtmd encodes each image's chunk by itself).
      const auto [ww, wh] = default_size(t, o.engine);
      const ImagePatches warm = image_patches(t, ww, wh);
      const bool fa = o.attention == Attention::sdpa;
      v.compute_bytes = std::max(llamacpp_clip_peak(t, warm.patches, fa), llamacpp_clip_peak(t, p.patches, fa));
      v.compute_formula = fa ? message("vision.compute_llamacpp",
                                       "max(warm-up image, largest image) patches × (n_ff + 3 × n_embd) × 4 B (f32)")
                             : message("vision.compute_llamacpp_scores",
                                       "max(warm-up image, largest image) patches × (n_ff + 3 × n_embd) × 4 B (f32) + "
                                       "patches² × n_head × 4 B (-fa off)");
      v.compute_source = message("vision.source_llamacpp",
                                 "llama.cpp tools/mtmd/clip.cpp: warmup() reserves the compute buffer for "
                                 "warmup_image_size (\"alloc_compute_meta: CUDA0 compute buffer size\")");
    } else if (o.engine == Engine::transformers && o.images) {
      const std::uint64_t bytes = std::max<std::uint64_t>(dtype_info(e.weights_dtype).bits / 8, 1);
      v.compute_bytes = transformers_tower_peak(t, o.images, p.patches, bytes, o.attention == Attention::eager);
      v.compute_formula = o.attention == Attention::eager
                              ? message("vision.compute_transformers_scores",
                                        "images × patches × (2 × hidden + 2 × intermediate) × dtype bytes + images × "
                                        "2 × heads × patches² × dtype bytes (eager)")
                              : message("vision.compute_transformers",
                                        "images × patches × (2 × hidden + 2 × intermediate) × dtype bytes");
      v.compute_source = message("vision.source_transformers",
                                 "transformers: the vision tower runs once over every image's patches (pixel_values) "
                                 "under torch.no_grad; one layer's tensors are alive at a time");
    }
  }
  v.bytes = v.weights_bytes + v.compute_bytes;
  e.vision_encoder = v.bytes;
  e.vision = std::move(v);
}

Explanation vision_encoder_explanation(const InferenceEstimate& e, const InferenceOptions& o) {
  const VisionEncoder& v = *e.vision;
  const MessageArg params = arg::count("params", v.params), bytes = arg::count("amount", v.bytes);
  const Message llamacpp_source = message("explain.vision_encoder.source_llamacpp",
                                          "llama.cpp convert_hf_to_gguf.py --mmproj writes the vision tower to its "
                                          "own file (F16 by default); tools/mtmd loads it beside the model");
  if (v.apart && o.engine == Engine::mlx)
    return {"vision_encoder",
            message("explain.vision_encoder.formula_mlx", "0: mlx-lm loads the language model alone"),
            message("explain.vision_encoder.values_apart", "{params} parameters not loaded: 0 B", {params}),
            message("explain.vision_encoder.source_mlx",
                    "mlx-lm mlx_lm/models (gemma3.py, qwen3_vl.py): sanitize() drops vision_tower and "
                    "multi_modal_projector")};
  if (v.apart)
    return {"vision_encoder",
            message("explain.vision_encoder.formula_apart",
                    "0: llama-server loads the vision projector (the mmproj file) only with --mmproj"),
            message("explain.vision_encoder.values_apart", "{params} parameters not loaded: 0 B", {params}),
            llamacpp_source};
  const MessageArg format = arg::text("format", v.format);
  const Message source = o.engine == Engine::llamacpp || o.engine == Engine::ollama
                             ? llamacpp_source
                             : message("explain.vision_encoder.source_checkpoint",
                                       "the engine loads the vision tower and projector from the checkpoint in their "
                                       "own dtype, beside the language model");
  if (!v.compute_bytes)
    return {"vision_encoder",
            message("explain.vision_encoder.formula",
                    "the vision tower's and projector's parameters × their format's bytes"),
            message("explain.vision_encoder.values", "{params} parameters in {format}: {amount} B", {params, format, bytes}),
            source};
  return {"vision_encoder",
          message("explain.vision_encoder.formula_compute",
                  "the vision tower's and projector's parameters × their format's bytes + its compute peak: {compute}",
                  {arg::message("compute", v.compute_formula)}),
          message("explain.vision_encoder.values_compute",
                  "{params} parameters in {format}: {weights} B + {patches} patches of a {width}×{height} image: "
                  "{compute} B = {amount} B",
                  {params, format, arg::count("weights", v.weights_bytes), arg::count("patches", v.patches_per_image),
                   arg::digits("width", v.image_width), arg::digits("height", v.image_height),
                   arg::count("compute", v.compute_bytes), bytes}),
          message("explain.vision_encoder.source_compute", "{weights}; {compute}",
                  {arg::message("weights", source), arg::message("compute", v.compute_source)})};
}

// What the image side assumes: the images' tokens inside the context, the size the engine's own, what is not counted.
void add_vision_notes(std::vector<Message>& notes, const InferenceEstimate& e, const InferenceOptions& o) {
  if (!e.vision) {
    if (o.images && e.ollama)
      notes.push_back(message("vision.ollama_estimator",
                              "Ollama up to 0.11.10 sizes the projector by its own estimate: the images' compute is "
                              "not counted."));
    return;
  }
  const VisionEncoder& v = *e.vision;
  if (v.apart && o.engine == Engine::mlx) {
    notes.push_back(message("vision.mlx_text_only",
                            "mlx-lm loads this model's language model alone (it drops the vision tower): images "
                            "need mlx-vlm, which is not modelled."));
    return;
  }
  if (v.apart) {
    if (o.images)
      notes.push_back(o.images == 1
                          ? message("vision.image_needs_mmproj",
                                    "llama-server reads images only with --mmproj (the vision projector's file): "
                                    "without it the image is not counted.")
                          : message("vision.images_need_mmproj",
                                    "llama-server reads images only with --mmproj (the vision projector's file): "
                                    "without it the {images} images are not counted.",
                                    {arg::count("images", o.images)}));
    return;
  }
  if (!v.patches_per_image) {
    if (o.images)
      notes.push_back(message("vision.shape_unknown",
                              "The vision tower's shape (patch size, widths, heads) is not in this config: the "
                              "images' compute peak and tokens are not counted."));
    return;
  }
  if (v.size_from_engine && (o.images || ggml_engine(o.engine)))
    notes.push_back(message("vision.size_engine",
                            "Images at {width}×{height} pixels, the size {engine} sizes its vision buffers for "
                            "(give the image size to change it).",
                            {arg::digits("width", v.image_width), arg::digits("height", v.image_height),
                             arg::text("engine", std::string(engine_title(o.engine)))}));
  if (o.images) {
    const std::uint64_t tokens = v.tokens_per_image * o.images;
    if (tokens <= o.context_tokens)
      notes.push_back(o.images == 1
                          ? message("vision.token_in_context",
                                    "The image takes {tokens} of the {context} tokens of context (and their KV "
                                    "cache): the context given holds it.",
                                    {arg::count("tokens", tokens), arg::count("context", o.context_tokens)})
                          : message("vision.tokens_in_context",
                                    "{images} images of {per_image} tokens each take {tokens} of the {context} tokens "
                                    "of context (and their KV cache): the context given holds them.",
                                    {arg::count("images", o.images), arg::count("per_image", v.tokens_per_image),
                                     arg::count("tokens", tokens), arg::count("context", o.context_tokens)}));
    else
      notes.push_back(message("vision.tokens_over_context",
                              "The images' {tokens} tokens exceed the {context}-token context: raise the context.",
                              {arg::count("tokens", tokens), arg::count("context", o.context_tokens)}));
  }
  if (o.engine == Engine::vllm || o.engine == Engine::sglang)
    notes.push_back(message("vision.compute_not_modelled",
                            "{engine}'s compute peak for images (its profiling run of the vision encoder with the "
                            "largest images the processor allows, and the encoder cache) is not counted.",
                            {arg::text("engine", std::string(engine_title(o.engine)))}));
}

}  // namespace vramfit

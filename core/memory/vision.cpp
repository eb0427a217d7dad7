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

// The elements one patch holds alive at the tower's MLP in vLLM's forward (no grad): the layer's input, kept for
// the residual, beside fc1's output and the activation's (siglip.py SiglipMLP, qwen3_vl.py Qwen3_VisionMLP: fc1,
// act, fc2). vLLM's own tower classes also keep the normed input until the MLP returns: the caller holds it
// (SiglipEncoderLayer: hidden_states = self.layer_norm2(...) while self.mlp runs; Qwen3_VisionBlock:
// self.mlp(self.norm2(x)), the argument Qwen3_VisionMLP.forward keeps); vLLM at e7df23228, the code its 0.24.0 log
// lines match. Gemma 4's tower is transformers' (gemma4_mm.py AutoModel.from_config): its gated MLP holds gate_up's
// 2 × intermediate and the product. Tensor parallel splits the intermediate width.
std::uint64_t vllm_mlp_width(const ModelSpec::VisionTower& t, std::uint64_t tp) {
  const std::uint64_t inner = ceil_div(t.intermediate_size, std::max<std::uint64_t>(tp, 1));
  if (t.schema == "gemma4") return t.hidden_size + 3 * inner;
  // Qwen3-VL's and Qwen3.5's tower also keeps its position embeddings (fast_pos_embed_interpolate, hidden wide) in
  // the encoder_metadata its forward holds through every block.
  return (t.schema == "qwen" ? 3 : 2) * t.hidden_size + 2 * inner;
}

}  // namespace

VllmEncoderProfile vllm_encoder_profile(const ModelSpec& spec, const InferenceOptions& o, std::uint64_t batched_tokens,
                                        std::uint64_t max_num_seqs, std::uint64_t dtype_bytes,
                                        std::uint64_t language_peak_bytes) {
  VllmEncoderProfile p;
  const ModelSpec::VisionTower& t = spec.vision;
  p.language_peak_bytes = language_peak_bytes;
  p.limit = o.images ? o.images : kVllmDefaultMmLimit;
  const bool shaped = t.patch_size && t.hidden_size && t.intermediate_size && t.heads;
  const bool known = t.image_size || t.schema == "qwen" || (t.schema == "gemma4" && t.tokens_per_image);
  if (!shaped || !known || !spec.vision_params) return p;
  p.modelled = true;
  const std::uint64_t merge = std::max<std::uint64_t>(t.merge, 1), unit = t.patch_size * merge;
  // The processor's largest image: a fixed-size tower's square; Qwen's 128 × 128 merged patches; Gemma 4's
  // max_soft_tokens (default_output_length) at the largest square that keeps them.
  ImagePatches largest;
  if (t.image_size) {
    largest = image_patches(t, t.image_size, t.image_size);
  } else if (t.schema == "qwen") {
    std::uint64_t side = 1;
    while ((side + 1) * (side + 1) <= kVllmQwenMaxImageTokens) ++side;
    largest = image_patches(t, side * unit, side * unit);
  } else {
    largest = image_patches(t, kMaxImageSide, kMaxImageSide);
  }
  p.tokens_per_item = largest.tokens;
  if (!p.tokens_per_item) {
    p.modelled = false;
    return p;
  }
  // encoder_budget.py MultiModalBudget._get_max_items and compute_mm_encoder_budget (vllm/v1/core/
  // encoder_cache_manager.py): both budgets max(max_num_batched_tokens, tokens_per_item); as many items as the
  // budget holds, at most max_num_seqs × the items a prompt may carry (chunked prefill is on), at least one.
  p.budget_tokens = std::max(batched_tokens, p.tokens_per_item);
  const std::uint64_t per_prompt = std::max<std::uint64_t>(1, std::min(p.limit, o.context_tokens / p.tokens_per_item));
  p.items = std::max<std::uint64_t>(1, std::min(p.budget_tokens / p.tokens_per_item, max_num_seqs * per_prompt));
  // A size given becomes the dummy image ({"image": {"width", "height"}} in --limit-mm-per-prompt), which vLLM
  // only lets shrink it (dummy_inputs.py _get_dummy_images: min(width, override)); the budget stays the largest's.
  ImagePatches dummy = largest;
  if (o.image_width && !t.image_size)
    dummy = image_patches(t, std::min(o.image_width, largest.width), std::min(o.image_height, largest.height));
  p.width = dummy.width;
  p.height = dummy.height;
  p.patches_per_item = dummy.patches;
  p.tokens_encoded = dummy.tokens;
  p.mlp_width = vllm_mlp_width(t, o.tensor_parallel);
  p.element_bytes = dtype_bytes;
  p.pixel_values = 3 * std::max<std::uint64_t>(t.temporal_patch, 1) * t.patch_size * t.patch_size;
  const std::uint64_t patches = p.items * p.patches_per_item;
  p.encoder_peak_bytes = patches * (p.mlp_width + p.pixel_values) * dtype_bytes;
  // embed_multimodal's output: each token at the language model's width (Qwen3-VL's deepstack levels beside it).
  p.embeddings_bytes = p.items * p.tokens_encoded * spec.hidden_size * (1 + t.deepstack) * dtype_bytes;
  const std::uint64_t peak = std::max(p.encoder_peak_bytes, p.embeddings_bytes + language_peak_bytes);
  p.added_bytes = peak - language_peak_bytes;
  return p;
}

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

namespace {

// Ollama up to 0.11.10: its estimate's projector weights and graph, on the GPU with the output layer or not at all
// (e.weights holds the language model's layers alone). False where its estimate has no projector.
bool ollama_projector(VisionEncoder& v, const OllamaEstimate& c, const InferenceOptions& o) {
  if (!c.projector_weights_bytes) return false;
  v.apart = !c.projector_on_gpu && c.planned;
  v.format = v.apart ? "" : "F16";
  v.weights_bytes = v.apart ? 0 : c.projector_weights_bytes;
  v.compute_bytes = v.apart ? 0 : c.projector_graph_bytes;
  v.images = o.images;
  return true;
}

// The tower's weights as the engine loads them, taken out of e.weights.
void tower_weights(VisionEncoder& v, InferenceEstimate& e, const InferenceOptions& o) {
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
  // vLLM --language-model-only took the tower out of the weights already (add_vllm_memory).
  if (o.engine == Engine::vllm && o.language_model_only) {
    v.apart = true;
    v.weights_bytes = 0;
    v.format.clear();
  }
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
}

// clip.cpp's compute buffer: reserved at load for the warm-up image, grown by ggml-alloc when a larger image comes;
// one image at a time (mtmd encodes each image's chunk by itself).
void llamacpp_clip_compute(VisionEncoder& v, const ModelSpec::VisionTower& t, const ImagePatches& p,
                           const InferenceOptions& o) {
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
}

// vLLM's profile run with its largest dummy images (engines/vllm: VllmEncoderProfile).
void vllm_profile_compute(VisionEncoder& v, const VllmEncoderProfile& vp, const ModelSpec::VisionTower& t,
                          const InferenceOptions& o) {
  v.size_from_engine = !o.image_width || t.image_size;
  v.image_width = vp.width;
  v.image_height = vp.height;
  v.patches_per_image = vp.patches_per_item;
  v.tokens_per_image = vp.tokens_encoded;
  v.compute_bytes = vp.added_bytes;
  v.compute_formula = message("vision.compute_vllm",
                              "max(encoder: items × patches × (MLP width + pixel values) × dtype bytes, "
                              "embeddings: items × tokens × hidden × dtype bytes + the language model's peak) − "
                              "the language model's peak");
  v.compute_source = message("vision.source_vllm",
                             "vLLM 0.27 profile_run: MultiModalBudget's dummy images (encoder_budget.py), "
                             "encoded in one batch and kept in the encoder cache through the dummy batch and "
                             "the sampler (gpu_model_runner.py, gpu/mm/encoder_runner.py)");
}

// transformers: the tower's one pass over every image's patches.
void transformers_compute(VisionEncoder& v, const ModelSpec::VisionTower& t, const ImagePatches& p,
                          const InferenceEstimate& e, const InferenceOptions& o) {
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

// The images' compute peak as the engine sizes it, for a tower whose shape the config gives.
void image_compute(VisionEncoder& v, const InferenceEstimate& e, const ModelSpec::VisionTower& t,
                   const InferenceOptions& o) {
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
  if (ggml_engine(o.engine)) llamacpp_clip_compute(v, t, p, o);
  else if (e.vllm && e.vllm->encoder_profile && e.vllm->encoder_profile->modelled)
    vllm_profile_compute(v, *e.vllm->encoder_profile, t, o);
  else if (o.engine == Engine::transformers && o.images) transformers_compute(v, t, p, e, o);
}

}  // namespace

void add_vision_encoder(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o) {
  if (!spec.vision_params || spec.is_bare()) return;
  VisionEncoder v;
  v.params = spec.vision_params;
  if (e.ollama) {
    if (!ollama_projector(v, *e.ollama, o)) return;
  } else {
    tower_weights(v, e, o);
    const ModelSpec::VisionTower& t = spec.vision;
    v.images = o.images;
    if (t.patch_size && t.hidden_size && t.intermediate_size && t.heads && !v.apart) image_compute(v, e, t, o);
  }
  v.bytes = v.weights_bytes + v.compute_bytes;
  e.vision_encoder = v.bytes;
  e.vision = std::move(v);
}

namespace {

Message mmproj_source() {
  return message("explain.vision_encoder.source_llamacpp",
                 "llama.cpp convert_hf_to_gguf.py --mmproj writes the vision tower to its own file (F16 by default); "
                 "tools/mtmd loads it beside the model");
}

Explanation ollama_projector_explanation(const OllamaEstimate& c, const VisionEncoder& v) {
  const MessageArg weights = arg::count("weights", c.projector_weights_bytes);
  const MessageArg graph = arg::count("graph", c.projector_graph_bytes);
  return {"vision_encoder",
          message("explain.vision_encoder.formula_ollama",
                  "Ollama's projector: the vision tower's \"v.\" tensors + VisionGraphSize's graph, placed with the "
                  "output layer"),
          v.apart ? message("explain.vision_encoder.values_ollama_apart",
                            "{weights} B + {graph} B, in system RAM with the output layer: 0 B on the GPU",
                            {weights, graph})
                  : message("explain.vision_encoder.values_ollama", "{weights} B + {graph} B = {amount} B",
                            {weights, graph, arg::count("amount", v.bytes)}),
          message("explain.vision_encoder.source_ollama",
                  "Ollama v0.11.10 llm/memory.go estimateGPULayers (projectorWeights, projectorGraph in "
                  "memoryLastLayer) and fs/ggml/ggml.go VisionGraphSize; the log's projector.weights and "
                  "projector.graph")};
}

// A tower the engine does not load: mlx-lm's language model alone, vLLM's --language-model-only, llama-server
// without --mmproj.
Explanation not_loaded_explanation(const VisionEncoder& v, Engine engine) {
  const Message values =
      message("explain.vision_encoder.values_apart", "{params} parameters not loaded: 0 B", {arg::count("params", v.params)});
  if (engine == Engine::mlx)
    return {"vision_encoder", message("explain.vision_encoder.formula_mlx", "0: mlx-lm loads the language model alone"),
            values,
            message("explain.vision_encoder.source_mlx",
                    "mlx-lm mlx_lm/models (gemma3.py, qwen3_vl.py): sanitize() drops vision_tower and "
                    "multi_modal_projector")};
  if (engine == Engine::vllm)
    return {"vision_encoder",
            message("explain.vision_encoder.formula_vllm_language_only",
                    "0: vLLM --language-model-only builds no vision tower"),
            values,
            message("explain.vision_encoder.source_vllm_language_only",
                    "vLLM 0.27 vllm/model_executor/models/interfaces.py _mark_tower_model: the tower is skipped when "
                    "--limit-mm-per-prompt is 0 for all its modalities, as --language-model-only sets it")};
  return {"vision_encoder",
          message("explain.vision_encoder.formula_apart",
                  "0: llama-server loads the vision projector (the mmproj file) only with --mmproj"),
          values, mmproj_source()};
}

// The figures of a tower with a compute peak: vLLM's profile batch, else one image's patches.
Message compute_values(const InferenceEstimate& e, const VisionEncoder& v) {
  const MessageArg params = arg::count("params", v.params), bytes = arg::count("amount", v.bytes);
  const MessageArg format = arg::text("format", v.format);
  if (e.vllm && e.vllm->encoder_profile && e.vllm->encoder_profile->modelled) {
    const VllmEncoderProfile& p = *e.vllm->encoder_profile;
    return message("explain.vision_encoder.values_vllm",
                   "{params} parameters in {format}: {weights} B + max({items} × {patches} × ({mlp} + {pixels}) × "
                   "{element} B = {encoder} B, {embeddings} B + {language} B) − {language} B = {compute} B; "
                   "{amount} B",
                   {params, format, arg::count("weights", v.weights_bytes), arg::count("items", p.items),
                    arg::count("patches", p.patches_per_item), arg::count("mlp", p.mlp_width),
                    arg::count("pixels", p.pixel_values), arg::count("element", p.element_bytes),
                    arg::count("encoder", p.encoder_peak_bytes), arg::count("embeddings", p.embeddings_bytes),
                    arg::count("language", p.language_peak_bytes), arg::count("compute", v.compute_bytes), bytes});
  }
  return message("explain.vision_encoder.values_compute",
                 "{params} parameters in {format}: {weights} B + {patches} patches of a {width}×{height} image: "
                 "{compute} B = {amount} B",
                 {params, format, arg::count("weights", v.weights_bytes), arg::count("patches", v.patches_per_image),
                  arg::digits("width", v.image_width), arg::digits("height", v.image_height),
                  arg::count("compute", v.compute_bytes), bytes});
}

}  // namespace

Explanation vision_encoder_explanation(const InferenceEstimate& e, const InferenceOptions& o) {
  const VisionEncoder& v = *e.vision;
  if (e.ollama) return ollama_projector_explanation(*e.ollama, v);
  if (v.apart) return not_loaded_explanation(v, o.engine);
  const Message source = o.engine == Engine::llamacpp || o.engine == Engine::ollama
                             ? mmproj_source()
                             : message("explain.vision_encoder.source_checkpoint",
                                       "the engine loads the vision tower and projector from the checkpoint in their "
                                       "own dtype, beside the language model");
  if (!v.compute_bytes)
    return {"vision_encoder",
            message("explain.vision_encoder.formula",
                    "the vision tower's and projector's parameters × their format's bytes"),
            message("explain.vision_encoder.values", "{params} parameters in {format}: {amount} B",
                    {arg::count("params", v.params), arg::text("format", v.format), arg::count("amount", v.bytes)}),
            source};
  return {"vision_encoder",
          message("explain.vision_encoder.formula_compute",
                  "the vision tower's and projector's parameters × their format's bytes + its compute peak: {compute}",
                  {arg::message("compute", v.compute_formula)}),
          compute_values(e, v),
          message("explain.vision_encoder.source_compute", "{weights}; {compute}",
                  {arg::message("weights", source), arg::message("compute", v.compute_source)})};
}

namespace {

// What vLLM's profile run with images assumes, and what it leaves out.
void add_vllm_vision_notes(std::vector<Message>& notes, const ModelSpec& spec, const VllmEncoderProfile& p) {
  if (!p.modelled) {
    notes.push_back(message("vision.vllm_profile_unknown",
                            "vLLM profiles this model's vision encoder with its processor's largest images before it "
                            "sizes the KV cache; that size is not known here, so the encoder's peak and the encoder "
                            "cache are not counted and the KV cache shown is high by them."));
    return;
  }
  const std::vector<MessageArg> args = {arg::count("items", p.items), arg::digits("width", p.width),
                                        arg::digits("height", p.height), arg::count("tokens", p.tokens_encoded),
                                        arg::count("budget", p.budget_tokens),
                                        arg::gib("added_bytes", p.added_bytes, 2)};
  notes.push_back(p.items == 1
                      ? message("vision.vllm_profile_one",
                                "vLLM's start-up profile encodes one dummy image of {width}×{height} pixels ({tokens} "
                                "tokens; encoder budget {budget} tokens) and keeps its embeddings while it profiles "
                                "the language model: {added_bytes} more comes out of the KV cache "
                                "(--language-model-only skips this and the vision tower).",
                                {args[1], args[2], args[3], args[4], args[5]})
                      : message("vision.vllm_profile",
                                "vLLM's start-up profile encodes {items} dummy images of {width}×{height} pixels at "
                                "once ({tokens} tokens each; encoder budget {budget} tokens) and keeps their "
                                "embeddings while it profiles the language model: {added_bytes} more comes out of the "
                                "KV cache (--language-model-only skips this and the vision tower).",
                                args));
  // Qwen's and Gemma 4's processors take videos too: vLLM profiles whichever modality's item has the most tokens.
  if (spec.vision.schema == "qwen" || spec.vision.schema == "gemma4")
    notes.push_back(message("vision.vllm_video",
                            "vLLM also takes videos for this model and profiles with the modality whose item has the "
                            "most tokens; a video profile is not modelled (a video limit of 0 in --limit-mm-per-prompt "
                            "keeps it to images)."));
}

}  // namespace

namespace {

// Ollama 0.11.10's projector: where its estimate puts it, and what it leaves out.
void add_ollama_projector_notes(std::vector<Message>& notes, const OllamaEstimate& c, const VisionEncoder& v,
                                const InferenceOptions& o) {
  if (v.apart)
    notes.push_back(message("vision.ollama_projector_ram",
                            "Ollama's estimate keeps the vision projector ({projector_bytes} with its graph) in "
                            "system RAM with the output layer: images are encoded on the CPU.",
                            {arg::gib("projector_bytes", c.projector_weights_bytes + c.projector_graph_bytes, 2)}));
  if (!c.projector_graph_known)
    notes.push_back(message("vision.ollama_graph_unknown",
                            "Ollama's estimate has no graph for this vision tower (VisionGraphSize knows Gemma 3, "
                            "Mistral 3, Qwen2.5-VL and Llama 3.2 Vision): only its weights are counted."));
  else if (o.images)
    notes.push_back(message("vision.ollama_estimator",
                            "Ollama's estimate sizes the projector's graph for one image at the tower's size, "
                            "whatever the images' number and size."));
}

// A tower the engine does not load: why, and what images then are.
void add_not_loaded_notes(std::vector<Message>& notes, const InferenceOptions& o) {
  if (o.engine == Engine::mlx) {
    notes.push_back(message("vision.mlx_text_only",
                            "mlx-lm loads this model's language model alone (it drops the vision tower): images "
                            "need mlx-vlm, which is not modelled."));
    return;
  }
  if (o.engine == Engine::vllm) {
    notes.push_back(message("vision.vllm_language_only",
                            "vLLM runs the language model alone (--language-model-only): the vision tower is neither "
                            "loaded nor profiled, and requests with images are refused."));
    return;
  }
  if (o.images)
    notes.push_back(o.images == 1
                        ? message("vision.image_needs_mmproj",
                                  "llama-server reads images only with --mmproj (the vision projector's file): "
                                  "without it the image is not counted.")
                        : message("vision.images_need_mmproj",
                                  "llama-server reads images only with --mmproj (the vision projector's file): "
                                  "without it the {images} images are not counted.",
                                  {arg::count("images", o.images)}));
}

// The images' tokens inside the context.
void add_image_token_notes(std::vector<Message>& notes, const VisionEncoder& v, const InferenceOptions& o) {
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

}  // namespace

// What the image side assumes: the images' tokens inside the context, the size the engine's own, what is not counted.
void add_vision_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceEstimate& e,
                      const InferenceOptions& o) {
  if (!e.vision) return;
  const VisionEncoder& v = *e.vision;
  if (e.ollama) return add_ollama_projector_notes(notes, *e.ollama, v, o);
  if (v.apart) return add_not_loaded_notes(notes, o);
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
  if (o.images) add_image_token_notes(notes, v, o);
  if (o.engine == Engine::sglang)
    notes.push_back(message("vision.sglang_encoder",
                            "SGLang runs the vision encoder in the memory it keeps out of its pool (1 − "
                            "mem_fraction_static); the encoder's peak for the images is not counted beside it."));
  if (e.vllm && e.vllm->encoder_profile) add_vllm_vision_notes(notes, spec, *e.vllm->encoder_profile);
}

}  // namespace vramfit

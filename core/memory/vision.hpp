#pragma once
// A vision model's image side as the engine holds it: the encoder's weights (the vision tower and its projector, in
// the format the engine loads them) and, for the request's images, the encoder's compute peak. One line of the
// breakdown, "vision encoder", beside the language model's weights.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/message.hpp"

namespace vramfit {

struct VisionEncoder {
  std::uint64_t params = 0;         // the tower and projector's parameters (ModelSpec::vision_params)
  std::uint64_t weights_bytes = 0;  // what the engine loads of them onto the GPU; 0 where it keeps them apart
  std::string format;               // the format they are loaded in ("bf16", "F16"); empty when not loaded
  bool apart = false;               // llama.cpp without --mmproj (or with --no-mmproj-offload): not on the GPU
  std::uint64_t compute_bytes = 0;  // the encoder's activation peak for the request's images
  std::uint64_t bytes = 0;          // the line: weights_bytes + compute_bytes

  // The images the compute peak is sized for, and what one of them becomes.
  std::uint64_t images = 0;             // per request (the engine profiles with this many at once)
  std::uint64_t image_width = 0;        // pixels, after the engine's resizing
  std::uint64_t image_height = 0;
  bool size_from_engine = false;        // no size given: the engine's own (profiling or fixed) size
  std::uint64_t patches_per_image = 0;  // what the tower's layers run over
  std::uint64_t tokens_per_image = 0;   // what the language model gets, inside the context
  Message compute_formula;              // how the engine sizes compute_bytes
  Message compute_source;
};

// "1024x768" (width × height) or "1024" (a square), each side 1 to kMaxImageSide pixels.
inline constexpr std::uint64_t kMaxImageSide = 16384;
std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_image_size(std::string_view text);

// What the tower makes of one image of width × height pixels: the size it runs at (a fixed-size tower resizes to its
// image_size; a native-resolution one rounds each side to whole merged patches), its patches and the tokens the
// language model gets.
struct ImagePatches {
  std::uint64_t width = 0;
  std::uint64_t height = 0;
  std::uint64_t patches = 0;
  std::uint64_t tokens = 0;
};
ImagePatches image_patches(const ModelSpec::VisionTower& tower, std::uint64_t width, std::uint64_t height);

struct InferenceEstimate;
struct InferenceOptions;

// vLLM's profile run for a multimodal model (vLLM 0.27: vllm/multimodal/encoder_budget.py MultiModalBudget and
// get_dummy_encoder_profile_inputs; the runners' profile_run, vllm/v1/worker/gpu_model_runner.py and
// gpu/mm/encoder_runner.py profile_encoder_cache): before the language model's dummy batch it encodes `items` dummy
// images of the processor's largest size in one batch and keeps their embeddings in the encoder cache while the
// language model's forward and the sampler run. The torch peak it measures, and takes from the KV pool, is
// max(encoder forward, embeddings + the language model's peak).
struct VllmEncoderProfile {
  bool modelled = false;               // the tower's schema has a processor default vramfit knows
  std::uint64_t limit = 0;             // --limit-mm-per-prompt's image count (999 when not given)
  std::uint64_t tokens_per_item = 0;   // max_tokens_per_mm_item: the processor's largest image's tokens
  std::uint64_t budget_tokens = 0;     // encoder_compute_budget = encoder_cache_size
  std::uint64_t items = 0;             // dummy images encoded at once
  std::uint64_t width = 0;             // the dummy image, in pixels
  std::uint64_t height = 0;
  std::uint64_t patches_per_item = 0;
  std::uint64_t tokens_encoded = 0;    // each dummy image's tokens (below tokens_per_item when a size is given)
  std::uint64_t mlp_width = 0;         // elements alive per patch at the tower's MLP
  std::uint64_t pixel_values = 0;      // elements per patch of the input
  std::uint64_t element_bytes = 0;     // the model's dtype, in which the tower runs
  std::uint64_t encoder_peak_bytes = 0;  // the tower's forward: pixel values + one layer's MLP
  std::uint64_t embeddings_bytes = 0;    // the encoder cache: items × tokens × width × bytes
  std::uint64_t language_peak_bytes = 0; // the language model's dummy batch and sampler, as profiled without images
  std::uint64_t added_bytes = 0;         // what the images add to the profile's peak
};
// vLLM's most tokens an image for a Qwen-VL / Qwen3.5 tower: the checkpoints' preprocessor max_pixels (Qwen2-VL
// and Qwen2.5-VL 12,845,056 = 16384 × 28², Qwen3-VL and Qwen3.5 size.longest_edge 16,777,216 = 16384 × 32²) over
// (patch_size × merge)², the dummy image 128 × 128 merged patches (Qwen2VLProcessingInfo.get_image_size_with_most_features).
inline constexpr std::uint64_t kVllmQwenMaxImageTokens = 16384;
inline constexpr std::uint64_t kVllmDefaultMmLimit = 999;  // MultiModalConfig.get_limit_per_prompt's default
VllmEncoderProfile vllm_encoder_profile(const ModelSpec& spec, const InferenceOptions& o, std::uint64_t batched_tokens,
                                        std::uint64_t max_num_seqs, std::uint64_t dtype_bytes,
                                        std::uint64_t language_peak_bytes);

// Moves the vision tower's bytes out of the estimate's weights into its own line (e.vision_encoder, e.vision), as the
// engine placed them; nothing for a model without one.
void add_vision_encoder(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o);

// The line's formula, figures and source.
Explanation vision_encoder_explanation(const InferenceEstimate& e, const InferenceOptions& o);

// What the image side assumes (the images' tokens in the context, the size used) and leaves out.
void add_vision_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceEstimate& e,
                      const InferenceOptions& o);

}  // namespace vramfit

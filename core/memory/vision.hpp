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

// Moves the vision tower's bytes out of the estimate's weights into its own line (e.vision_encoder, e.vision), as the
// engine placed them; nothing for a model without one.
void add_vision_encoder(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o);

// The line's formula, figures and source.
Explanation vision_encoder_explanation(const InferenceEstimate& e, const InferenceOptions& o);

// What the image side assumes (the images' tokens in the context, the size used) and leaves out.
void add_vision_notes(std::vector<Message>& notes, const InferenceEstimate& e, const InferenceOptions& o);

}  // namespace vramfit

#pragma once
// Inference over several GPUs that each hold whole layers: llama.cpp's --split-mode layer (its default) and
// transformers' device_map="auto" (accelerate). vLLM splits every layer instead (tensor parallel; inference.cpp).
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint64_t
#include <span>     // std::span
#include <vector>   // std::vector

namespace vramfit {

// One GPU's part: the repeating layers [first_layer, first_layer + layers), and whether it also holds the input
// (token embeddings) or the output layer.
struct DeviceShare {
  std::uint64_t first_layer = 0;
  std::uint64_t layers = 0;
  bool input = false;
  bool output = false;
  std::uint64_t weights = 0;
  std::uint64_t kv_cache = 0;     // of its layers
  std::uint64_t state_cache = 0;  // recurrent state of its layers
  std::uint64_t activations = 0;  // llama.cpp: its compute buffer; transformers: the activation peak
  std::uint64_t overhead = 0;     // CUDA context and cuBLAS workspace: every device pays them
  std::uint64_t allocator_reserve = 0;  // PyTorch's segment rounding: its share of the weights' and cache's
  std::uint64_t total = 0;
};

// What the layers weigh, as the estimate counts them (uniform repeating layers, as llama.cpp's --fit sees them).
struct LayerBytes {
  std::uint64_t layers = 0;
  std::uint64_t layer_weights = 0;  // one repeating layer
  std::uint64_t layer_kv = 0;       // one layer's KV cache
  std::uint64_t layer_state = 0;    // one layer's recurrent state
  std::uint64_t input = 0;          // token embeddings
  std::uint64_t output = 0;         // final norm and lm_head
};

// llama.cpp (src/llama-model.cpp, load_tensors): the splits are the cumulative shares of `split` (--tensor-split, by
// default each device's free memory). With -ngl k the slots from i_gpu_start = n_layer − k (of n_layer + 1; the
// last is the output layer) are offloaded, act = min(k, n_layer + 1) of them: slot il goes to the first device
// whose cumulative share exceeds (il − i_gpu_start) / act, in float as llama.cpp computes it; the slots before
// stay on the CPU (kOnCpu). One entry per slot. Without -ngl (k > n_layer) every slot is offloaded.
inline constexpr std::size_t kOnCpu = static_cast<std::size_t>(-1);
inline constexpr std::uint64_t kEveryLayer = static_cast<std::uint64_t>(-1);
std::vector<std::size_t> llamacpp_layer_devices(std::span<const double> split, std::uint64_t n_layer,
                                                std::uint64_t gpu_layers = kEveryLayer);

// llama.cpp's layer split: weights and cache of each layer on its device, the output layer's on the last one's,
// the token embeddings in system RAM (llama.cpp keeps the input layer on the CPU); every device reserves its compute
// buffer, the one holding the output layer the graph with the logits (`compute_output`), the others
// `compute_layers`.
std::vector<DeviceShare> llamacpp_device_shares(const LayerBytes& bytes, std::span<const double> split,
                                                std::uint64_t compute_layers, std::uint64_t compute_output,
                                                std::uint64_t overhead, std::uint64_t gpu_layers = kEveryLayer);

// accelerate's device_map "auto" (= "balanced", get_balanced_memory): every device but the last gets at most
// model / n + 1.25 × one layer (its no-split block), filled in order by infer_auto_device_map: embeddings, layers,
// then the output layer; the last device takes the rest. Each layer's cache sits on its device; the activation
// peak is paid on every device (`activations`), the logits on the last one's.
std::vector<DeviceShare> accelerate_device_shares(const LayerBytes& bytes, std::uint64_t devices,
                                                  std::uint64_t activations, std::uint64_t logits,
                                                  std::uint64_t overhead);

// The total of a share, from its lines.
void total_share(DeviceShare& share);

// The device with the largest total: the one that decides whether the deployment fits (identical cards).
std::size_t busiest_device(std::span<const DeviceShare> shares) noexcept;

}  // namespace vramfit

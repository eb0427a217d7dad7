#pragma once
// MLX (mlx-lm, LM Studio's MLX runtime) on an Apple GPU: its cache grown in steps, its prefill in chunks, its logits
// rule by version, and what mx.get_peak_memory() counts.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/engines/engine.hpp"
#include "memory/kv_cache.hpp"  // KvDType, KvLayout
#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/message.hpp"
#include "util/result.hpp"

namespace vramfit {

struct MemoryRange;
// --- MLX (mlx-lm, LM Studio's MLX runtime) ---------------------------------------------------------------
// mlx_lm/models/cache.py KVCache.step: the cache grows by concatenating zeros in steps of 256 tokens, so it holds
// the tokens rounded up to 256; RotatingKVCache (sliding-window layers, --max-kv-size) holds up to max_size + S − 1
// while a prompt chunk of S tokens is concatenated. generate.py generate_step prefills in chunks of
// prefill_step_size = 2048; QuantizedKVCache (--kv-bits) stores groups of 64 with a 16-bit scale and bias each.
inline constexpr std::uint64_t kMlxCacheStep = 256;
inline constexpr std::uint64_t kMlxPrefillStep = 2048;
inline constexpr std::uint64_t kMlxKvGroup = 64;
// generate_step evaluates only the cache after each prefill chunk, so those chunks' logits are never computed; the
// prompt's last call goes through _step, whose model call applies lm_head to every position it is given before
// keeping logits[:, -1, :]. From 0.27.0 (PR #406, "only apply lm_head to the last token") the chunks stop one token
// short and that call gets the last token alone; from 0.22.2 to 0.26.4 it got the prompt's last chunk, up to
// prefill_step_size tokens, and computed logits for each of them. Before 0.22.2 (PR #40) the chunks were 512 tokens
// and the causal mask an array: not modelled.
enum class MlxRule { chunk_logits, last_token_logits };  // 0.22.2 to 0.26.4; 0.27.0 and later
inline constexpr std::string_view kMlxVersionModelled = "0.31.3";
inline constexpr std::string_view kMlxVersionChunkLogits = "0.26.4";
std::string_view mlx_rule_version(MlxRule rule) noexcept;
// "0.26.4", "v0.31.3"; nullopt for text that is no version, or one before 0.22.2.
std::optional<MlxRule> parse_mlx_version(std::string_view version) noexcept;

// What mx.get_peak_memory() counts during mlx_lm.generate besides the weights and the grown cache: the prefill
// chunk's forward pass and the cache growth's copy (generate.py generate_step, models/cache.py).
struct MlxMemory {
  std::string engine_version;        // the version assumed: as asked, else the rule's representative release
  std::uint64_t chunk_tokens = 0;    // prefill_step_size, or the prompt when shorter
  std::uint64_t cache_tokens = 0;    // tokens each full-attention layer's buffer holds (256-token steps)
  bool fused_attention = true;       // mx.fast.scaled_dot_product_attention's full kernel: no score matrix
  std::uint64_t layer_bytes = 0;     // the chunk's widest layer (attention or MLP)
  std::uint64_t scores_bytes = 0;    // unfused path: heads × chunk × keys in the model dtype
  std::uint64_t growth_bytes = 0;    // one layer's old K and V while mx.concatenate copies them into the grown buffer
  std::uint64_t logits_tokens = 1;   // positions lm_head runs over in the prompt's last call: 1, or its last chunk
  std::uint64_t logits_bytes = 0;    // those positions' logits and the last token's log-probabilities
  std::uint64_t head_input_bytes = 0;  // chunk_logits: lm_head's input over the last chunk, held beside its logits
  std::uint64_t kv_bits = 0;         // --kv-bits 8 or 4; 0: the model dtype
  std::uint64_t max_kv_size = 0;     // 0: none
  MlxRule rule = MlxRule::last_token_logits;
};

struct InferenceEstimate;
struct InferenceOptions;
namespace detail {
struct Workings;
}

}  // namespace vramfit

namespace vramfit::detail {

// Tokens of one prefill chunk, and the tokens a full-attention layer's buffer holds.
std::uint64_t mlx_chunk_tokens(const InferenceOptions& o);
std::uint64_t mlx_cache_tokens(const InferenceOptions& o);
// The cache dtypes and allocations MLX has; an error for the others.
std::optional<Error> check_mlx_kv_choices(const InferenceEstimate& e, const InferenceOptions& o);
// How far MLX's peak may move: ops' intermediates overlapping until their command buffer completes.
MemoryRange mlx_memory_range(const InferenceEstimate& e);

}  // namespace vramfit::detail

namespace vramfit::detail {  // MLX's part of estimate_inference (memory/inference_steps.hpp)

std::optional<Error> add_mlx_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                    const InferenceOptions& o, const KvLayout& layout);
Explanation mlx_activations_explanation(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e,
                                        const Workings& w);
void add_mlx_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                   const InferenceEstimate& e);

}  // namespace vramfit::detail

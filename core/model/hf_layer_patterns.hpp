#pragma once
// Internal: the per-layer fields of a config.json (which layers attend fully, slide, chunk, run linear attention or
// Mamba2, which have experts), applied to the layers a uniform reading gave.
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "model/layers.hpp"
#include "util/json_fields.hpp"

namespace vramfit::detail {

// Rewrites `layers` (one entry per layer, as uniform_layers gave them) by the config's per-layer fields:
// layer_types, full_attention_interval, hybrid_override_pattern, hybrid_layer_pattern, attention_chunk_size and
// no_rope_layers, Gemma 4's global attention shape, mlp_only_layers, decoder_sparse_step, moe_layer_freq (a number or
// a list), interleave_moe_layer_step. A spelling it cannot read is an error in `r`.
void apply_layer_patterns(FieldReader& r, std::vector<LayerRun>& layers, std::string_view type,
                          const UniformDecoder& decoder, std::uint64_t hidden_size);

// Layers a hybrid_override_pattern or layers_block_type lists (Nemotron 3 Ultra gives no num_hidden_layers); 0: none.
// Nemotron-H's multi-token-prediction blocks (mtp_hybrid_override_pattern "*E", or mtp_layers_block_type), each
// shaped like the decoder's last block of its kind: their indices in `layers` (one per layer); empty without them.
std::vector<std::uint64_t> hybrid_mtp_sources(FieldReader& r, const std::vector<LayerRun>& layers);
std::uint64_t pattern_layers(FieldReader& r);

// The Gated DeltaNet (linear_*) and Mamba2 (mamba_*, ssm_state_size, n_groups, conv_kernel) shapes of a config.
LinearMixer read_linear_mixer(FieldReader& r);
MambaMixer read_mamba_mixer(FieldReader& r, std::uint64_t hidden_size);

}  // namespace vramfit::detail

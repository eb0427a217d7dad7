#include "model/layers.hpp"

#include <tuple>  // std::tie

namespace vramfit {
namespace {

auto fields(const AttentionMixer& a) {
  return std::tie(a.heads, a.kv_heads, a.head_dim, a.v_head_dim, a.k_eq_v, a.output_gate, a.sinks, a.window, a.chunk,
                  a.compress_ratio, a.one_kv_entry, a.rope_dim, a.q_lora_rank, a.o_lora_rank, a.o_groups,
                  a.index_heads, a.index_head_dim);
}
auto fields(const LatentMixer& m) {
  return std::tie(m.heads, m.q_lora_rank, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim,
                  m.output_gate, m.index_heads, m.index_head_dim);
}
auto fields(const LinearMixer& m) {
  return std::tie(m.kind, m.key_heads, m.value_heads, m.key_head_dim, m.value_head_dim, m.conv_kernel,
                  m.full_rank_gate);
}
auto fields(const MambaMixer& m) { return std::tie(m.heads, m.head_dim, m.state_size, m.groups, m.conv_kernel); }
auto fields(const MlpBlock& m) {
  return std::tie(m.kind, m.intermediate, m.routed_experts, m.experts_per_token, m.expert_intermediate,
                  m.shared_experts, m.shared_intermediate, m.router_bias, m.shared_gate, m.hash_routed, m.latent,
                  m.latent_norm);
}

}  // namespace

std::uint64_t MlpBlock::active_width() const noexcept {
  switch (kind) {
    case MlpKind::dense: return intermediate;
    case MlpKind::moe: return experts_per_token * expert_intermediate + shared_experts * shared_width();
    case MlpKind::none: return 0;
  }
  return 0;
}

bool LayerRun::same_layer(const LayerRun& o) const noexcept {
  return mixer == o.mixer && fields(attention) == fields(o.attention) && fields(latent) == fields(o.latent) &&
         fields(linear) == fields(o.linear) && fields(mamba) == fields(o.mamba) && fields(mlp) == fields(o.mlp);
}

std::uint64_t LayerRun::attention_heads() const noexcept {
  switch (mixer) {
    case MixerKind::attention: return attention.heads;
    case MixerKind::latent_attention: return latent.heads;
    case MixerKind::linear_attention:
    case MixerKind::mamba2:
    case MixerKind::none: return 0;
  }
  return 0;
}

std::vector<LayerRun> uniform_layers(const UniformDecoder& d) {
  std::vector<LayerRun> layers;
  const bool moe = d.moe.kind == MlpKind::moe;
  if (d.layers > 10'000) {  // one run that validate() refuses, without building it layer by layer
    LayerRun run;
    run.count = d.layers;
    run.mixer = d.mixer;
    run.attention = d.attention;
    run.latent = d.latent;
    run.mlp = moe ? d.moe : d.dense;
    return {run};
  }
  for (std::uint64_t i = 0; i < d.layers; ++i) {
    LayerRun layer;
    layer.mixer = d.mixer;
    layer.attention = d.attention;
    layer.latent = d.latent;
    if (!d.windowed.empty() && !(i < d.windowed.size() && d.windowed[static_cast<std::size_t>(i)])) layer.attention.window = 0;
    layer.mlp = moe && i >= d.leading_dense ? d.moe : d.dense;
    layers.push_back(layer);
  }
  return compress_runs(layers);
}

std::vector<LayerRun> compress_runs(const std::vector<LayerRun>& layers) {
  std::vector<LayerRun> runs;
  for (const LayerRun& layer : layers) {
    if (!runs.empty() && runs.back().same_layer(layer)) runs.back().count += layer.count;
    else runs.push_back(layer);
  }
  return runs;
}

std::vector<LayerRun> expand_runs(const std::vector<LayerRun>& runs) {
  std::vector<LayerRun> layers;
  for (const LayerRun& run : runs)
    for (std::uint64_t i = 0; i < run.count; ++i) {
      layers.push_back(run);
      layers.back().count = 1;
    }
  return layers;
}

std::string_view mixer_label(const LayerRun& run) noexcept {
  switch (run.mixer) {
    case MixerKind::attention:
      if (run.attention.compress_ratio) return "compressed attention";
      if (run.attention.chunk) return "chunked attention";
      if (run.attention.window) return "sliding-window attention";
      return "full attention";
    case MixerKind::latent_attention: return "latent attention";
    case MixerKind::linear_attention:
      return run.linear.kind == LinearKind::kimi_delta ? "Kimi Delta Attention" : "linear attention";
    case MixerKind::mamba2: return "Mamba2";
    case MixerKind::none: return "no attention";
  }
  return "";
}

}  // namespace vramfit

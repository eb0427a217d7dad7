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

bool LayerRun::keeps_tokens() const noexcept {
  switch (mixer) {
    case MixerKind::attention:
    case MixerKind::latent_attention: return true;
    case MixerKind::linear_attention:
    case MixerKind::mamba2:
    case MixerKind::none: return false;
  }
  return false;
}

bool LayerRun::keeps_state() const noexcept {
  switch (mixer) {
    case MixerKind::linear_attention:
    case MixerKind::mamba2: return true;
    case MixerKind::attention:
    case MixerKind::latent_attention:
    case MixerKind::none: return false;
  }
  return false;
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

std::uint64_t LayerRun::kv_heads() const noexcept {
  switch (mixer) {
    case MixerKind::attention: return attention.kv_heads;
    case MixerKind::latent_attention: return 1;
    case MixerKind::linear_attention:
    case MixerKind::mamba2:
    case MixerKind::none: return 0;
  }
  return 0;
}

std::uint64_t LayerRun::query_width() const noexcept {
  switch (mixer) {
    case MixerKind::attention: return attention.heads * attention.head_dim;
    case MixerKind::latent_attention: return latent.heads * (latent.qk_nope_head_dim + latent.qk_rope_head_dim);
    case MixerKind::linear_attention:
    case MixerKind::mamba2:
    case MixerKind::none: return 0;
  }
  return 0;
}

MixerState LayerRun::state_elements() const noexcept {
  switch (mixer) {
    case MixerKind::linear_attention: {
      const auto& m = linear;
      return {(m.conv_kernel - 1) * (2 * m.key_heads * m.key_head_dim + m.value_heads * m.value_head_dim),
              m.value_heads * m.key_head_dim * m.value_head_dim};
    }
    case MixerKind::mamba2: {
      const auto& m = mamba;
      return {(m.conv_kernel - 1) * m.conv_channels(), m.heads * m.head_dim * m.state_size};
    }
    case MixerKind::attention:
    case MixerKind::latent_attention:
    case MixerKind::none: return {};
  }
  return {};
}

// Per mixer, the tensors alive at once:
//   attention: residual + normed input + q + k + v + attention output  = 2h + 2·a·d + 2·kv·d
//   MLA: decompressed per-head q, k, v and output                       = 2h + a·(2·qk + 2·v)
//   Gated DeltaNet: in_proj (q, k, v, z), the conv output and the output = 2h + 2·keys + 3·values
//   Kimi Delta Attention: q, k, v, decay gate, output gate and output    = 2h + 6·heads·dim
//   Mamba2: in_proj (z, x, B, C, dt), the conv output and the output     = 2h + in_proj + conv channels + inner
std::uint64_t LayerRun::live_width(std::uint64_t hidden) const noexcept {
  const std::uint64_t h = hidden;
  switch (mixer) {
    case MixerKind::attention: {
      const auto& a = attention;
      return 2 * h + 2 * a.heads * a.head_dim + 2 * a.kv_heads * a.head_dim;
    }
    case MixerKind::latent_attention: {
      const auto& m = latent;
      return 2 * h + m.heads * (2 * (m.qk_nope_head_dim + m.qk_rope_head_dim) + 2 * m.v_head_dim);
    }
    case MixerKind::linear_attention: {
      const auto& m = linear;
      if (m.kind == LinearKind::kimi_delta) return 2 * h + 6 * m.key_heads * m.key_head_dim;
      return 2 * h + 2 * m.key_heads * m.key_head_dim + 3 * m.value_heads * m.value_head_dim;
    }
    case MixerKind::mamba2: {
      const auto& m = mamba;
      return 2 * h + (2 * m.inner() + 2 * m.groups * m.state_size + m.heads) + m.conv_channels() + m.inner();
    }
    case MixerKind::none: return 0;
  }
  return 0;
}

MixerMatmuls LayerRun::matmuls(std::uint64_t hidden) const noexcept {
  const double h = static_cast<double>(hidden), a = static_cast<double>(attention_heads());
  switch (mixer) {
    case MixerKind::latent_attention: {
      const auto& m = latent;
      const double qk = static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim);
      const double vd = static_cast<double>(m.v_head_dim), qr = static_cast<double>(m.q_lora_rank);
      const double kvr = static_cast<double>(m.kv_lora_rank);
      return {(qr > 0 ? h * qr + qr * a * qk : h * a * qk) + h * (kvr + static_cast<double>(m.qk_rope_head_dim)) +
                  kvr * a * (static_cast<double>(m.qk_nope_head_dim) + vd) + a * vd * h,
              a * qk + a * vd};
    }
    case MixerKind::attention: {
      const double d = static_cast<double>(attention.head_dim), kv = static_cast<double>(attention.kv_heads);
      return {2 * h * a * d + 2 * h * kv * d, 2 * a * d};
    }
    case MixerKind::linear_attention: {
      const auto& m = linear;
      const double keys = static_cast<double>(m.key_heads * m.key_head_dim);
      const double values = static_cast<double>(m.value_heads * m.value_head_dim);
      return {h * (2 * keys + 2 * values + 2 * static_cast<double>(m.value_heads)) + values * h, 0};
    }
    case MixerKind::mamba2: {
      const auto& m = mamba;
      const double in = static_cast<double>(2 * m.inner() + 2 * m.groups * m.state_size + m.heads);
      return {h * in + static_cast<double>(m.inner()) * h, 0};
    }
    case MixerKind::none: return {0, 0};
  }
  return {0, 0};
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

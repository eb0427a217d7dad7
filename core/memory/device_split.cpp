#include "memory/device_split.hpp"

#include <algorithm>  // std::upper_bound, std::max, std::min

#include "util/byte_math.hpp"

namespace vramfit {

namespace {

void add_layer(DeviceShare& d, const LayerBytes& b, std::uint64_t il) {
  if (d.layers == 0) d.first_layer = il;
  ++d.layers;
  d.weights += b.layer_weights;
  d.kv_cache += b.layer_kv;
  d.state_cache += b.layer_state;
}

void finish(std::vector<DeviceShare>& shares, std::uint64_t overhead) {
  for (DeviceShare& d : shares) {
    d.overhead = overhead;
    total_share(d);
  }
}

}  // namespace

void total_share(DeviceShare& d) {
  d.total = detail::CheckedSum()
                .add(d.weights).add(d.kv_cache).add(d.state_cache).add(d.activations).add(d.overhead)
                .add(d.allocator_reserve)
                .value();
}

std::vector<std::size_t> llamacpp_layer_devices(std::span<const double> split, std::uint64_t n_layer,
                                                std::uint64_t gpu_layers) {
  // llama.cpp sums and normalizes the splits in float: the cut points must be the same floats.
  std::vector<float> cuts(split.size());
  float sum = 0.0f;
  for (std::size_t i = 0; i < split.size(); ++i) cuts[i] = sum += static_cast<float>(split[i]);
  for (float& c : cuts) c /= sum;
  const auto slots = static_cast<int>(n_layer + 1);
  const int offloaded = static_cast<int>(std::min<std::uint64_t>(gpu_layers, n_layer + 1));
  const int gpu_start = std::max(static_cast<int>(n_layer) - offloaded, 0);
  std::vector<std::size_t> out;
  for (int il = 0; il < slots; ++il) {
    if (il < gpu_start || il - gpu_start >= offloaded) {
      out.push_back(kOnCpu);
      continue;
    }
    const float at = static_cast<float>(il - gpu_start) / static_cast<float>(offloaded);  // as llama.cpp: float / int
    const auto device = static_cast<std::size_t>(std::upper_bound(cuts.begin(), cuts.end(), at) - cuts.begin());
    out.push_back(std::min(device, cuts.size() - 1));
  }
  return out;
}

std::vector<DeviceShare> llamacpp_device_shares(const LayerBytes& bytes, std::span<const double> split,
                                                std::uint64_t compute_layers, std::uint64_t compute_output,
                                                std::uint64_t overhead, std::uint64_t gpu_layers) {
  std::vector<DeviceShare> shares(split.size());
  const auto devices = llamacpp_layer_devices(split, bytes.layers, gpu_layers);
  for (std::uint64_t il = 0; il < bytes.layers; ++il)
    if (devices[il] != kOnCpu) add_layer(shares[devices[il]], bytes, il);
  if (devices.back() != kOnCpu) {
    DeviceShare& last = shares[devices.back()];
    last.output = true;
    last.weights += bytes.output;
  }
  for (DeviceShare& d : shares) d.activations = d.output ? compute_output : d.layers ? compute_layers : 0;
  finish(shares, overhead);
  return shares;
}

std::vector<DeviceShare> accelerate_device_shares(const LayerBytes& bytes, std::uint64_t devices,
                                                  std::uint64_t activations, std::uint64_t logits,
                                                  std::uint64_t overhead) {
  std::vector<DeviceShare> shares(devices);
  const std::uint64_t model = bytes.input + bytes.layers * bytes.layer_weights + bytes.output;
  const std::uint64_t cap = model / devices + bytes.layer_weights * 5 / 4;  // int(1.25 × the no-split block)
  std::size_t at = 0;
  auto place = [&](std::uint64_t size) {  // the next device once this module would pass the current one's cap
    while (at + 1 < devices && shares[at].weights + size > cap) ++at;
    shares[at].weights += size;
    return at;
  };
  shares[place(bytes.input)].input = true;
  for (std::uint64_t il = 0; il < bytes.layers; ++il) {
    const std::size_t d = place(bytes.layer_weights);
    shares[d].weights -= bytes.layer_weights;
    add_layer(shares[d], bytes, il);
  }
  shares[place(bytes.output)].output = true;
  // The peak is the layers' working set plus, where lm_head runs, the logits.
  for (DeviceShare& d : shares)
    d.activations = d.output ? activations : d.layers ? activations - std::min(activations, logits) : 0;
  finish(shares, overhead);
  return shares;
}

std::size_t busiest_device(std::span<const DeviceShare> shares) noexcept {
  std::size_t best = 0;
  for (std::size_t i = 1; i < shares.size(); ++i)
    if (shares[i].total > shares[best].total) best = i;
  return best;
}

}  // namespace vramfit

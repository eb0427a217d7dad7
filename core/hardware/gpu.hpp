#pragma once
// The accelerator catalog (data/gpus.json): memory, bandwidth, throughput, price, each with its source.
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "util/result.hpp"

namespace vramfit {

struct DatedPrice {
  double usd = 0;
  std::string date;
  std::string offer;   // who sells it and how, as people read it ("RunPod, on demand"); cloud prices only
  std::string source;  // where the figure was read
};

// How the operating system shares a unified-memory machine's RAM with its GPU (see data/gpus.json, unified_memory.kind).
enum class SharedMemory : unsigned char {
  macos,           // a Mac: the GPU wires up to macOS's limit (default_wired_limit_bytes; sudo sysctl iogpu.wired_limit_mb)
  amd_apu,         // an AMD APU (Strix Halo) under Linux: the amdgpu GTT limit, half the RAM by default
                   // (default_gtt_bytes; ttm.pages_limit raises it), or the BIOS's carve-out if larger; on Windows the
                   // Variable Graphics Memory set in AMD Software
  nvidia_unified,  // an NVIDIA GPU on the machine's LPDDR5X (DGX Spark, Jetson): no limit to set; CUDA allocates what
                   // the operating system has free of the total it reports (driver_visible_bytes)
};

struct Gpu {
  std::string id;
  std::string name;
  std::string vendor;
  std::string segment;  // consumer, workstation, datacenter, apple
  std::string architecture;
  std::string memory_type;
  std::uint64_t memory_bytes = 0;  // nominal capacity: a "24 GB" card carries 24 GiB
  // What the CUDA driver reports as the total (cudaMemGetInfo): below nominal by what the driver and ECC keep
  // (an H100 80GB shows 79.18 GiB). vLLM multiplies this by gpu_memory_utilization. Only where a log printed it.
  std::optional<std::uint64_t> driver_visible_bytes;
  // Unified memory: the GPU takes its memory from the machine's RAM, as much as the operating system lets it
  // (`shared` says how); memory_bytes is the machine's RAM.
  bool unified_memory = false;
  SharedMemory shared = SharedMemory::macos;
  // The share the request set (its wired_limit_mb): a Mac's `sudo sysctl iogpu.wired_limit_mb=N`, a Strix Halo's GTT
  // limit, BIOS carve-out or Variable Graphics Memory, what a DGX Spark or Jetson has free; none: the default.
  std::optional<std::uint64_t> wired_limit_bytes;
  // The default share where its vendor documents one that the operating system's rule does not give (unified_memory.
  // default_share_gib: an MI300A's 96 GiB under ROCm); none: the rule (default_gtt_bytes, ...).
  std::optional<std::uint64_t> default_share_bytes;
  // GPUs that share one machine, each with its own memory (unified_memory.gpus_per_machine: four MI300A in a node);
  // 1: the GPU is the machine's only one.
  unsigned gpus_per_machine = 1;
  // What the machine's CPU reads its memory at (unified_memory.cpu_bandwidth_gb_s): llama.cpp's layers left in system
  // RAM on a machine whose GPU shares it are read from the same memory, not at a desktop's DDR5 speed.
  std::optional<double> cpu_bandwidth_gb_s;
  std::optional<double> bandwidth_gb_s;
  std::optional<double> tflops_fp16;  // dense tensor throughput, fp32 accumulate
  std::optional<double> tflops_bf16;
  std::optional<double> tflops_fp8;
  std::optional<double> tflops_fp4;  // FP4 × FP4 (NVFP4 / MXFP4 on both operands), Blackwell only
  std::optional<double> tops_int8;
  std::optional<double> nvlink_gb_s;
  std::optional<double> pcie_gen;
  std::optional<double> tdp_w;
  std::optional<double> launch_year;
  std::optional<DatedPrice> cloud_usd_per_hour;
  std::optional<DatedPrice> street_usd;
  // field → where it was read (in the built-in catalog, "data/gpus.json": the citations stay in that file)
  std::vector<std::pair<std::string, std::string>> sources;
  std::string notes;
  // Short names that mean this card although others share them ("H100" for the SXM card, which cloud offers
  // and published benchmarks mean by the bare name).
  std::vector<std::string> aliases;
  // A card described by the person's own figures rather than read from the catalog: "custom", or the id of the
  // catalog entry it is like with other memory ("rtx-4090"); empty for a catalog entry.
  std::string custom;

  // Bytes a model may use: all of it on discrete cards; on unified memory the share set, or the operating system's
  // default (macOS's wired limit, Linux's GTT limit, the total CUDA reports).
  std::uint64_t usable_bytes() const noexcept;
  // The total an engine that asks the driver sees: driver_visible_bytes, else the nominal usable bytes.
  std::uint64_t driver_total_bytes() const noexcept { return driver_visible_bytes.value_or(usable_bytes()); }
  // Unified memory: the GPU is part of the machine, so a model cannot be split across a second one the way it
  // is across discrete cards; unless the machine holds several, each with its own memory (an MI300A node).
  bool one_per_machine() const noexcept { return unified_memory && gpus_per_machine == 1; }
  // An Apple GPU (Metal, a Mac's memory): the catalog's "apple" segment, which custom_gpu gives a card of vendor
  // apple. The one test for it: engines' backends, the speed class, the Apple refusals and remedies ask this.
  bool is_apple() const noexcept { return segment == "apple"; }
};

// macOS's default for the memory the GPU may wire (MTLDevice.recommendedMaxWorkingSetSize, which Metal, MLX and
// llama.cpp size against), as the logged values show it up to macOS 15: up to 32 GiB of RAM two thirds of it in
// 16 KiB pages, rounded down, and one page more; above, three quarters. A limit set with
// `sudo sysctl iogpu.wired_limit_mb=N` replaces it. macOS 26 reports more (not modelled; see data/gpus.json).
inline constexpr std::uint64_t kWiredTwoThirdsUpTo = 32ull << 30;
inline constexpr std::uint64_t kApplePageBytes = 16384;
std::uint64_t default_wired_limit_bytes(std::uint64_t ram_bytes) noexcept;

// Linux's default GTT limit on an AMD APU, what ROCm, PyTorch and llama.cpp's HIP backend allocate from: amdgpu sizes
// GTT by TTM's page limit (amdgpu_ttm_init: ttm_tt_pages_limit()), which TTM sets to half the RAM in 4 KiB pages
// unless `ttm.pages_limit` says otherwise (ttm_device.c ttm_global_init: "about 50% of the total system memory").
// The RAM the kernel sees is the machine's less the BIOS carve-out and firmware, so a machine logs a little less.
inline constexpr std::uint64_t kLinuxPageBytes = 4096;
std::uint64_t default_gtt_bytes(std::uint64_t ram_bytes) noexcept;

// What a unified-memory machine's verdict counted, said beside it: the GPU's share of the RAM, where it comes from (the
// share set, or the operating system's default, naming what is not modelled) and how to change it. Empty for a GPU
// with memory of its own.
Message wired_limit_note(const Gpu& gpu);

// The most a GPU's share may be: the machine's RAM (no operating system gives the GPU more than it has).
// Refused, naming `field`, for a GPU without unified memory or a share above its RAM.
Result<std::uint64_t> wired_limit_for(const Gpu& gpu, std::uint64_t limit_mib, std::string_view field);

// The error for several of a unified-memory machine's GPU: its memory is not split across machines (rankings,
// training jobs).
Message one_per_machine_message(const Gpu& gpu);

// The NVIDIA compute capability (major · 10 + minor) of `gpu`'s architecture, as NVIDIA's CUDA GPUs table
// (developer.nvidia.com/cuda-gpus) lists it: Volta 70, Turing 75, Ampere 80 (datacenter; the A10's 86 crosses no
// format's threshold) or 86, Ada Lovelace 89, Hopper 90, Blackwell 100 (datacenter) or 120 (RTX 50, RTX PRO). 0 for
// other vendors: the thresholds of native_compute_capability are NVIDIA's.
std::uint32_t compute_capability(const Gpu& gpu) noexcept;

// A card's vendor as the request names it (gpu_vendor): the names parse_gpu_vendor reads, in enum order.
enum class GpuVendor : unsigned char { nvidia, amd, intel, apple };
std::optional<GpuVendor> parse_gpu_vendor(std::string_view name) noexcept;  // "nvidia", in any case
std::string_view gpu_vendor_name(GpuVendor vendor) noexcept;               // "NVIDIA", as the catalog spells it
std::string gpu_vendor_names();                                            // "nvidia, amd, intel, apple"

// A card described by its figures (the request's gpu_memory, gpu_bandwidth, ...): every figure optional here, the
// memory needed for a card of its own (gpu "custom").
struct CustomGpuInputs {
  std::optional<std::uint64_t> memory_bytes;  // a card's GB are GiB, as its maker and the catalog count them
  std::optional<double> bandwidth_gb_s;
  std::optional<double> tflops;  // dense BF16/FP16 tensor TFLOPS
  std::optional<double> tflops_fp8;
  std::optional<double> tflops_fp4;
  std::optional<GpuVendor> vendor;  // none: not said
  std::optional<bool> unified;   // the GPU shares the computer's memory
  bool any() const noexcept {
    return memory_bytes || bandwidth_gb_s || tflops || tflops_fp8 || tflops_fp4 || vendor || unified;
  }
};
inline constexpr std::string_view kCustomGpuId = "custom";

// Whether `gpu` (as the request names it) asks for a card of its own: "custom".
bool is_custom_gpu_name(std::string_view gpu) noexcept;

// The card the request describes: gpu "custom" with its figures (the memory needed; a figure not given stays
// unknown, and what needs it says so), or a catalog card (`gpu`, as resolve_gpu reads it) with the figures given in
// place of its own, the memory first ("an RTX 4090 with 48 GB"). Its price and the total its driver reports are not
// carried over: they were the catalog card's. Refused, naming the field, for figures without a GPU, a vendor or
// unified memory given for a catalog card, or unified memory without a vendor whose sharing is modelled.
Result<Gpu> custom_gpu(const std::vector<Gpu>& catalog, std::string_view gpu, const CustomGpuInputs& in);

// What the answer says of a custom card: the figures are the person's, which are unknown, and that the memory its
// driver reports is taken as the full memory (the catalog's rule for a card without a measured total). Empty for a
// catalog entry.
Message custom_gpu_note(const Gpu& gpu);

// Parses data/gpus.json; every non-null figure must name its source, or the catalog is refused.
Result<std::vector<Gpu>> parse_gpu_catalog(std::string_view json_text);

// Matches an id ("h100-sxm") or a name ("NVIDIA H100 SXM"), case- and punctuation-insensitively.
const Gpu* find_gpu(const std::vector<Gpu>& gpus, std::string_view id_or_name) noexcept;

// A GPU as people write it: its id or name, an alias ("H100"), or a part of its name only one card has ("4090",
// "rtx 3090 ti"). `note` says how a short form was read and what else it could have meant; empty for an exact name.
struct GpuLookup {
  const Gpu* gpu = nullptr;
  Message note;  // a sentence, with its full stop
};
// Refused, naming `field`, when nothing matches (with the closest names) or several do (naming them).
Result<GpuLookup> resolve_gpu(const std::vector<Gpu>& gpus, std::string_view text, std::string_view field);

}  // namespace vramfit

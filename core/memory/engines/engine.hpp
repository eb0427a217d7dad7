#pragma once
// What the engines share: the attention and KV allocation choices, the CUDA process every engine on an NVIDIA GPU
// pays, and reading engine versions. Each engine's own rules are in its file beside this one (vllm.hpp, sglang.hpp,
// llamacpp.hpp, ollama.hpp, mlx.hpp, transformers.hpp), each constant with the source it was read from
// (docs/methodology.md lists them all).
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "memory/engines/engines.hpp"
#include "util/message.hpp"  // Message
#include "util/units.hpp"

namespace vramfit {

enum class Attention { sdpa, eager };  // llama.cpp: sdpa = -fa on, eager = -fa off
enum class KvAllocation { engine_default, static_max, paged };

std::string_view attention_name(Attention attention) noexcept;       // "sdpa", "eager"
std::optional<Attention> parse_attention(std::string_view name) noexcept;  // also "flash"
std::string_view kv_allocation_name(KvAllocation allocation) noexcept;     // "static", "paged"
std::optional<KvAllocation> parse_kv_allocation(std::string_view name) noexcept;
inline constexpr std::string_view kAttentionNames = "sdpa, eager";
inline constexpr std::string_view kKvAllocationNames = "static, paged";

// --- CUDA process ------------------------------------------------------------------------------------
// CUDA context + kernel images. With lazy module loading (default since CUDA 12.2) PyTorch's context is
// ≈ 0.5 GiB; HF "model memory anatomy" measured 1343 MiB on a V100 with eager loading (the range's high end).
inline constexpr std::uint64_t kCudaContextBytes = 512 * kMiB;
inline constexpr std::uint64_t kCudaContextHighBytes = 1343 * kMiB;
// cuBLAS workspace: NVIDIA's cublasSetWorkspace docs recommend 32 MiB on Hopper and newer, 4 MiB before
// (PyTorch sizes its per-handle workspace the same way; CUBLAS_WORKSPACE_CONFIG overrides it).
inline constexpr std::uint64_t kCublasWorkspaceBytes = 32 * kMiB;
inline constexpr std::uint64_t kCublasWorkspaceLowBytes = 4 * kMiB;
// What the catalog's driver_visible_gib is, as the notes on vLLM's, SGLang's and llama.cpp's --fit starting total
// say it (one clause per driver, worded once in each language): the total CUDA (NVIDIA) or ROCm (AMD, rocm true)
// reports under Linux, below the memory sold (under Windows CUDA reports close to the whole memory, not modelled).
Message driver_total_clause(bool rocm);


// One version per memory rule an engine has besides its default, as parse_*_version reads it: a client's picker
// offers these (and the default) rather than keeping its own list of where the rules change.
struct EngineVersionChoice {
  Engine engine;
  std::string_view version;
};
std::span<const EngineVersionChoice> engine_version_choices() noexcept;

// An engine_version without a leading v, as the answer and the command name it ("v0.5.9" is 0.5.9).
std::string_view without_v(std::string_view version) noexcept;

// The version an answer and its command name: as asked (without_v), else the release the rule was read at.
std::string version_named(std::string_view asked, std::string_view rule_release);

// Whether `asked` is a release after `newest` (a pre-release or build of `newest` is not). An engine whose newest
// rule takes every later version estimates such a one by `newest`'s rules, which the answer says in a note.
bool version_after(std::string_view asked, std::string_view newest) noexcept;

}  // namespace vramfit

namespace vramfit::detail {

// "0.11", "v0.21.1", "0.10.2rc1" as three numbers, for each engine's parse_*_version; nullopt for anything else.
struct EngineVersion {
  std::uint64_t part[3] = {0, 0, 0};
  bool at_least(std::uint64_t a, std::uint64_t b, std::uint64_t c) const noexcept {
    if (part[0] != a) return part[0] > a;
    if (part[1] != b) return part[1] > b;
    return part[2] >= c;
  }
};
std::optional<EngineVersion> parse_engine_version(std::string_view version) noexcept;

}  // namespace vramfit::detail

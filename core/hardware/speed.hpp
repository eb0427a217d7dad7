#pragma once
// How fast a model generates on a GPU: a roofline over bytes read and FLOPs per step, with honest
// efficiency ranges per engine and GPU class, pinned to published llama.cpp and vLLM measurements
// (tests/data/speed_measurements.json). Every speed is a range (low, high), never one number.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/engines/llamacpp.hpp"  // Engine, engine_name, parse_engine, kLlamaNUbatch
#include "hardware/gpu.hpp"
#include "model/model_spec.hpp"
#include "util/message.hpp"
#include "util/result.hpp"
#include "formats/weight_formats.hpp"

namespace vramfit {

// Discrete GDDR cards (consumer and workstation), HBM datacenter parts, Apple unified memory.
enum class GpuClass { consumer, datacenter, apple };
GpuClass gpu_class_of(const Gpu& gpu) noexcept;

// Which tensor units the matrix multiplications run on: llama.cpp's quantized kernels (MMQ) use the
// int8 tensor cores; vLLM and transformers dequantize to 16-bit; fp8 checkpoints may use fp8 units.
enum class ComputePath { fp16, int8, fp8, fp4 };

struct Range {
  double low = 0;
  double high = 0;
};

// Achieved share of the hardware's peaks, as a range. One decode step costs
//   max(bytes / (bandwidth · bandwidth_share), flops / (peak · compute_share)) + layers · layer_overhead_s.
// The overhead is what does not shrink with the model's bytes: each layer launches its kernels (norms, projections,
// attention, the MLP or the router and expert products) and waits for each, and small kernels take a few
// microseconds however little they do. It grows with the layers a step runs, and is why small models reach a smaller
// share of peak bandwidth on very fast GPUs.
// Prefill splits its FLOPs three ways, each at its own share: the dense matrix products (attention projections,
// dense MLPs, shared experts, the output head) at compute_share, the routed experts' grouped products (each expert
// multiplies only the tokens routed to it: many small matrices) at moe_share of the same peak, and attention over the
// cache (FlashAttention) at attention_share of the 16-bit tensor peak.
struct Efficiency {
  Range bandwidth_share;
  Range layer_overhead_s;  // seconds per layer of each decode step (and of each prefill chunk)
  Range compute_share;     // of the ComputePath peak, for prefill and compute-bound decode
  bool compute_pinned = false;  // compute_share checked against a measurement (else an assumption)
  Range moe_share;         // of the ComputePath peak: the routed experts' grouped GEMMs
  Range attention_share;   // of the 16-bit tensor peak: FlashAttention over the cache
  bool prefill_pinned = false;  // moe_share and attention_share checked against measurements
  std::string_view source;
  // The routed experts' grouped products run in tiles of whole token columns (llama.cpp's MMQ mul_mat_id: each
  // expert's tokens are cut into tiles of mmq_x columns, mmq_x chosen for the whole micro-batch, and every tile is
  // multiplied out in full): a tile's unused columns cost moe_tile_weight of a routed token's column each. 0: the
  // engine's grouped products are not modelled by tiles.
  double moe_tile_weight = 0;
  // What each MoE layer adds to a step besides its products, seconds: the router's kernels, the top-k, sorting the
  // tokens by expert, the grouped products' launches and the combine, kernels a dense layer does not launch. Per
  // step, whatever the batch, by the width the routed experts are stored in, as each width was measured on its own
  // model (which of width, kernel family or model sets the figure is not separated). {0, 0}: none added (llama.cpp: its single-stream MoE
  // decode runs, the DGX Spark's gpt-oss and Qwen3-30B-A3B, lie within the dense per-layer overhead; no MoE timing
  // for the others).
  struct MoeLayerOverhead {
    Range bits16{0, 0};  // experts stored in 16 bits (or wider)
    Range bits8{0, 0};   // in 8 bits (FP8, INT8)
    Range bits4{0, 0};   // in 4 bits or fewer (MXFP4, NVFP4, AWQ, GPTQ)
  };
  MoeLayerOverhead moe_layer_overhead_s{};
  // A Gated DeltaNet layer's recurrence over a prefill chunk of s tokens, seconds per layer of the measured shape
  // (Qwen3.5-35B-A3B's: 32 value heads, key and value heads of 128): the larger of floor_s and per_token_s · s, the
  // floor for kernels whose launches outlast their work on short chunks. All 0: not timed, which the explanation says.
  struct Recurrence {
    Range floor_s{0, 0};
    Range per_token_s{0, 0};
    bool timed() const noexcept { return floor_s.high > 0 || per_token_s.high > 0; }
  };
  Recurrence gated_delta{};
  // The card whose sweep gave moe_share and moe_tile_weight for the GPU's architecture; empty: pooled over the runs.
  std::string_view moe_card{};
};

// The efficiency of `engine` on `gpu_class`; see docs/methodology.md for each figure and its source.
const Efficiency& efficiency(Engine engine, GpuClass gpu_class) noexcept;
// On `gpu`: its class's, with llama.cpp's grouped products as measured for the GPU's architecture where a card of it
// was measured (NVIDIA Ampere and Ada Lovelace consumer and workstation cards).
const Efficiency& efficiency(Engine engine, const Gpu& gpu) noexcept;

// The layer count of the models each engine's per-step overhead was measured on (Llama-2 7B, Llama-3.1-8B,
// Mistral-7B: 32 each). A model whose layers are not known (a bare parameter count) pays the step's figure as measured.
inline constexpr std::uint64_t kOverheadMeasuredLayers = 32;

// The overhead of one step (or prefill chunk) through `layers` layers: layers · layer_overhead_s.
Range step_overhead_s(const Efficiency& eff, std::uint64_t layers) noexcept;

struct SpeedModel;
// What one MoE layer adds to each step (and prefill chunk): moe_layer_overhead_s for the routed experts' stored width.
Range moe_layer_overhead_for(const Efficiency& eff, const SpeedModel& model) noexcept;
// What the MoE layers add to each step (and prefill chunk): expert layers · moe_layer_overhead_for.
Range moe_overhead_s(const Efficiency& eff, const SpeedModel& model) noexcept;

// llama.cpp's MMQ tile width for a micro-batch of `tokens` on a tensor-core GPU: the fewest tiles of at most 128
// columns, each as narrow as the kernel's granularity allows (mul_mat_q_case's search over mmq_x for the fewest
// ntiles_x, the narrowest first).
double mmq_tile_columns(double tokens) noexcept;

inline Range operator+(Range a, Range b) noexcept { return {a.low + b.low, a.high + b.high}; }

// llama.cpp CPU layers: the share of system-RAM bandwidth they reach (slaren's 13900K, DDR5-6400:
// 7B Q4_0 at 18.27 t/s reads 3.83 GB · 18.27 = 70 GB/s of 102.4 GB/s; llama.cpp issue #34).
inline constexpr Range kCpuBandwidthShare{0.5, 0.8};
// The CPU computing the routed experts llama.cpp leaves in system RAM (--n-cpu-moe, -ot exps=CPU) reaches less of
// the RAM's bandwidth than a dense layer: a token multiplies a few small expert matrices per layer, each node ended by
// a barrier of the CPU's threads (llama.cpp decode with 30 layers' experts on the CPU profiled 4.5 % DRAM-bound, its
// cycles in synchronisation: nibor1896/Crow issue 159). The CPU's expert kernel alone, so that nothing of the GPU's
// part or of the hand-offs (counted apart) is in it: FlashML-org/FreeToken issue 444, two hosts with 8-channel
// DDR4-3200 (204.8 GB/s), "CPU-MoE ds_fp4" 108.4 and 110.3 GB/s (52.9 % and 53.9 %). The same issue's whole decode
// steps (72–85 GB/s of routed bytes) include the GPU's part and are not used. No llama.cpp measurement of its CPU
// expert kernels alone, nor one on another host, was found: the range is these two hosts' spread.
inline constexpr Range kCpuExpertBandwidthShare{0.53, 0.54};
// Each layer whose experts the CPU computes splits llama.cpp's graph twice per decoded token, GPU→CPU before the
// experts and CPU→GPU after them (splits per token = 4 + 2 · n_cpu_moe, read from llama.cpp's sched_reserve log at
// -ncmoe 24 to 40: nibor1896/Crow issue 159). A hand-off waits for the device, copies the hidden state across and
// starts the other side. Low end: one synchronising device-to-host round trip, 26.11 µs (RTX 3090, bare-metal Linux:
// jingyaogong/minimind PR 837). High end: llama.cpp's own cost of the same two hand-offs per layer with the attention
// on the CPU (-nkvo): 7B Q4_0 on an RTX 3060 Laptop GPU decodes 65.95 t/s without and 45.91 t/s with (ggml-org/
// llama.cpp PR 7526), 6.62 ms more per token over 64 hand-offs, 103 µs each; the CPU's attention over the cache is
// inside that figure (the laptop's RAM bandwidth is not published), so it is the most a hand-off can take.
inline constexpr Range kCpuHandoffSeconds{26e-6, 103e-6};
inline constexpr double kHandoffsPerCpuExpertLayer = 2;
// Dual-channel DDR5 in a desktop (the article "GPU-Speicher": 50–60 GB/s), the default for --system-bandwidth.
inline constexpr double kDefaultSystemBandwidthGbS = 60.0;

// One PCIe x16 link, one direction, in GB/s: lanes · GT/s · 128/130 / 8 (PCIe 3.0+ use 128b/130b:
// 3.0 15.75, 4.0 31.5, 5.0 63.0 GB/s; truenas.com "Interconnect Maximum Effective Data Rates").
std::optional<double> pcie_x16_gb_s(double generation) noexcept;

// GPU-to-GPU bandwidth one way, GB/s: half the catalog's bidirectional NVLink figure, else PCIe x16.
std::optional<double> interconnect_gb_s(const Gpu& gpu) noexcept;

// What one model costs per step, as plain numbers taken from the memory estimate.
struct SpeedModel {
  std::uint64_t weight_bytes_read = 0;  // weights read per token (MoE: routed experts only)
  std::uint64_t active_params = 0;      // parameters a token passes through (2 FLOPs each)
  // Of active_params, what prefill multiplies only once per prompt or not at all: the untied token embedding (a row
  // look-up) and the output head, which prefill runs for the last prompt token only (its logits give the first token).
  std::uint64_t lookup_params = 0;
  std::uint64_t head_params = 0;
  std::uint64_t num_layers = 0;
  bool layers_known = true;  // false for a bare parameter count: num_layers is 1, the overhead a measured step's
  std::uint64_t hidden_size = 0;        // the all-reduced activation width under tensor parallel
  std::uint64_t attention_width = 0;    // Σ over attention layers of heads · qk head_dim: the FLOPs over the context
  // The part of attention_width in sliding-window or chunked layers, by the most tokens such a layer attends to:
  // while decoding they attend to min(context, window) tokens.
  struct WindowedWidth {
    std::uint64_t width = 0;
    std::uint64_t window = 0;
  };
  std::vector<WindowedWidth> windowed_attention;
  std::uint64_t num_attention_heads = 0;  // the query heads every attention layer has a multiple of (tensor parallel)
  std::uint64_t num_kv_heads = 0;         // likewise the KV heads
  // Routed experts, by layers that route alike: a step of B sequences reads the experts the batch touches, and
  // llama.cpp --n-cpu-moe leaves some layers' experts in system RAM. bytes: those layers' routed experts as stored.
  struct ExpertGroup {
    std::uint64_t layers = 0;
    std::uint64_t experts = 0;  // E routed experts per layer
    std::uint64_t top_k = 0;    // k per token
    double bytes = 0;
    double params = 0;          // those layers' routed expert parameters, all E experts
  };
  std::vector<ExpertGroup> expert_groups;
  std::uint64_t output_bytes = 0;  // the output head (the embedding matrix when tied), read every step
  // Layers whose token mixer is a recurrence over the prompt besides its projections: Gated DeltaNet (Qwen3-Next,
  // Qwen3.5), Kimi Delta Attention and Mamba2, the last two not timed in prefill.
  std::uint64_t gated_delta_layers = 0;
  // Σ over those layers of value heads · key head size · value head size / (32 · 128 · 128): their size in layers of
  // the shape the recurrence was measured on (Efficiency::Recurrence).
  double gated_delta_size = 0;
  std::uint64_t kimi_delta_layers = 0;
  std::uint64_t mamba_layers = 0;

  std::uint64_t expert_layers() const noexcept;
  // The routed experts' stored bits per parameter (MXFP4: 4.25 with its scales); 0 without experts.
  double expert_bits() const noexcept;
  // Routed-expert parameters one token passes through: Σ groups params · k/E (part of active_params).
  double routed_active_params() const noexcept;
  // Bytes of routed experts one step reads for `batch` sequences: per layer the expected number of distinct experts
  // the batch touches under uniform routing, E · (1 − (1 − k/E)^batch), times one expert's bytes.
  double routed_bytes_read(std::uint64_t batch) const noexcept;
  // Routed-expert parameters of the experts `tokens` tokens touch, likewise: Σ groups params · (1 − (1 − k/E)^tokens).
  double routed_params_touched(std::uint64_t tokens) const noexcept;
};

// The SpeedModel of `spec` stored as `weights`: the token-embedding table is not read per token
// (one row is gathered) unless it is tied to the output head; MoE reads total · active/total params.
Result<SpeedModel> speed_model_from(const ModelSpec& spec, const WeightBytes& weights);

struct SpeedOptions {
  Engine engine = Engine::llamacpp;
  ComputePath compute = ComputePath::fp16;
  std::uint64_t batch = 1;                  // sequences decoded together (concurrency)
  std::uint64_t context_tokens = 0;         // tokens each sequence attends to (attention FLOPs)
  std::uint64_t kv_bytes_per_sequence = 0;  // one sequence's KV cache at that context (KV read)
  // One sequence's linear-attention and Mamba state: read and written back whole at every step.
  std::uint64_t state_bytes_per_sequence = 0;
  std::uint64_t tensor_parallel = 1;        // GPUs the layers are split across
  std::optional<std::uint64_t> gpu_layers;  // llama.cpp -ngl; none: every layer on the GPU
  // llama.cpp --n-cpu-moe / -ot exps=CPU / --fit's experts step: layers whose routed experts stay in system RAM,
  // where the CPU computes them each step (no weights cross PCIe while decoding).
  std::uint64_t cpu_expert_layers = 0;
  bool output_on_cpu = false;  // the output head left in system RAM (--fit once anything moves)
  double system_bandwidth_gb_s = kDefaultSystemBandwidthGbS;  // for layers left on the CPU
  // Whether the request gave it; else a machine whose GPU shares its RAM reads those layers at its CPU's bandwidth
  // (Gpu::cpu_bandwidth_gb_s), a desktop at the default.
  bool system_bandwidth_given = false;
  std::uint64_t prompt_tokens = 512;        // prefill length (llama-bench pp512)
  std::uint64_t prefill_depth = 0;          // tokens already in the cache before the prompt (llama-bench -d)
  // Tokens per forward pass while prefilling: llama.cpp's n_ubatch (-ub, 512), vLLM's max_num_batched_tokens,
  // SGLang's chunked_prefill_size, MLX's prefill_step_size; 0: the whole prompt in one pass (transformers).
  std::uint64_t prefill_chunk = kLlamaNUbatch;
  // llama.cpp's -fa: with FlashAttention off its attention multiplies every cached token whatever the pass's size.
  bool flash_attention = true;
};

struct DecodeSpeed {
  Range tokens_per_second;               // aggregate over the batch
  Range tokens_per_second_per_sequence;  // what one user sees
  Range step_seconds;
  double bytes_per_step_per_gpu = 0;
  double flops_per_step_per_gpu = 0;
  bool compute_bound = false;  // at the high-efficiency end, compute time exceeds memory time
  Range cpu_seconds;           // the part spent on CPU-held layers and experts (0 with everything on the GPU)
  Range handoff_seconds;       // of cpu_seconds, the hand-offs between GPU and CPU at the CPU's expert layers
  double bytes_per_step_cpu = 0;  // read from system RAM per step
  double distinct_experts_per_layer = 0;  // expected experts a step touches per MoE layer (0 for a dense model)
  Range allreduce_seconds;     // tensor-parallel communication per step
  double tensor_parallel_efficiency = 1;  // (one-GPU step / tp) / tp-GPU step, high-efficiency end
  Message explanation;  // how the figures were reached, in words
};

struct PrefillSpeed {
  Range tokens_per_second;  // prompt tokens / seconds
  Range seconds;            // the whole prompt's prefill: the time to first token from an empty cache (low: fast end)
  double flops = 0;         // for the whole prompt
  double gemm_flops = 0;    // of which the dense matrix products
  double moe_flops = 0;     // the routed experts' grouped products
  double attention_flops = 0;  // attention over the cache: 4 · width · s · (d + s/2) per chunk, windows capped
  std::uint64_t chunks = 1;    // forward passes the prompt takes
  Range recurrence_seconds{0, 0};  // of seconds, the Gated DeltaNet layers' recurrence (Efficiency::gated_delta)
  Message explanation;  // how the figures were reached, in words
};

// Decode: per step the engine reads the weights once for the whole batch (MoE: the experts the batch touches) plus
// every sequence's KV cache (sliding-window layers: their window) and reads and writes every sequence's recurrent state, and does
// 2 · active_params · batch FLOPs plus attention over the tokens each layer attends to; step time is the slower of
// the two (roofline) plus
// the overhead of its layers, plus the CPU-held layers' reads from system RAM, plus the all-reduces.
Result<DecodeSpeed> estimate_decode(const SpeedModel& model, const Gpu& gpu, const SpeedOptions& options);

// Prefill of prompt_tokens after prefill_depth cached tokens, in chunks of prefill_chunk tokens. Each chunk of s tokens
// at depth d costs 2 · (active − routed − embedding look-up − output head) · s FLOPs of dense products at
// compute_share (the head once, for the prompt's last token), 2 · routed active · s of
// grouped expert products at moe_share, and attention 4 · width · s · (d + s/2) (PaLM App. B's 4·L·d·T per token; a
// sliding-window layer attends to at most its window) at attention_share of the 16-bit peak; a chunk takes at least
// the time to read the weights it uses (every expert some token in the chunk is routed to), and Gated DeltaNet layers
// add their recurrence over its tokens (Efficiency::Recurrence). Over a whole prompt of P tokens the attention FLOPs
// add up to 2 · P² · width under the mask whatever the chunking.
// An error names the GPU when the catalog has no throughput figure for the compute path.
Result<PrefillSpeed> estimate_prefill(const SpeedModel& model, const Gpu& gpu, const SpeedOptions& options);

// A published measurement the efficiency ranges are checked against (tests/data/speed_measurements.json).
struct SpeedMeasurement {
  std::string model;   // preset id
  std::string format;  // weight format name ("q4_0", "bf16")
  std::string gpu;     // catalog id
  Engine engine = Engine::llamacpp;
  std::string metric;  // "decode" (aggregate tokens/s) or "prefill"
  std::uint64_t batch = 1;
  std::uint64_t context = 0;  // tokens in the cache while decoding; prompt length for prefill
  std::uint64_t depth = 0;    // prefill: tokens already in the cache (llama-bench "pp2048 @ d4096": 4096)
  std::uint64_t ubatch = 0;   // prefill: tokens per forward pass (llama-bench -ub); 0: llama.cpp's 512
  std::uint64_t cpu_expert_layers = 0;  // llama.cpp --n-cpu-moe: layers whose experts stayed in system RAM
  double system_bandwidth_gb_s = 0;     // the system RAM's bandwidth the run states (0: not given)
  double tokens_per_second = 0;
  std::string source;
};
Result<std::vector<SpeedMeasurement>> parse_speed_measurements(std::string_view json_text);

}  // namespace vramfit

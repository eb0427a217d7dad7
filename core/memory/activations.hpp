#pragma once
// Training activations: what autograd keeps from the forward pass until the backward pass needs it.
// Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models",
// arXiv 2205.05198) §4, generalised to GQA, gated MLPs, RMSNorm, MoE, FlashAttention and LoRA.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "formats/dtype.hpp"
#include "util/explanation.hpp"
#include "model/model_spec.hpp"
#include "util/result.hpp"
#include "util/message.hpp"  // Message

namespace vramfit {

// none: keep everything; selective: drop the attention scores and recompute them (Korthikanti §5);
// full: keep only each layer's input and rerun the layer's forward during backward.
enum class Checkpointing { none, selective, full };
std::string_view checkpointing_name(Checkpointing c) noexcept;  // "none", "selective", "full"
std::optional<Checkpointing> parse_checkpointing(std::string_view name) noexcept;
std::string checkpointing_names();  // "none, selective, full"

// The linear layers of a transformer block, by their Hugging Face / PEFT names. Used for LoRA targets
// and for "whose input does autograd keep": a frozen linear needs only its weight to pass the
// gradient on, so its input is kept only when the layer trains (or something else keeps it).
struct LinearSet {
  bool q = false, k = false, v = false, o = false;
  bool gate = false, up = false, down = false;
  bool router = false;  // MoE router ("gate" in Mixtral); PEFT's all-linear includes it

  static LinearSet all() noexcept { return {true, true, true, true, true, true, true, true}; }
  static LinearSet none() noexcept { return {}; }
  bool any() const noexcept { return q || k || v || o || gate || up || down || router; }
};

// Which implementation's saved tensors the figure counts. transformers (v4.46-v4.50) eager: scores, the fp32
// softmax and its cast, repeat_kv copies; sdpa / flash_attention_2: q, k, v, the output and an fp32
// log-sum-exp per head (SDPA's flash and memory-efficient kernels, FlashAttention-2); megatron: Korthikanti
// et al. 2022 §4.1 as written (fused norms, 5as²b scores).
enum class AttnImplementation { eager, sdpa, flash_attention_2, megatron };
std::string_view attn_implementation_name(AttnImplementation a) noexcept;  // "eager", "sdpa", ...
std::optional<AttnImplementation> parse_attn_implementation(std::string_view name) noexcept;
std::string attn_implementation_names();  // "eager, sdpa, flash_attention_2, megatron"
// eager and megatron keep the s×s attention scores; SDPA and FlashAttention-2 recompute them in backward.
bool keeps_attention_scores(AttnImplementation a) noexcept;

struct ActivationOptions {
  std::uint64_t sequence = 2048;  // s: tokens per sequence
  std::uint64_t micro_batch = 1;  // b: sequences per micro-batch on one GPU
  DType dtype = DType::bf16;      // activation dtype: 16-bit in mixed/bf16 training, fp32 in fp32 training
  AttnImplementation implementation = AttnImplementation::sdpa;
  // Dropout masks where transformers applies them: attention dropout on the softmax output (eager keeps an s²
  // mask; FlashAttention regenerates it), hidden dropout after the projections and the embedding (GPT-2
  // resid_pdrop / embd_pdrop, BERT hidden_dropout_prob). Llama-family models have attention dropout only.
  bool attention_dropout = false;
  bool hidden_dropout = false;
  // Bytes per dropout-mask element: CUDA's fused dropout keeps a bool mask (1); torch's CPU dropout keeps its
  // scaled noise in the activation dtype (c), as the CPU measurement saw.
  std::uint64_t dropout_mask_bytes = 1;
  // Cross-entropy over chunks of this many tokens (Liger / Unsloth fused loss): the fp32 logits are never
  // kept whole; 0: transformers' ForCausalLMLoss over every token at once.
  std::uint64_t loss_chunk_tokens = 0;
  // Tokens per sequence the loss computes logits for: GRPO's log-probs cover the completion only (TRL passes
  // logits_to_keep); 0: every token.
  std::uint64_t loss_tokens = 0;
  Checkpointing checkpointing = Checkpointing::none;
  std::uint64_t tensor_parallel = 1;  // t
  bool sequence_parallel = false;     // Korthikanti §4.2.2: norms and dropouts split along the sequence too
  LinearSet trainable = LinearSet::all();  // full training: all; LoRA: the adapted modules
  std::uint64_t lora_rank = 0;             // r: each adapted module also keeps its r-wide lora_A output
  bool lm_head_trains = true;              // full training: the output layer keeps its input (LoRA: frozen)
  bool norms_train = true;                 // full training; LoRA freezes the norms' weights
};

// One transformer layer, one micro-batch, one GPU (after tensor/sequence parallel division).
struct LayerActivationBytes {
  std::uint64_t replicated = 0;  // norms, block inputs, hidden dropout masks: divided by t only with SP
  std::uint64_t sharded = 0;     // inside the tensor-parallel regions: q, k, v, MLP internals (÷ t)
  std::uint64_t scores = 0;      // eager attention's s×s softmax, dropout mask and dropout output (÷ t)
  std::uint64_t full = 0;        // replicated + sharded + scores: the layer without checkpointing
  std::uint64_t kept = 0;        // what the layer keeps under the chosen checkpointing
};

// One run of identical layers (model/layers.hpp) and what each of its layers keeps.
struct RunActivations {
  std::uint64_t first_layer = 0;
  std::uint64_t count = 0;
  LayerActivationBytes layer;
};

struct ActivationEstimate {
  AttnImplementation implementation = AttnImplementation::sdpa;  // as estimated
  bool attention_dropout = false;  // as estimated
  bool hidden_dropout = false;
  std::vector<RunActivations> runs;  // in layer order, covering every layer
  std::uint64_t num_layers = 0;

  std::uint64_t layers = 0;          // Σ kept over every layer, one micro-batch
  std::uint64_t recompute_peak = 0;  // full checkpointing: one layer's full set, rebuilt during its backward
  std::uint64_t embedding = 0;       // embedding dropout mask (first pipeline stage)
  std::uint64_t head = 0;            // final norm and lm_head inputs (last pipeline stage)
  std::uint64_t logits = 0;          // what the loss keeps: the fp32 log-softmax of the logits (last stage)
  std::uint64_t logits_gradient = 0; // the loss backward's temporaries: fp32 gradients of the logits
  std::uint64_t layer_transient = 0; // one layer's backward temporaries (eager: the scores' gradients)
  std::uint64_t backward_transient = 0;  // max(logits_gradient, layer_transient): on top of total at the peak
  std::uint64_t total = 0;           // layers + recompute_peak + embedding + head + logits (no pipeline)

  std::vector<Explanation> explanations;
  std::vector<Message> notes;

  // Σ kept over layers [first, first + count): a pipeline stage's share for one micro-batch.
  std::uint64_t kept_for_layers(std::uint64_t first, std::uint64_t count) const noexcept;
  // The activations of layer `index` (< num_layers), and of the layer that keeps the most without checkpointing.
  const LayerActivationBytes& layer(std::uint64_t index) const noexcept;
  const LayerActivationBytes& largest_layer() const noexcept;
};

// Activation memory of one micro-batch on one GPU. Needs the architecture (not a bare count).
Result<ActivationEstimate> estimate_activations(const ModelSpec& spec, const ActivationOptions& options);

// Korthikanti et al. 2022, Table 2, verbatim (16-bit activations, 1-byte dropout masks, GPT layer with
// 4h MLP and LayerNorm), in bytes per layer:
//   no parallelism            sbh(34 + 5as/h)
//   tensor parallel t         sbh(10 + 24/t + 5as/(ht))
//   tensor + sequence par.    sbh(34/t + 5as/(ht))
//   selective recompute       the 5as/h term dropped
//   full recompute            2sbh
// Nothing on overflow. t = 1 and sequence_parallel = false is the first row.
std::optional<std::uint64_t> korthikanti_layer_bytes(std::uint64_t s, std::uint64_t b, std::uint64_t h,
                                                     std::uint64_t a, std::uint64_t t, bool sequence_parallel,
                                                     Checkpointing checkpointing) noexcept;

}  // namespace vramfit

#include "memory/training.hpp"

#include <algorithm>  // std::max
#include <array>      // std::array
#include <cstdlib>    // std::strtod

#include "util/byte_math.hpp"
#include "util/number_text.hpp"  // std::to_string(double) is printf's "%f": kept out of the wasm
#include "util/text.hpp"
#include "memory/inference.hpp"  // kMaxContextTokens, kCudaContextBytes
#include "model/tensors.hpp"

namespace vramfit {
namespace {

using detail::CheckedSum;
using detail::Text;

// Choice names as the flags spell them, in enum order, then the other spellings each parser accepts.
constexpr std::array<NamedValue<TrainingMode>, 3> kModes{
    {{"train", TrainingMode::full}, {"lora", TrainingMode::lora}, {"qlora", TrainingMode::qlora}}};
constexpr std::array<NamedValue<TrainingMode>, 3> kModeAliases{
    {{"full", TrainingMode::full}, {"training", TrainingMode::full}, {"full-finetune", TrainingMode::full}}};
constexpr std::array<NamedValue<Precision>, 4> kPrecisions{{{"fp32", Precision::fp32},
                                                            {"mixed-fp16", Precision::mixed_fp16},
                                                            {"mixed-bf16", Precision::mixed_bf16},
                                                            {"bf16", Precision::bf16}}};
constexpr std::array<NamedValue<Precision>, 6> kPrecisionAliases{{{"fp16", Precision::mixed_fp16},
                                                                  {"amp-fp16", Precision::mixed_fp16},
                                                                  {"mixed", Precision::mixed_bf16},
                                                                  {"amp", Precision::mixed_bf16},
                                                                  {"amp-bf16", Precision::mixed_bf16},
                                                                  {"pure-bf16", Precision::bf16}}};
constexpr std::array<NamedValue<GradDType>, 2> kGradDTypes{{{"fp32", GradDType::fp32}, {"half", GradDType::half}}};
constexpr std::array<NamedValue<GradDType>, 4> kGradDTypeAliases{
    {{"float32", GradDType::fp32}, {"fp16", GradDType::half}, {"bf16", GradDType::half}, {"16", GradDType::half}}};
// Hugging Face TrainingArguments.optim spellings.
constexpr std::array<NamedValue<Optimizer>, 9> kOptimizerAliases{{{"adam", Optimizer::adamw},
                                                                    {"adamw-torch", Optimizer::adamw},
                                                                    {"adamw-torch-fused", Optimizer::adamw},
                                                                    {"adamw-hf", Optimizer::adamw},
                                                                    {"adamw-bnb-8bit", Optimizer::adamw_8bit},
                                                                    {"adamw-8bit", Optimizer::adamw_8bit},
                                                                    {"adam8bit", Optimizer::adamw_8bit},
                                                                    {"paged-adamw-32bit", Optimizer::paged_adamw},
                                                                    {"sgdm", Optimizer::sgd_momentum}}};

// The value `name`, folded ('_' read as '-'), has in the table of names, else in the table of aliases.
template <class T, std::size_t N, std::size_t M>
std::optional<T> parse_choice(const std::array<NamedValue<T>, N>& names,
                              const std::array<NamedValue<T>, M>& aliases, std::string_view name) {
  const std::string folded = fold_name(name, '-');
  if (const auto* entry = find_named(names, folded)) return entry->value;
  if (const auto* entry = find_named(aliases, folded)) return entry->value;
  return std::nullopt;
}

// Optimizer state per trainable parameter with fp32 weights. Sources: HF "model memory anatomy"
// (AdamW 8 B, 8-bit AdamW 2 B, SGD with momentum 4 B); Adafactor (Shazeer & Stern 2018) keeps a row
// and a column vector per matrix instead of the m×n second moment, and no first moment (beta1 = None,
// the HF default); Lion (Chen et al. 2023) keeps one momentum.
constexpr std::array<OptimizerInfo, 8> kOptimizers{{
    {Optimizer::adamw, "adamw", 8, false, false, "AdamW: fp32 first and second moments"},
    {Optimizer::adamw_8bit, "adamw-8bit", 2, true, false, "bitsandbytes 8-bit AdamW: both moments in 8 bits"},
    {Optimizer::paged_adamw, "paged-adamw", 8, false, true, "bitsandbytes paged AdamW (32-bit states)"},
    {Optimizer::paged_adamw_8bit, "paged-adamw-8bit", 2, true, true, "bitsandbytes paged 8-bit AdamW"},
    {Optimizer::sgd, "sgd", 0, false, false, "SGD without momentum: no state"},
    {Optimizer::sgd_momentum, "sgd-momentum", 4, false, false, "SGD with momentum: one buffer"},
    {Optimizer::adafactor, "adafactor", 0, false, false, "Adafactor: factored second moment, no first moment"},
    {Optimizer::lion, "lion", 4, false, false, "Lion: one momentum"},
}};

bool targeted(Projection p, const LinearSet& t) {
  switch (p) {
    case Projection::q: return t.q;
    case Projection::k: return t.k;
    case Projection::v: return t.v;
    case Projection::o: return t.o;
    case Projection::gate: return t.gate;
    case Projection::up: return t.up;
    case Projection::down: return t.down;
    case Projection::router: return t.router;
    case Projection::none: return false;
  }
  return false;
}

// A weight matrix (ModelTensor::is_matrix) and how many alike the model has: its blocks × its stacked experts.
struct Matrix {
  std::uint64_t d_in = 0, d_out = 0, count = 0;
};
Matrix matrix_of(const ModelTensor& t) { return {t.shape[0], t.shape[1], t.copies() * t.experts}; }

// LoRA (Hu et al. 2021) on every copy of a matrix: A is r × d_in, B is d_out × r.
std::optional<std::uint64_t> adapter_params(const Matrix& m, std::uint64_t rank) {
  return detail::product({rank, m.d_in + m.d_out, m.count});
}

struct GroupParams {
  std::uint64_t total = 0;      // the model's own parameters in this group
  std::uint64_t trainable = 0;  // full: = total; LoRA: adapter parameters (added on top)
  std::uint64_t quantized = 0;  // QLoRA: linear weights stored as NF4
  std::uint64_t matrix_params = 0;         // Σ d_in·d_out of the group's matrices
  std::uint64_t factored_elements = 0;     // Adafactor: Σ (rows + cols) over trainable matrices
};

struct Conventions {
  std::uint64_t weight = 2;   // trainable weights used for compute
  std::uint64_t master = 4;   // fp32 master copy
  std::uint64_t grad = 4;
  std::uint64_t frozen = 2;   // frozen base weights (LoRA)
  std::uint64_t moments = 8;  // optimizer state per trainable parameter (not Adafactor)
};

struct GroupStates {
  ModelStateBytes states;
  std::uint64_t master = 0;
  std::uint64_t params = 0;
};

std::optional<GroupStates> group_states(const GroupParams& g, const Conventions& c, const TrainingOptions& o) {
  const bool adapters = o.mode != TrainingMode::full;
  CheckedSum weights, grads, master, moments;
  if (adapters) {
    if (o.mode == TrainingMode::qlora) {
      weights.add(nf4_double_quant_bytes(g.quantized)).add({g.total - g.quantized, 2});
    } else {
      weights.add({g.total, c.frozen});
    }
  }
  weights.add({g.trainable, c.weight});
  grads.add({g.trainable, c.grad});
  master.add({g.trainable, c.master});
  if (o.optimizer == Optimizer::adafactor) {
    // Factored second moment, fp32: rows + cols per matrix; 1-D tensors (norms, biases) keep a full vector.
    moments.add({g.factored_elements, 4});
    if (!adapters) moments.add({g.total - g.matrix_params, 4});
  } else {
    moments.add({g.trainable, c.moments});
  }
  CheckedSum optimizer;
  optimizer.add(master.result()).add(moments.result());
  if (weights.overflow() || grads.overflow() || optimizer.overflow()) return std::nullopt;
  GroupStates out;
  out.states = {weights.value(), grads.value(), optimizer.value()};
  out.master = master.value();
  out.params = g.total + (adapters ? g.trainable : 0);
  return out;
}

std::optional<GroupStates> scaled(const GroupStates& g, std::uint64_t num, std::uint64_t den) {
  if (den == 0) return std::nullopt;
  auto w = detail::mul_div_ceil(g.states.weights, num, den);
  auto gr = detail::mul_div_ceil(g.states.gradients, num, den);
  auto op = detail::mul_div_ceil(g.states.optimizer, num, den);
  auto ma = detail::mul_div_ceil(g.master, num, den);
  auto pa = detail::mul_div_ceil(g.params, num, den);
  if (!w || !gr || !op || !ma || !pa) return std::nullopt;
  return GroupStates{{*w, *gr, *op}, *ma, *pa};
}

std::optional<GroupStates> plus(const GroupStates& a, const GroupStates& b) {
  CheckedSum w, g, o, m, p;
  w.add(a.states.weights).add(b.states.weights);
  g.add(a.states.gradients).add(b.states.gradients);
  o.add(a.states.optimizer).add(b.states.optimizer);
  m.add(a.master).add(b.master);
  p.add(a.params).add(b.params);
  if (w.overflow() || g.overflow() || o.overflow() || m.overflow() || p.overflow()) return std::nullopt;
  return GroupStates{{w.value(), g.value(), o.value()}, m.value(), p.value()};
}

Error overflow_error() {
  return make_error("model", message("error.training.overflow", "the training memory overflows 64 bits; check the sizes"));
}

constexpr std::string_view kLoraModules = "q, k, v, o, gate, up, down, router";

Error no_lora_module() {
  return make_error("lora-targets", message("error.lora.no_module",
                                            "name at least one module: {modules} (comma-separated) or all-linear",
                                            {arg::text("modules", kLoraModules)}));
}

Error lora_rank_error(std::uint64_t rank) {
  return make_error("lora-rank", message("error.range", "must be between 1 and {max}, got {value}",
                                         {arg::digits("max", kMaxLoraRank), arg::digits("value", rank)}));
}

std::string gb(std::uint64_t bytes) {
  const double v = static_cast<double>(bytes) / 1e9;
  std::string s = detail::fixed_text(v, 6);
  return s.substr(0, s.find('.') + 3) + " GB";
}

}  // namespace

// ---- names ---------------------------------------------------------------------------------------

std::string_view training_mode_name(TrainingMode mode) noexcept { return kModes[static_cast<std::size_t>(mode)].name; }
std::optional<TrainingMode> parse_training_mode(std::string_view name) noexcept {
  return parse_choice(kModes, kModeAliases, name);
}
std::string training_mode_names() { return join_names(kModes); }

std::string_view precision_name(Precision p) noexcept { return kPrecisions[static_cast<std::size_t>(p)].name; }
std::optional<Precision> parse_precision(std::string_view name) noexcept {
  return parse_choice(kPrecisions, kPrecisionAliases, name);
}
std::string precision_names() { return join_names(kPrecisions); }

std::string_view grad_dtype_name(GradDType d) noexcept { return kGradDTypes[static_cast<std::size_t>(d)].name; }
std::optional<GradDType> parse_grad_dtype(std::string_view name) noexcept {
  return parse_choice(kGradDTypes, kGradDTypeAliases, name);
}
std::string grad_dtype_names() { return join_names(kGradDTypes); }

std::span<const OptimizerInfo> all_optimizers() noexcept { return kOptimizers; }
const OptimizerInfo& optimizer_info(Optimizer o) noexcept { return kOptimizers[static_cast<std::size_t>(o)]; }
std::optional<Optimizer> parse_optimizer(std::string_view name) noexcept {
  const std::string f = fold_name(name, '-');
  if (const OptimizerInfo* info = find_named(kOptimizers, f)) return info->optimizer;
  if (const auto* alias = find_named(kOptimizerAliases, f)) return alias->value;
  return std::nullopt;
}
std::string optimizer_names() { return join_names(kOptimizers); }

Result<LinearSet> parse_lora_targets(std::string_view names) {
  const std::string f = fold_name(names, '-');
  if (f == "all-linear" || f == "all") return LinearSet::all();
  LinearSet out;
  std::size_t start = 0;
  while (start <= f.size()) {
    std::size_t end = f.find(',', start);
    if (end == std::string::npos) end = f.size();
    std::string item = f.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.size() > 5 && item.ends_with("-proj")) item.resize(item.size() - 5);  // q_proj → q
    if (item == "q") out.q = true;
    else if (item == "k") out.k = true;
    else if (item == "v") out.v = true;
    else if (item == "o") out.o = true;
    else if (item == "gate") out.gate = true;
    else if (item == "up") out.up = true;
    else if (item == "down") out.down = true;
    else if (item == "router") out.router = true;
    else
      return make_error("lora-targets",
                        message("error.lora.unknown_module",
                                "unknown module '{module}'; allowed: {modules} (comma-separated) or all-linear",
                                {arg::text("module", item), arg::text("modules", kLoraModules)}));
    start = end + 1;
  }
  if (!out.any()) return no_lora_module();
  return out;
}
std::string lora_target_names() { return std::string(kLoraModules) + " (comma-separated) or all-linear"; }

std::optional<std::uint64_t> nf4_double_quant_bytes(std::uint64_t params) noexcept {
  // bits = 4·n + 8·n/64 + 32·n/(64·256) = n · (4·16384 + 2048 + 32) / 16384; bytes = bits / 8.
  constexpr std::uint64_t kPer = kNf4BlockSize * kNf4SecondBlockSize;  // 16384
  constexpr std::uint64_t kBitsPerPer = 4 * kPer + 8 * kNf4SecondBlockSize + 32;  // 67,616 bits per 16,384 weights
  return detail::mul_div_ceil(params, kBitsPerPer, kPer * 8);
}

Result<std::uint64_t> lora_trainable_params(const ModelSpec& spec, std::uint64_t rank, const LinearSet& targets) {
  if (spec.is_bare())
    return make_error("model", message("error.lora.architecture", "LoRA needs the architecture (which matrices, what "
                                                                 "shapes): give a preset or a config.json"));
  if (auto ok = validate(spec); !ok) return ok.error();
  if (rank < 1 || rank > kMaxLoraRank) return lora_rank_error(rank);
  CheckedSum sum;
  for (const auto& t : model_tensors(spec)) {
    if (!t.is_matrix() || !targeted(t.projection, targets)) continue;
    sum.add(adapter_params(matrix_of(t), rank));
  }
  if (sum.overflow()) return overflow_error();
  return sum.value();
}

// ---- the estimate ---------------------------------------------------------------------------------

namespace {

// GRPO as TRL runs it: data parallel (DDP, ZeRO, FSDP) over one model per GPU, on a model whose shapes are known.
std::optional<Error> check_grpo(const ModelSpec& spec, const TrainingOptions& o) {
  if (!o.grpo) return std::nullopt;
  if (spec.is_bare())
    return make_error("mode", message("error.grpo.architecture", "GRPO needs the architecture (KV cache, vocabulary): "
                                                               "give a preset or a config.json"));
  if (o.parallel.tensor_parallel > 1 || o.parallel.pipeline_parallel > 1)
    return make_error(o.parallel.tensor_parallel > 1 ? "tp" : "pp",
                      message("error.grpo.data_parallel", "TRL's GRPOTrainer trains data parallel only (DDP, DeepSpeed "
                                                          "ZeRO, FSDP): set it to 1"));
  if (o.grpo->prompt_tokens + o.grpo->completion_tokens > kMaxContextTokens)
    return make_error("completion_tokens", message("error.grpo.sequence", "prompt + completion must be at most {max} tokens",
                                                   {arg::digits("max", kMaxContextTokens)}));
  return std::nullopt;
}

Message total_source();
Explanation total_explanation(const RankMemory& b, bool grpo);

// GRPO's lines on one GPU. HF generate runs between training steps, when the step's activations and temporaries are
// freed: its line is what the sampling phase needs beyond them, so the lines still add up to the peak. A colocated
// vLLM engine holds its whole share through the step.
std::optional<Error> add_grpo_lines(RankMemory& r, const GrpoBytes& g) {
  r.reference_model = g.reference_model;
  const std::uint64_t step = r.activations + r.temporary;
  r.sampling = g.sampling_overlaps_training ? g.sampling : g.sampling - std::min(g.sampling, step);
  CheckedSum total;
  total.add(r.total).add(r.reference_model).add(r.sampling);
  if (total.overflow()) return overflow_error();
  r.total = total.value();
  return std::nullopt;
}

std::optional<Error> add_grpo(TrainingEstimate& e, const ModelSpec& spec, const TrainingOptions& o) {
  if (!o.grpo) return std::nullopt;
  const GrpoInputs in{spec,
                      *o.grpo,
                      o.mode == TrainingMode::full,
                      e.replica.weights,
                      o.parallel.zero == ZeroStage::parameters ? e.layout.data_parallel : 1,
                      e.replica.weights,
                      o.parallel.zero == ZeroStage::parameters ? e.layout.data_parallel : 1,
                      e.layout.micro_batch,
                      e.layout.gradient_accumulation,
                      e.layout.gpus,
                      o.precision == Precision::fp32 ? DType::fp32
                      : o.precision == Precision::mixed_fp16 ? DType::fp16 : DType::bf16};
  auto g = estimate_grpo(in);
  if (!g) return g.error();
  for (auto& r : e.ranks)
    if (auto error = add_grpo_lines(r, g.value())) return *error;
  e.breakdown = e.ranks.front();
  for (const auto& r : e.ranks)
    if (r.total > e.breakdown.total) e.breakdown = r;
  const RankMemory& b = e.breakdown;
  for (auto& x : e.explanations)
    if (x.key == "total") x = total_explanation(b, true);
  for (auto& x : grpo_explanations(in, g.value(), b.activations + b.temporary)) e.explanations.push_back(std::move(x));
  for (auto& n : grpo_notes(in, g.value())) e.notes.push_back(std::move(n));
  e.grpo = std::move(g).value();
  return std::nullopt;
}

// The options this spec can take; the gradient dtype in effect (fp32, or half for pure bf16, unless chosen).
Result<GradDType> check_training_options(const ModelSpec& spec, const TrainingOptions& o) {
  const bool bare = spec.is_bare();
  const bool adapters = o.mode != TrainingMode::full;
  if (o.sequence < 1 || o.sequence > kMaxContextTokens)
    return make_error("sequence", message("error.tokens_range", "must be between 1 and {max} tokens, got {value}",
                                          {arg::digits("max", kMaxContextTokens), arg::digits("value", o.sequence)}));
  if (adapters && bare)
    return make_error("mode", message("error.lora_bare", "LoRA and QLoRA need the architecture (which matrices, what "
                                                       "shapes): give a preset or a config.json"));
  if (o.optimizer == Optimizer::adafactor && bare)
    return make_error("optimizer", message("error.training.adafactor_bare", "adafactor's factored state needs the matrix "
                                                                          "shapes: give a preset or a config.json"));
  if (adapters && !o.lora_targets.any()) return no_lora_module();
  const GradDType grad = o.grad_dtype.value_or(o.precision == Precision::bf16 ? GradDType::half : GradDType::fp32);
  if (o.precision == Precision::fp32 && grad == GradDType::half)
    return make_error("grad-dtype", message("error.training.half_gradients_fp32", "half-precision gradients need "
                                                                                 "mixed-fp16, mixed-bf16 or bf16 "
                                                                                 "precision, not fp32"));
  return grad;
}

Result<ParallelLayout> training_layout(const ModelSpec& spec, const TrainingOptions& o) {
  const bool bare = spec.is_bare();
  auto layout = plan_parallelism(o.parallel, bare ? 0 : spec.num_layers(), bare ? 0 : spec.attention_heads_gcd());
  if (!layout) return layout.error();
  if (bare && (layout.value().tensor_parallel > 1 || layout.value().pipeline_parallel > 1))
    return make_error(layout.value().tensor_parallel > 1 ? "tp" : "pp",
                      message("error.training.parallel_bare", "tensor and pipeline parallel need the architecture: "
                                                              "give a preset or a config.json"));
  return layout;
}

// Bytes per parameter for this precision, gradient dtype and optimizer.
Conventions conventions_for(const TrainingOptions& o, GradDType grad) {
  const auto& opt = optimizer_info(o.optimizer);
  Conventions c;
  c.weight = o.precision == Precision::fp32 ? 4 : 2;
  c.master = (o.precision == Precision::mixed_fp16 || o.precision == Precision::mixed_bf16) ? 4 : 0;
  c.grad = grad == GradDType::fp32 ? 4 : 2;
  c.frozen = o.precision == Precision::fp32 ? 4 : 2;
  // torch optimizers create their state like the parameter: pure-bf16 weights get bf16 moments.
  c.moments = opt.eight_bit ? opt.state_bytes_per_param
                            : (o.precision == Precision::bf16 ? opt.state_bytes_per_param / 2 : opt.state_bytes_per_param);
  return c;
}

Message gradient_convention(GradDType grad) {
  return grad == GradDType::fp32
             ? message("explain.gradients.source_fp32",
                       "fp32 gradients (HF Trainer / PyTorch AMP convention; mixed-precision AdamW = 18 B/param)")
             : message("explain.gradients.source_half",
                       "half-precision gradients (ZeRO paper / Megatron convention; mixed-precision AdamW = 16 B/param)");
}

struct ParamGroups {
  GroupParams embed;   // embedding side: the first pipeline stage
  GroupParams layers;  // the blocks, split between the stages
  GroupParams head;    // output side: the last stage
  std::uint64_t largest_matrix = 0;
};

// What trains, what is frozen and what is NF4, per group, from the model's tensors.
Result<ParamGroups> param_groups(const ModelSpec& spec, const ParamCounts& params, const TrainingOptions& o) {
  const bool adapters = o.mode != TrainingMode::full;
  ParamGroups out;
  if (spec.is_bare()) {  // full training only: LoRA needs the architecture
    out.layers.total = out.layers.trainable = params.total;
    return out;
  }
  for (const auto& t : model_tensors(spec)) {
    GroupParams& g = t.site == TensorSite::input ? out.embed : t.site == TensorSite::block ? out.layers : out.head;
    const auto size = detail::product({t.elements().value_or(0), t.copies()});
    if (!size) return overflow_error();
    g.total += *size;
    if (!t.is_matrix()) continue;
    const Matrix m = matrix_of(t);
    g.matrix_params += *size;
    out.largest_matrix = std::max(out.largest_matrix, m.d_in * m.d_out);
    if (o.mode == TrainingMode::qlora && t.site == TensorSite::block) g.quantized += *size;
    if (adapters) {
      if (targeted(t.projection, o.lora_targets)) {
        const auto lora = adapter_params(m, o.lora_rank);
        if (!lora) return overflow_error();
        g.trainable += *lora;
        g.factored_elements += (2 * o.lora_rank + m.d_in + m.d_out) * m.count;  // A: r×d_in, B: d_out×r
      }
    } else {
      g.factored_elements += (m.d_in + m.d_out) * m.count;
    }
  }
  if (!adapters) {
    out.embed.trainable = out.embed.total;
    out.layers.trainable = out.layers.total;
    out.head.trainable = out.head.total;
  }
  return out;
}

struct ModelStates {
  GroupStates embed, layers, head;
  GroupStates tied_copy;  // the last pipeline stage's own copy of tied embeddings; zero when none
};

std::optional<ModelStates> model_states(const ModelSpec& spec, const ParamGroups& g, const Conventions& c,
                                        const TrainingOptions& o, const ParallelLayout& layout) {
  auto embed = group_states(g.embed, c, o), layers = group_states(g.layers, c, o), head = group_states(g.head, c, o);
  if (!embed || !layers || !head) return std::nullopt;
  ModelStates out{*embed, *layers, *head, {}};
  // Pipeline parallel with tied embeddings: the last stage keeps its own copy of the embedding matrix
  // for the output layer (Megatron), trained and synchronised with the first stage's.
  if (!spec.is_bare() && spec.tied_embeddings && spec.has_lm_head && layout.pipeline_parallel > 1) {
    const bool adapters = o.mode != TrainingMode::full;
    GroupParams t;
    t.total = spec.vocab_size * spec.hidden_size;
    t.matrix_params = t.total;
    t.trainable = adapters ? 0 : t.total;
    t.factored_elements = adapters ? 0 : spec.vocab_size + spec.hidden_size;
    auto tied = group_states(t, c, o);
    if (!tied) return std::nullopt;
    out.tied_copy = *tied;
  }
  return out;
}

// Activations of one micro-batch.
Result<ActivationEstimate> training_activations(const ModelSpec& spec, const TrainingOptions& o,
                                                const ParallelLayout& layout) {
  const bool adapters = o.mode != TrainingMode::full;
  ActivationOptions a;
  a.sequence = o.sequence;
  a.micro_batch = layout.micro_batch;
  a.dtype = o.precision == Precision::fp32 ? DType::fp32
            : o.precision == Precision::mixed_fp16 ? DType::fp16 : DType::bf16;
  a.implementation = o.attn_implementation;
  // Each kind of mask as the config sets its probability; --dropout on/off forces both.
  a.attention_dropout = o.dropout.value_or(spec.attention_dropout > 0);
  a.hidden_dropout = o.dropout.value_or(spec.hidden_dropout > 0);
  a.checkpointing = o.checkpointing;
  a.tensor_parallel = layout.tensor_parallel;
  a.sequence_parallel = o.parallel.sequence_parallel && layout.tensor_parallel > 1;
  a.trainable = adapters ? o.lora_targets : LinearSet::all();
  a.lora_rank = adapters ? o.lora_rank : 0;
  a.lm_head_trains = !adapters;
  a.norms_train = !adapters;
  if (o.grpo) a.loss_tokens = o.grpo->completion_tokens;
  return estimate_activations(spec, a);
}

// ZeRO-3 gathers each layer's 16-bit weights before use and prefetches the next: DeepSpeed's
// estimator reserves 4 × the largest layer's parameters (two 2-byte copies).
std::uint64_t zero3_gather_bytes(const TrainingEstimate& e, const TrainingOptions& o) {
  return o.parallel.zero == ZeroStage::parameters ? ceil_div(4 * e.largest_layer_params, e.layout.tensor_parallel) : 0;
}

// Everything one rank's memory follows from.
struct RankInputs {
  const ModelSpec& spec;
  const TrainingOptions& o;
  const TrainingEstimate& e;  // layout, activations and the largest matrix
  const ModelStates& states;
};

// The model states of pipeline stage `stage` on one GPU, before ZeRO: its layers' share, the embedding side on
// the first stage, the output side on the last, each matrix split t ways by tensor parallel (norms are
// replicated: ignored).
std::optional<GroupStates> stage_states(const RankInputs& in, std::uint64_t stage, const StageLayers& layers) {
  const std::uint64_t p = in.e.layout.pipeline_parallel;
  auto g = scaled(in.states.layers, layers.count, in.spec.is_bare() ? 1 : in.spec.num_layers());
  if (g && stage == 0) g = plus(*g, in.states.embed);
  if (g && stage + 1 == p) g = plus(*g, in.states.head);
  if (g && stage + 1 == p && p > 1) g = plus(*g, in.states.tied_copy);
  if (g) g = scaled(*g, 1, in.e.layout.tensor_parallel);
  return g;
}

struct Offloaded {
  std::uint64_t host = 0, nvme = 0;  // this rank's bytes
};

// Moves the offloaded states out of `r`: optimizer states, master weights and the fp32 step to the CPU (or NVMe),
// and with params/nvme the weights too.
Offloaded offload_states(RankMemory& r, Offload offload) {
  Offloaded out;
  if (offload != Offload::none) {
    out.host += r.gradients;
    (offload == Offload::nvme ? out.nvme : out.host) += r.optimizer;
    r.gradients = 0;
    r.optimizer = 0;
    r.master_weights = 0;
  }
  if (offload == Offload::params || offload == Offload::nvme) {
    (offload == Offload::nvme ? out.nvme : out.host) += r.weights;
    r.weights = 0;
  }
  return out;
}

// The stage's activations for its in-flight micro-batches; the last stage adds the head, the logits and (in
// `r.temporary`) the logits' gradient.
bool add_stage_activations(RankMemory& r, const ActivationEstimate& a, std::uint64_t stage, std::uint64_t p,
                           const StageLayers& layers) {
  CheckedSum per_micro;
  per_micro.add(a.kept_for_layers(layers.first, layers.count));
  if (stage == 0) per_micro.add(a.embedding);
  CheckedSum act;
  act.add({per_micro.value(), r.in_flight_micro_batches}).add(a.recompute_peak);
  if (stage + 1 == p) {
    act.add(a.head).add(a.logits);
    r.temporary += a.backward_transient;
  }
  if (act.overflow() || per_micro.overflow()) return false;
  r.activations = act.value();
  return true;
}

// One GPU of pipeline stage `stage`; adds what it offloads, times its tensor- and data-parallel copies, to host
// and nvme.
std::optional<RankMemory> rank_memory(const RankInputs& in, std::uint64_t stage, CheckedSum& host, CheckedSum& nvme) {
  const ParallelLayout& layout = in.e.layout;
  const std::uint64_t p = layout.pipeline_parallel, dp = layout.data_parallel;
  const ZeroStage zero = in.o.parallel.zero;
  const StageLayers sl = in.spec.is_bare() ? StageLayers{0, 1} : stage_layers(in.spec.num_layers(), p, stage);
  const auto g = stage_states(in, stage, sl);
  if (!g) return std::nullopt;
  const ModelStateBytes shard = shard_model_states(g->states, dp, zero);
  RankMemory r;
  r.params = g->params;
  r.weights = shard.weights;
  r.gradients = shard.gradients;
  r.optimizer = shard.optimizer;
  r.master_weights = zero >= ZeroStage::optimizer ? ceil_div(g->master, dp) : g->master;
  const Offloaded off = offload_states(r, in.o.parallel.offload);
  const auto copies = checked_mul(layout.tensor_parallel, dp);
  host.add(copies ? checked_mul(off.host, *copies) : std::nullopt);
  nvme.add(copies ? checked_mul(off.nvme, *copies) : std::nullopt);
  r.in_flight_micro_batches = in_flight_micro_batches(p, layout.gradient_accumulation, stage);
  r.temporary = zero3_gather_bytes(in.e, in.o);
  if (in.e.activations && !add_stage_activations(r, *in.e.activations, stage, p, sl)) return std::nullopt;
  r.overhead = kCudaContextBytes;
  CheckedSum total;
  total.add(r.weights).add(r.gradients).add(r.optimizer).add(r.activations).add(r.temporary).add(r.overhead);
  if (total.overflow()) return std::nullopt;
  r.total = total.value();
  return r;
}

// One rank per pipeline stage; reported: first, one middle, last. The rank with the largest total must fit.
std::optional<Error> plan_ranks(TrainingEstimate& e, const RankInputs& in) {
  const std::uint64_t p = e.layout.pipeline_parallel;
  CheckedSum host, nvme;
  for (std::uint64_t stage = 0; stage < p; ++stage) {
    auto r = rank_memory(in, stage, host, nvme);
    if (!r) return overflow_error();
    if (p == 1) r->role = "every GPU";
    else if (stage == 0) r->role = "first pipeline stage";
    else if (stage + 1 == p) r->role = "last pipeline stage";
    else if (stage == 1) r->role = "middle pipeline stages";
    else continue;  // later middle stages hold fewer micro-batches than stage 1: not the worst
    e.ranks.push_back(*r);
  }
  if (host.overflow() || nvme.overflow()) return overflow_error();
  e.host_ram_bytes = host.value();
  e.nvme_bytes = nvme.value();
  e.breakdown = e.ranks.front();
  for (const auto& r : e.ranks)
    if (r.total > e.breakdown.total) e.breakdown = r;
  return std::nullopt;
}

// ---- explanations and notes ----

// How a formula divides: " ÷ tp 2" (formula notation, the same in every language), this pipeline stage's share,
// and the data-parallel ranks where ZeRO shards the line.
struct Split {
  std::string tp;
  bool staged = false;
  std::uint64_t data_parallel = 1;
};

Split split_of(const ParallelLayout& layout) {
  Text tp;
  if (layout.tensor_parallel > 1) tp << " ÷ tp " << layout.tensor_parallel;
  return {tp.str(), layout.pipeline_parallel > 1, layout.data_parallel};
}

// A line's formula as the split shares it out: a pipeline stage's share and ZeRO's data-parallel ranks are
// clauses around the line's own formula.
Message split_formula(const Split& s, bool sharded, const Message& formula) {
  const MessageArg f = arg::message("formula", formula), dp = arg::digits("dp", s.data_parallel);
  if (s.staged && sharded)
    return message("explain.split.staged_zero", "{formula}, this stage's share ÷ {dp} data-parallel ranks", {f, dp});
  if (s.staged) return message("explain.split.staged", "{formula}, this stage's share", {f});
  if (sharded) return message("explain.split.zero", "{formula} ÷ {dp} data-parallel ranks", {f, dp});
  return formula;
}

Message weights_formula(const Split& s, bool sharded, bool adapters) {
  const MessageArg tp = arg::text("tp", s.tp);
  return split_formula(s, sharded,
                       adapters ? message("explain.weights.formula_adapters", "frozen base + adapters × weight bytes{tp}", {tp})
                                : message("explain.weights.formula", "trainable × weight bytes{tp}", {tp}));
}

Message gradients_formula(const Split& s, bool sharded) {
  return split_formula(s, sharded,
                       message("explain.gradients.formula", "trainable × gradient bytes{tp}", {arg::text("tp", s.tp)}));
}

Message states_formula(const Split& s, bool sharded) {
  return split_formula(s, sharded,
                       message("explain.optimizer.formula", "trainable × state bytes{tp}", {arg::text("tp", s.tp)}));
}

Message states_master_formula(const Split& s, bool sharded) {
  return split_formula(s, sharded,
                       message("explain.optimizer.formula_master",
                               "trainable × state bytes + trainable × 4 B fp32 master weights{tp}", {arg::text("tp", s.tp)}));
}

Message factored_formula(const Split& s, bool sharded) {
  return split_formula(s, sharded,
                       message("explain.optimizer.formula_factored", "fp32 rows + cols per matrix × 4 B{tp}",
                               {arg::text("tp", s.tp)}));
}

Message factored_master_formula(const Split& s, bool sharded) {
  return split_formula(s, sharded,
                       message("explain.optimizer.formula_factored_master",
                               "fp32 rows + cols per matrix × 4 B + trainable × 4 B fp32 master weights{tp}",
                               {arg::text("tp", s.tp)}));
}

Message master_formula(const Split& s, bool sharded) {
  return split_formula(s, sharded,
                       message("explain.master_weights.formula",
                               "trainable × 4 B fp32 copy, inside the optimizer states{tp}", {arg::text("tp", s.tp)}));
}

void explain_weights_and_gradients(std::vector<Explanation>& out, const TrainingEstimate& e, const TrainingOptions& o,
                                   const Conventions& c, const Split& split) {
  const RankMemory& b = e.breakdown;
  const bool adapters = o.mode != TrainingMode::full;
  const MessageArg trainable = arg::count("trainable", e.trainable_params), width = arg::digits("width", c.weight);
  const MessageArg weights = arg::digits("weights", b.weights);
  Message values =
      o.mode == TrainingMode::qlora
          ? message("explain.weights.values_qlora",
                    "{quantized} linear weights × 4.127 bits (NF4 + double quant) + {others} others × 2 B + {trainable} "
                    "trainable × {width} B → {weights} B on this GPU",
                    {arg::count("quantized", e.quantized_params), arg::count("others", e.params.total - e.quantized_params),
                     trainable, width, weights})
      : adapters ? message("explain.weights.values_lora",
                           "{frozen} frozen × {frozen_width} B + {trainable} trainable × {width} B → {weights} B on this GPU",
                           {arg::count("frozen", e.params.total), arg::digits("frozen_width", c.frozen), trainable, width,
                            weights})
                 : message("explain.weights.values", "{trainable} × {width} B → {weights} B on this GPU",
                           {trainable, width, weights});
  Message source = o.mode == TrainingMode::qlora
                       ? message("explain.weights.source_qlora", "QLoRA (Dettmers et al. 2023) §3: NF4, double quantization")
                   : adapters ? message("explain.weights.source_lora", "LoRA (Hu et al. 2021): base frozen")
                              : message("explain.weights.source", "ZeRO paper §3.1 (2Ψ for 16-bit weights)");
  out.push_back({"weights", weights_formula(split, o.parallel.zero == ZeroStage::parameters, adapters), std::move(values),
                 std::move(source)});
  out.push_back({"gradients", gradients_formula(split, o.parallel.zero >= ZeroStage::gradients),
                 message("explain.gradients.values", "{trainable} trainable × {width} B ({dtype}) → {gradients} B on this GPU",
                         {trainable, arg::digits("width", c.grad), arg::text("dtype", grad_dtype_name(e.grad_dtype)),
                          arg::digits("gradients", b.gradients)}),
                 gradient_convention(e.grad_dtype)});
}

// The optimizer's line: "adamw: 8 B/param + 4 B master → … B on this GPU (… B master weights)".
Message optimizer_values(const TrainingEstimate& e, const TrainingOptions& o, const Conventions& c) {
  const RankMemory& b = e.breakdown;
  const MessageArg name = arg::text("name", optimizer_info(o.optimizer).name), moments = arg::digits("moments", c.moments);
  const MessageArg states = arg::digits("optimizer", b.optimizer), master = arg::digits("master", b.master_weights);
  if (o.optimizer == Optimizer::adafactor)
    return c.master ? message("explain.optimizer.values_factored_master",
                              "{name}: factored + 4 B master → {optimizer} B on this GPU ({master} B master weights)",
                              {name, states, master})
                    : message("explain.optimizer.values_factored",
                              "{name}: factored → {optimizer} B on this GPU ({master} B master weights)",
                              {name, states, master});
  return c.master ? message("explain.optimizer.values_master",
                            "{name}: {moments} B/param + 4 B master → {optimizer} B on this GPU ({master} B master weights)",
                            {name, moments, states, master})
                  : message("explain.optimizer.values",
                            "{name}: {moments} B/param → {optimizer} B on this GPU ({master} B master weights)",
                            {name, moments, states, master});
}

// What each optimizer keeps (the summary of kOptimizers).
Message optimizer_states(Optimizer o) {
  switch (o) {
    case Optimizer::adamw: return message("explain.optimizer.states_adamw", "AdamW: fp32 first and second moments");
    case Optimizer::adamw_8bit:
      return message("explain.optimizer.states_adamw_8bit", "bitsandbytes 8-bit AdamW: both moments in 8 bits");
    case Optimizer::paged_adamw:
      return message("explain.optimizer.states_paged_adamw", "bitsandbytes paged AdamW (32-bit states)");
    case Optimizer::paged_adamw_8bit:
      return message("explain.optimizer.states_paged_adamw_8bit", "bitsandbytes paged 8-bit AdamW");
    case Optimizer::sgd: return message("explain.optimizer.states_sgd", "SGD without momentum: no state");
    case Optimizer::sgd_momentum:
      return message("explain.optimizer.states_sgd_momentum", "SGD with momentum: one buffer");
    case Optimizer::adafactor:
      return message("explain.optimizer.states_adafactor", "Adafactor: factored second moment, no first moment");
    case Optimizer::lion: return message("explain.optimizer.states_lion", "Lion: one momentum");
  }
  return {};
}

// What the optimizer keeps, and where the convention comes from.
Message optimizer_source(Optimizer o) {
  return message("explain.optimizer.source", "{states}; HF model memory anatomy; ZeRO paper K = 12 for mixed-precision Adam",
                 {arg::message("states", optimizer_states(o))});
}

void explain_master_weights(std::vector<Explanation>& out, const TrainingEstimate& e, const TrainingOptions& o,
                            const Conventions& c, const Split& split) {
  const RankMemory& b = e.breakdown;
  if (!c.master) {
    out.push_back({"master_weights",
                   message("explain.master_weights.formula_none",
                           "none: only mixed precision keeps an fp32 copy beside 16-bit weights"),
                   message("explain.master_weights.values_none", "0 B ({precision})",
                           {arg::text("precision", precision_name(o.precision))}),
                   message("explain.master_weights.source_none",
                           "Micikevicius et al. 2018 (fp32 master weights in mixed precision)")});
    return;
  }
  const MessageArg trainable = arg::count("trainable", e.trainable_params), master = arg::count("master", b.master_weights);
  out.push_back({"master_weights", master_formula(split, o.parallel.zero >= ZeroStage::optimizer),
                 o.parallel.offload != Offload::none
                     ? message("explain.master_weights.values_offloaded",
                               "{trainable} × 4 B → {master} B on this GPU (offloaded with the optimizer states to host RAM)",
                               {trainable, master})
                     : message("explain.master_weights.values", "{trainable} × 4 B → {master} B on this GPU",
                               {trainable, master}),
                 message("explain.master_weights.source",
                         "Micikevicius et al. 2018 (fp32 master weights); ZeRO paper §3.1 (part of K = 12)")});
}

void explain_optimizer(std::vector<Explanation>& out, const TrainingEstimate& e, const TrainingOptions& o,
                       const Conventions& c, const Split& split) {
  const bool adafactor = o.optimizer == Optimizer::adafactor;
  const bool sharded = o.parallel.zero >= ZeroStage::optimizer;
  Message formula = adafactor ? (c.master ? factored_master_formula(split, sharded) : factored_formula(split, sharded))
                              : (c.master ? states_master_formula(split, sharded) : states_formula(split, sharded));
  out.push_back({"optimizer", std::move(formula), optimizer_values(e, o, c), optimizer_source(o.optimizer)});
  // The "of which" line the page shows under the optimizer states opens its own part of that formula.
  explain_master_weights(out, e, o, c, split);
  if (o.mode != TrainingMode::full) return;
  const MessageArg weight = arg::digits("weight", c.weight), master = arg::digits("master", c.master);
  const MessageArg grad = arg::digits("grad", c.grad), sum = arg::digits("sum", c.weight + c.master + c.grad + c.moments);
  out.push_back({"bytes_per_param", message("explain.bytes_per_param.formula", "weights + master + gradients + optimizer states"),
                 adafactor ? message("explain.bytes_per_param.values_factored",
                                     "{weight} + {master} + {grad} + factored = {sum} B per trainable parameter, before "
                                     "sharding",
                                     {weight, master, grad, sum})
                           : message("explain.bytes_per_param.values",
                                     "{weight} + {master} + {grad} + {moments} = {sum} B per trainable parameter, before "
                                     "sharding",
                                     {weight, master, grad, arg::digits("moments", c.moments), sum}),
                 gradient_convention(e.grad_dtype)});
}

// The total's terms; with GRPO's reference model and sampling lines.
std::vector<SumTerm> total_terms(const RankMemory& b, bool grpo) {
  std::vector<SumTerm> t{{message("explain.term.weights", "weights"), b.weights},
                         {message("explain.term.gradients", "gradients"), b.gradients},
                         {message("explain.term.optimizer", "optimizer"), b.optimizer},
                         {message("explain.term.activations", "activations"), b.activations},
                         {message("explain.term.temporary", "temporary"), b.temporary}};
  if (grpo) {
    t.push_back({message("explain.term.reference_model", "reference model"), b.reference_model});
    t.push_back({message("explain.term.sampling", "sampling"), b.sampling});
  }
  t.push_back({message("explain.term.overhead", "overhead"), b.overhead});
  return t;
}

// Which GPU the total's figures are (`b.role`).
Message role_clause(const std::string& role) {
  if (role == "first pipeline stage") return message("explain.role.first_stage", "first pipeline stage");
  if (role == "middle pipeline stages") return message("explain.role.middle_stages", "middle pipeline stages");
  if (role == "last pipeline stage") return message("explain.role.last_stage", "last pipeline stage");
  return message("explain.role.every_gpu", "every GPU");
}

Explanation total_explanation(const RankMemory& b, bool grpo) {
  const std::vector<SumTerm> terms = total_terms(b, grpo);
  return {"total", sum_formula(terms), sum_values(terms, b.total, false, role_clause(b.role)), total_source()};
}

Message total_source() { return message("explain.total.source_training", "sum of the lines above"); }

void explain_activations_and_total(std::vector<Explanation>& out, const TrainingEstimate& e, const TrainingOptions& o) {
  const RankMemory& b = e.breakdown;
  if (e.activations) {
    out.push_back({"activations",
                   message("explain.activations.formula_in_flight",
                           "in-flight micro-batches × kept activations of this GPU's layers"),
                   message("explain.activations.values_in_flight", "{micro_batches} × … = {activations} B",
                           {arg::digits("micro_batches", b.in_flight_micro_batches),
                            arg::digits("activations", b.activations)}),
                   message("explain.activations.source_in_flight",
                           "Korthikanti et al. 2022 (1F1B: first stage holds p micro-batches)")});
    for (const auto& x : e.activations->explanations) out.push_back(x);
  } else {
    out.push_back({"activations",
                   message("explain.activations.formula_training_bare",
                           "needs the model's layer shapes (hidden size, heads, vocabulary)"),
                   message("explain.activations.values_training_bare", "0 B: a bare parameter count has none"),
                   message("explain.activations.source_training_bare",
                           "Korthikanti et al. 2022: activations are a function of the layer shapes")});
  }
  const std::uint64_t gather_buffer = zero3_gather_bytes(e, o);
  out.push_back({"temporary",
                 message("explain.temporary.formula",
                         "ZeRO-3 gather buffer 4 × largest layer / t + fp32 logits gradient 4·s·b·V/t"),
                 message("explain.temporary.values", "{gather} + {logits} = {temporary} B",
                         {arg::digits("gather", gather_buffer),
                          arg::digits("logits", b.temporary - std::min(b.temporary, gather_buffer)),
                          arg::digits("temporary", b.temporary)}),
                 message("explain.temporary.source",
                         "DeepSpeed estimate_zero3_model_states_mem_needs (4 × largest_layer_params); loss backward")});
  out.push_back({"overhead", message("explain.overhead.formula_training", "CUDA context and kernels"),
                 message("explain.overhead.values_training", "{overhead} B (512 MiB)",
                         {arg::digits("overhead", b.overhead)}),
                 message("explain.overhead.source_training",
                         "CUDA ≥ 12.2 lazy loading ≈ 0.5 GiB; HF model-memory anatomy saw 1.3 GiB on V100")});
  out.push_back(total_explanation(b, false));
}

// A byte count in GB, cut (not rounded) to two decimals as the line shows it; the page writes it in its locale.
MessageArg gb_cut(std::string_view name, std::uint64_t bytes) {
  const std::string text = gb(bytes);
  const std::string number = text.substr(0, text.size() - 3);  // without " GB"
  return arg::fixed(name, std::strtod(number.c_str(), nullptr), 2);
}

// A slowdown factor cut to four characters ("1.30", "10.0").
MessageArg factor_cut(std::string_view name, double v) {
  MessageArg a = arg::fixed(name, v, 6);
  a.english = a.english.substr(0, 4);
  return a;
}


void explain_offload(std::vector<Explanation>& out, const TrainingEstimate& e, const TrainingOptions& o) {
  const Offload offload = o.parallel.offload;
  if (offload == Offload::none) return;
  const auto ds = o.parallel.zero == ZeroStage::parameters
                      ? deepspeed_zero3_estimate(e.params.total, e.largest_layer_params, e.layout.gpus, 1, true,
                                                 offload != Offload::optimizer)
                      : deepspeed_zero2_estimate(e.params.total, e.layout.gpus, 1, true);
  out.push_back(
      {"host_ram_bytes",
       offload == Offload::params
           ? message("explain.host_ram_bytes.formula_weights", "offloaded gradients + optimizer states + weights, all GPUs")
           : message("explain.host_ram_bytes.formula", "offloaded gradients + optimizer states, all GPUs"),
       message("explain.host_ram_bytes.values",
               "{host} B ({host_gb} GB); DeepSpeed's estimator with its 1.5 buffer factor: {deepspeed_gb} GB on one node",
               {arg::digits("host", e.host_ram_bytes), gb_cut("host_gb", e.host_ram_bytes), gb_cut("deepspeed_gb", ds.cpu_bytes)}),
       message("explain.host_ram_bytes.source",
               "ZeRO-Offload (Ren et al. 2021); DeepSpeed estimate_zero2/zero3_model_states_mem_needs")});
  if (offload == Offload::nvme)
    out.push_back({"nvme_bytes", message("explain.nvme_bytes.formula", "weights + optimizer states on NVMe, all GPUs"),
                   message("explain.nvme_bytes.values", "{nvme} B ({nvme_gb} GB)",
                           {arg::digits("nvme", e.nvme_bytes), gb_cut("nvme_gb", e.nvme_bytes)}),
                   message("explain.nvme_bytes.source", "ZeRO-Infinity (Rajbhandari et al. 2021)")});
  out.push_back({"slowdown", message("explain.slowdown.formula", "step time × [min, max]"),
                 message("explain.slowdown.values", "{min}–{max}",
                         {factor_cut("min", e.slowdown.min), factor_cut("max", e.slowdown.max)}),
                 e.slowdown.source});
}

// The formula, figures and source of every line of the estimate, in the breakdown's order.
std::vector<Explanation> training_explanations(const TrainingEstimate& e, const TrainingOptions& o,
                                               const Conventions& c) {
  std::vector<Explanation> out;
  const Split split = split_of(e.layout);
  explain_weights_and_gradients(out, e, o, c, split);
  explain_optimizer(out, e, o, c, split);
  explain_activations_and_total(out, e, o);
  explain_offload(out, e, o);
  return out;
}

// What the figures leave out or assume, for this precision, optimizer and parallel layout.
std::vector<Message> training_notes(const ModelSpec& spec, const TrainingEstimate& e, const TrainingOptions& o) {
  std::vector<Message> out;
  const auto& opt = optimizer_info(o.optimizer);
  const bool adapters = o.mode != TrainingMode::full;
  const ZeroStage zero = o.parallel.zero;
  const std::uint64_t p = e.layout.pipeline_parallel, t = e.layout.tensor_parallel, dp = e.layout.data_parallel;
  const bool bare = spec.is_bare();
  if (e.grad_dtype == GradDType::fp32)
    out.push_back(message("training.gradients_fp32", "Gradients: fp32 gradients (HF Trainer / PyTorch AMP convention; "
                                                   "mixed-precision AdamW = 18 B/param)."));
  else
    out.push_back(message("training.gradients_half", "Gradients: half-precision gradients (ZeRO paper / Megatron "
                                                   "convention; mixed-precision AdamW = 16 B/param)."));
  if (opt.paged)
    out.push_back(message("training.paged", "Paged optimizer: the states live in CUDA unified memory and page out to "
                                          "host RAM under memory pressure, so a spike does not OOM; the GPU figure is "
                                          "the unpaged size."));
  if (opt.eight_bit)
    out.push_back(message("training.eight_bit", "8-bit optimizer: bitsandbytes keeps tensors under 4096 elements in "
                                              "32-bit and adds a block-wise absmax, a little above 2 B/param."));
  if (o.precision == Precision::bf16)
    out.push_back(message("training.pure_bf16", "Pure bf16: no fp32 master weights; torch optimizers keep their state "
                                              "in bf16 too. Updates smaller than bf16's resolution are lost (Kahan "
                                              "summation or stochastic rounding help)."));
  if (o.mode == TrainingMode::qlora)
    out.push_back(message("training.qlora", "QLoRA: only the transformer blocks' linear layers are NF4; embeddings, "
                                          "lm_head and norms stay 16-bit. bitsandbytes' MatMul4Bit keeps only the "
                                          "packed weight and dequantizes it again in backward, so the NF4 base keeps "
                                          "no activations beyond LoRA's (measured)."));
  if (adapters)
    out.push_back(message("training.lora_precision", "LoRA adapters are counted under the chosen precision (PEFT keeps "
                                                   "them in fp32 by default; they are small either way). LoRA dropout "
                                                   "copies are not counted."));
  if (zero == ZeroStage::none && dp > 1)
    out.push_back(message("training.ddp_buckets", "Plain data parallel (DDP) also allocates gradient buckets as large "
                                                "as the gradients unless gradient_as_bucket_view=True; not counted."));
  if ((zero == ZeroStage::optimizer || zero == ZeroStage::gradients) && dp > 1)
    out.push_back(message("training.zero_buckets", "DeepSpeed ZeRO-1/2 reduce and all-gather buckets "
                                                 "(reduce_bucket_size, allgather_bucket_size, 5e8 elements by default) "
                                                 "come on top; HF's 'auto' sets them to hidden²."));
  if (zero >= ZeroStage::gradients && p > 1)
    out.push_back(message("training.zero_pipeline", "DeepSpeed supports only ZeRO-1 with pipeline parallelism; "
                                                  "ZeRO-2/3 with pipelines needs another framework (e.g. FSDP2 + PP in "
                                                  "torchtitan)."));
  if (zero != ZeroStage::none && dp == 1)
    out.push_back(message("training.zero_one_rank",
                          "ZeRO with one data-parallel rank shards nothing: memory falls only through offloading."));
  if (bare)
    out.push_back(message("training.bare", "Only a parameter count is known: activations and buffers are not estimated."));
  if (t > 1)
    out.push_back(message("training.tensor_parallel", "Tensor parallel: every parameter counted as split t ways; norms "
                                                    "and biases that Megatron replicates are ignored (a few MB)."));
  if (e.activations)
    for (const auto& n : e.activations->notes) out.push_back(n);
  return out;
}

}  // namespace

Result<TrainingEstimate> estimate_training(const ModelSpec& spec, const TrainingOptions& given) {
  if (auto error = check_grpo(spec, given)) return *error;
  TrainingOptions o = given;
  if (o.grpo) o.sequence = o.grpo->prompt_tokens + o.grpo->completion_tokens;
  auto params = count_params(spec);
  if (!params) return params.error();
  auto grad = check_training_options(spec, o);
  if (!grad) return grad.error();
  auto layout = training_layout(spec, o);
  if (!layout) return layout.error();

  TrainingEstimate e;
  e.mode = o.mode;
  e.precision = o.precision;
  e.grad_dtype = grad.value();
  e.optimizer = o.optimizer;
  e.params = params.value();
  e.layout = layout.value();
  e.gradient_convention = gradient_convention(e.grad_dtype);
  const Conventions c = conventions_for(o, e.grad_dtype);

  auto groups = param_groups(spec, e.params, o);
  if (!groups) return groups.error();
  const ParamGroups& g = groups.value();
  e.largest_layer_params = g.largest_matrix;
  e.trainable_params = g.embed.trainable + g.layers.trainable + g.head.trainable;
  e.quantized_params = g.layers.quantized;
  const auto states = model_states(spec, g, c, o, e.layout);
  if (!states) return overflow_error();
  auto replica = plus(states->embed, states->layers);
  replica = replica ? plus(*replica, states->head) : std::nullopt;
  if (!replica) return overflow_error();
  e.replica = replica->states;

  if (!spec.is_bare()) {
    auto activations = training_activations(spec, o, e.layout);
    if (!activations) return activations.error();
    e.activations = std::move(activations).value();
  }
  if (auto error = plan_ranks(e, RankInputs{spec, o, e, *states})) return *error;
  e.slowdown = offload_slowdown(o.parallel.offload);

  e.explanations = training_explanations(e, o, c);
  e.notes = training_notes(spec, e, o);
  if (auto error = add_grpo(e, spec, o)) return *error;
  return e;
}

}  // namespace vramfit

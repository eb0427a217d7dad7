#include "formats/weight_formats.hpp"

#include <algorithm>         // std::sort, std::find, std::any_of
#include <array>             // std::array
#include <initializer_list>  // role_of_tensor's name parts
#include <optional>          // std::optional
#include <string>            // std::to_string
#include <utility>           // std::move

#include "formats/gguf_mix.hpp"
#include "formats/tally.hpp"
#include "util/text.hpp"  // lower_ascii
#include "util/units.hpp"

namespace vramfit {
namespace {

// ---- packed formats ----

struct LinearShape {
  std::uint64_t in = 0, out = 0, count = 1;  // count: experts in a 3-D tensor
};
LinearShape linear_shape(const TensorShape& t) {
  LinearShape l{t.shape[0], t.shape[1], 1};
  if (t.shape.size() >= 3) l.count = t.shape[2];
  return l;
}

// A quantizable linear layer inside a block: everything with a 2-D (or per-expert 3-D) weight except the router.
bool is_block_linear(const TensorShape& t) {
  return t.layer >= 0 && t.shape.size() >= 2 && t.name.ends_with(".weight") &&
         t.name.find("ffn_gate_inp") == std::string::npos;
}

class Accumulator {
 public:
  explicit Accumulator(WeightBytes& out) : out_(out) {}
  void add(TensorRole role, std::string_view type, std::uint64_t elements, std::optional<std::uint64_t> bytes,
           std::uint64_t params) {
    if (!bytes) {
      overflow_ = true;
      return;
    }
    tally_tensor(out_, role, type, elements, *bytes, params);
  }
  bool overflow() const { return overflow_; }

 private:
  WeightBytes& out_;
  bool overflow_ = false;
};

std::optional<std::uint64_t> mul3(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const auto ab = checked_mul(a, b);
  return ab ? checked_mul(*ab, c) : std::nullopt;
}

std::string_view dtype_label(DType d) { return dtype_info(d).name; }

}  // namespace

TensorRole role_of_tensor(std::string_view n) noexcept {
  const auto has_any = [n](std::initializer_list<std::string_view> parts) {
    return std::any_of(parts.begin(), parts.end(),
                       [n](std::string_view part) { return n.find(part) != std::string_view::npos; });
  };
  if (has_any({"norm", "ln_", ".ln", "LayerNorm"})) return TensorRole::norm;
  if (n == "output.weight" || n == "output.bias" || has_any({"lm_head"})) return TensorRole::output;
  if (has_any({"token_embd", "position_embd", "token_types", "embed_tokens", "wte.", "wpe.", "embeddings",
               "embed_positions"}))
    return TensorRole::embedding;
  if (has_any({"attn", "attention"})) return TensorRole::attention;
  if (has_any({"ffn", "mlp", "experts", "feed_forward", "block_sparse_moe", "exp_probs"})) return TensorRole::mlp;
  return TensorRole::other;
}

void tally_tensor(WeightBytes& out, TensorRole role, std::string_view storage_type, std::uint64_t elements,
                  std::uint64_t bytes, std::uint64_t params) {
  out.total += bytes;
  out.params += params;
  switch (role) {
    case TensorRole::embedding: out.embedding += bytes; break;
    case TensorRole::output: out.output += bytes; break;
    case TensorRole::attention: out.attention += bytes; break;
    case TensorRole::mlp: out.mlp += bytes; break;
    case TensorRole::norm: out.norms += bytes; break;
    case TensorRole::other: out.other += bytes; break;
  }
  for (auto& s : out.storage) {
    if (s.type == storage_type) {
      s.tensors += 1;
      s.elements += elements;
      s.bytes += bytes;
      return;
    }
  }
  out.storage.push_back(StorageTally{std::string(storage_type), 1, elements, bytes});
}

void finish_tally(WeightBytes& out) {
  std::stable_sort(out.storage.begin(), out.storage.end(),
                   [](const StorageTally& a, const StorageTally& b) { return a.bytes > b.bytes; });
}

namespace {

// What the packed-format arithmetic relies on: GPTQ/AWQ bit widths and group sizes.
std::optional<Error> check_format(const WeightFormat& f) {
  if ((f.scheme == WeightScheme::gptq || f.scheme == WeightScheme::awq) &&
      !(f.bits == 2 || f.bits == 3 || f.bits == 4 || f.bits == 8))
    return make_error("weights", "GPTQ/AWQ bits must be 2, 3, 4 or 8, got " + std::to_string(f.bits));
  if ((f.scheme == WeightScheme::gptq || f.scheme == WeightScheme::awq) && f.group_size != -1 &&
      (f.group_size <= 0 || f.group_size > 1'000'000))
    return make_error("weights", "group size must be positive or -1 (one group per output row), got " +
                                     std::to_string(f.group_size));
  return std::nullopt;
}

// A bare parameter count has no tensor roles: every parameter in a plain dtype.
Result<WeightBytes> bare_weights_bytes(const ModelSpec& spec, const WeightFormat& f) {
  if (f.scheme != WeightScheme::plain)
    return make_error("weights", "a bare parameter count has no tensor shapes; " + weight_format_name(f) +
                                     " needs the architecture (config.json, a preset or a model file)");
  const auto bytes = bytes_for(spec.bare_params, f.dtype);
  if (!bytes) return make_error("params", "too large");
  WeightBytes out;
  tally_tensor(out, TensorRole::other, dtype_label(f.dtype), spec.bare_params, *bytes, spec.bare_params);
  return out;
}

// Int8Params: int8 [out, in] + SCB fp32 [out] (bitsandbytes LLM.int8, Dettmers et al. 2022).
void add_bnb_int8(Accumulator& acc, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  acc.add(t.role, "int8", n, n, n);
  acc.add(t.role, "fp32 row scales", l.out * l.count, mul3(l.out, l.count, 4), 0);
}

// Params4bit: 2 weights per uint8; absmax per block of 64 (QLoRA §3, bitsandbytes defaults).
void add_bnb_nf4(Accumulator& acc, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  const auto blocks = ceil_div(n, 64);
  acc.add(t.role, "nf4", n, ceil_div(n, 2), n);
  if (f.double_quant) {
    // uint8 absmax per block + fp32 absmax per 256 blocks + the 256-entry fp32 code and its offset
    acc.add(t.role, "nf4 absmax (double quant)", blocks, checked_add(blocks, ceil_div(blocks, 256) * 4 + 1028), 0);
  } else {
    acc.add(t.role, "nf4 absmax (fp32)", blocks, checked_mul(blocks, 4), 0);
  }
  acc.add(t.role, "nf4 quant_map", 16, 64, 0);  // the 16 NF4 levels, fp32
}

// AutoGPTQ QuantLinear: qweight int32 [in/32·bits, out], qzeros int32 [groups, out/32·bits], scales fp16
// [groups, out], g_idx int32 [in] (always saved). AutoAWQ GEMM: qweight int32 [in, out/32·bits], qzeros int32
// [groups, out/32·bits], scales fp16 [groups, out].
void add_packed_int(Accumulator& acc, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  const auto g = f.group_size == -1 ? l.in : static_cast<std::uint64_t>(f.group_size);
  const auto groups = ceil_div(l.in, g);
  const auto packed = f.scheme == WeightScheme::gptq ? mul3(l.in / 32 * f.bits, l.out, 4)
                                                     : mul3(l.in, l.out / 32 * f.bits, 4);
  const auto count = l.count;
  acc.add(t.role, "int32 qweight", n, packed ? checked_mul(*packed, count) : std::nullopt, n);
  acc.add(t.role, "int32 qzeros", groups * l.out * count, mul3(groups, l.out / 32 * f.bits * 4, count), 0);
  acc.add(t.role, "fp16 scales", groups * l.out * count, mul3(groups, l.out * 2, count), 0);
  if (f.scheme == WeightScheme::gptq) acc.add(t.role, "int32 g_idx", l.in * count, mul3(l.in, 4, count), 0);
}

// OCP Microscaling Formats (MX) v1.0 §5.1, §6.3: 32 E2M1 elements (4 bits) share one E8M0 scale (8 bits), 4.25 bits
// a weight; blocks run along the input. gpt-oss stores them as U8 *_blocks (two elements a byte) and U8 *_scales.
void add_mxfp4(Accumulator& acc, const TensorShape& t) {
  const auto n = t.elements();
  const auto l = linear_shape(t);
  const auto blocks = mul3(ceil_div(l.in, 32), l.out, l.count);
  acc.add(t.role, "E2M1 (MXFP4)", n, blocks ? checked_mul(*blocks, 16) : std::nullopt, n);
  acc.add(t.role, "E8M0 block scales", blocks.value_or(0), blocks, 0);
}

void add_gguf(Accumulator& acc, const ModelSpec& spec, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  if (t.name == "vision_tower") {  // an mmproj file, usually F16
    acc.add(t.role, "F16", n, bytes_for(n, DType::fp16), n);
    return;
  }
  const auto& info = ggml_type_info(gguf_storage_type(spec, f.gguf_mix, f.gguf_type, t));
  acc.add(t.role, info.name, n, ggml_bytes(info, n), n);
}

// The bytes of one tensor stored in format `f`.
void add_tensor_bytes(Accumulator& acc, const ModelSpec& spec, const WeightFormat& f, const TensorShape& t) {
  const auto n = t.elements();
  if (f.scheme == WeightScheme::plain) return acc.add(t.role, dtype_label(f.dtype), n, bytes_for(n, f.dtype), n);
  if (f.scheme == WeightScheme::gguf) return add_gguf(acc, spec, f, t);
  if (!is_block_linear(t)) {
    // Tensors a quantized format leaves alone keep 16 bits: fp16 in AutoGPTQ/AutoAWQ files, else the compute dtype.
    const bool packed_int = f.scheme == WeightScheme::gptq || f.scheme == WeightScheme::awq;
    const DType keep = (packed_int || f.dtype == DType::fp16) ? DType::fp16 : DType::bf16;
    return acc.add(t.role, dtype_label(keep), n, bytes_for(n, keep), n);
  }
  switch (f.scheme) {
    case WeightScheme::mixed:
      acc.add(t.role, dtype_label(f.dtype), n, bytes_for(n, f.dtype), n);
      if (f.dtype == DType::fp8)  // compressed-tensors / ModelOpt: one fp32 weight_scale per matrix
        acc.add(t.role, "fp32 scales", linear_shape(t).count, mul3(linear_shape(t).count, 4, 1), 0);
      break;
    case WeightScheme::bnb_int8: add_bnb_int8(acc, t); break;
    case WeightScheme::bnb_nf4: add_bnb_nf4(acc, f, t); break;
    case WeightScheme::mxfp4: add_mxfp4(acc, t); break;
    case WeightScheme::gptq:
    case WeightScheme::awq: add_packed_int(acc, f, t); break;
    case WeightScheme::plain:
    case WeightScheme::gguf: break;  // handled above
  }
}

// What is stored how, and the source: one or two sentences for the weights line.
std::string weights_explanation(const ModelSpec& spec, const WeightFormat& f) {
  if (spec.is_bare()) return "every parameter in " + std::string(dtype_label(f.dtype)) + " (bare parameter count)";
  switch (f.scheme) {
    case WeightScheme::plain: return "every tensor in " + std::string(dtype_label(f.dtype));
    case WeightScheme::mixed:
      return "linear layers in " + std::string(dtype_label(f.dtype)) +
             (f.dtype == DType::fp8 ? " with one fp32 scale each" : ", no scale overhead counted") +
             "; embeddings, lm_head and norms stay 16-bit";
    case WeightScheme::bnb_int8:
      return "bitsandbytes LLM.int8: int8 linear layers with an fp32 scale per output row; embeddings, lm_head and "
             "norms 16-bit";
    case WeightScheme::bnb_nf4:
      return f.double_quant ? "bitsandbytes NF4 with double quantization: 4 bits + 8/64 + 32/(64·256) = 4.127 bits per "
                              "linear weight (QLoRA §3); embeddings, lm_head and norms 16-bit"
                            : "bitsandbytes NF4: 4 bits + one fp32 absmax per 64 weights = 4.5 bits per linear "
                              "weight (QLoRA §3); embeddings, lm_head and norms 16-bit";
    case WeightScheme::gptq:
    case WeightScheme::awq:
      return std::string(f.scheme == WeightScheme::gptq ? "GPTQ (AutoGPTQ layout)" : "AWQ (AutoAWQ GEMM)") + ": " +
             std::to_string(f.bits) + "-bit packed int32 weights, per group of " +
             (f.group_size == -1 ? std::string("all inputs") : std::to_string(f.group_size)) +
             " an fp16 scale and a packed " + std::to_string(f.bits) + "-bit zero" +
             (f.scheme == WeightScheme::gptq ? ", an int32 g_idx per input" : "") +
             "; embeddings, lm_head and norms fp16";
    case WeightScheme::mxfp4:
      return "MXFP4 (OCP Microscaling Formats v1.0): E2M1 linear weights, one E8M0 scale per block of 32 = 4.25 bits "
             "per weight; embeddings, lm_head, routers and norms 16-bit";
    case WeightScheme::gguf:
      return f.gguf_mix == GgufMix::pure
                 ? "GGUF with every matrix in " + std::string(ggml_type_info(f.gguf_type).name) +
                       " (llama-quantize --pure); 1-D tensors F32"
                 : "GGUF " + weight_format_name(f) +
                       ": per-tensor types as llama.cpp's llama_tensor_get_type picks them; 1-D tensors "
                       "F32; tensor data only (metadata and vocabulary add a few MB)";
  }
  return "";
}

// The formats of the checkpoint's recipe rules, one per rule; none unless `f` is the checkpoint's own format.
Result<std::vector<WeightFormat>> recipe_formats(const ModelSpec& spec, const WeightFormat& f) {
  std::vector<WeightFormat> out;
  if (spec.quantization_rules.empty()) return out;
  const auto own = parse_weight_format(spec.quantization);
  if (!own || weight_format_name(own.value()) != weight_format_name(f)) return out;
  for (const auto& rule : spec.quantization_rules) {
    auto parsed = parse_weight_format(rule.format);
    if (!parsed) return make_error("quantization", "module " + rule.module + ": " + parsed.error().message);
    out.push_back(parsed.value());
  }
  return out;
}

// "the checkpoint keeps lm_head, model.embed_tokens in bf16; ": the recipe's rules, grouped by format.
std::string recipe_explanation(const ModelSpec& spec) {
  std::vector<std::string> formats;
  for (const auto& rule : spec.quantization_rules)
    if (std::find(formats.begin(), formats.end(), rule.format) == formats.end()) formats.push_back(rule.format);
  std::string out;
  for (const auto& format : formats) {
    std::size_t listed = 0, more = 0;
    std::string modules;
    for (const auto& rule : spec.quantization_rules) {
      if (rule.format != format) continue;
      if (listed == 6) {
        ++more;
        continue;
      }
      modules += (listed++ ? ", " : "") + rule.module;
    }
    if (more) modules += " and " + std::to_string(more) + " more";
    out += "the checkpoint keeps " + modules + " in " + format + "; ";
  }
  return out + "the rest: ";
}

}  // namespace

Result<WeightBytes> weights_bytes(const ModelSpec& spec, const WeightFormat& f) {
  WeightBytes out;
  if (spec.is_bare()) {
    auto bare = bare_weights_bytes(spec, f);
    if (!bare) return bare.error();
    out = std::move(bare).value();
  } else {
    if (auto error = check_format(f)) return *error;
    auto tensors = enumerate_tensors(spec);
    if (!tensors) return tensors.error();
    auto recipe = recipe_formats(spec, f);
    if (!recipe) return recipe.error();
    Accumulator acc(out);
    for (const auto& t : tensors.value()) {
      const WeightFormat* format = &f;
      for (std::size_t i = 0; i < recipe.value().size(); ++i) {
        if (!rule_covers(spec.quantization_rules[i], t.name, t.layer)) continue;
        format = &recipe.value()[i];
        break;
      }
      const auto before = out.total;
      add_tensor_bytes(acc, spec, *format, t);
      if (t.name.find("_exps.") != std::string::npos) {
        out.routed_expert_bytes += out.total - before;
        out.routed_expert_params += t.elements();
      }
    }
    if (acc.overflow()) return make_error("weights", "the tensor sizes overflow 64 bits; check the model sizes");
    finish_tally(out);
    if (!recipe.value().empty()) out.explanation = recipe_explanation(spec);
  }
  out.explanation += weights_explanation(spec, f);
  return out;
}

Result<WeightFormat> parse_weight_format(std::string_view raw) {
  const std::string name = lower_ascii(raw);
  WeightFormat f;
  if (auto d = parse_dtype(name)) {
    f.dtype = *d;
    f.scheme = (*d == DType::fp32 || *d == DType::fp16 || *d == DType::bf16) ? WeightScheme::plain
                                                                             : WeightScheme::mixed;
    return f;
  }
  if (name == "nf4" || name == "bnb-nf4" || name == "nf4-dq") {
    f.scheme = WeightScheme::bnb_nf4;
    return f;
  }
  if (name == "nf4-no-dq" || name == "bnb-nf4-no-dq") {
    f.scheme = WeightScheme::bnb_nf4;
    f.double_quant = false;
    return f;
  }
  if (name == "mxfp4") {
    f.scheme = WeightScheme::mxfp4;
    return f;
  }
  if (name == "bnb-int8" || name == "llm-int8") {
    f.scheme = WeightScheme::bnb_int8;
    return f;
  }
  if (auto mix = gguf_mix_by_name(std::string_view(name).substr(name.rfind("gguf-", 0) == 0 ? 5 : 0))) {
    f.scheme = WeightScheme::gguf;
    f.gguf_mix = *mix;
    return f;
  }
  if (name.rfind("gguf-", 0) == 0) {
    if (const GgmlTypeInfo* info = ggml_type_by_name(std::string_view(name).substr(5))) {
      f.scheme = WeightScheme::gguf;
      f.gguf_mix = GgufMix::pure;
      f.gguf_type = info->type;
      return f;
    }
  }
  const bool gptq = name.rfind("gptq-", 0) == 0;
  const bool awq = name.rfind("awq-", 0) == 0;
  if (gptq || awq) {
    // gptq-<bits>bit[-<group>g | -nogroup]
    std::string_view rest = std::string_view(name).substr(gptq ? 5 : 4);
    const auto bit = rest.find("bit");
    if (bit == 1 && (rest[0] == '2' || rest[0] == '3' || rest[0] == '4' || rest[0] == '8')) {
      f.scheme = gptq ? WeightScheme::gptq : WeightScheme::awq;
      f.bits = static_cast<std::uint32_t>(rest[0] - '0');
      rest.remove_prefix(4);
      if (rest.empty()) return f;
      if (rest == "-nogroup") {
        f.group_size = -1;
        return f;
      }
      if (rest.size() >= 3 && rest[0] == '-' && rest.back() == 'g' && rest.size() <= 9) {
        std::int64_t g = 0;
        bool digits = true;
        for (char c : rest.substr(1, rest.size() - 2)) {
          digits = digits && c >= '0' && c <= '9';
          g = g * 10 + (c - '0');
        }
        if (digits && g > 0) {
          f.group_size = g;
          return f;
        }
      }
    }
  }
  return make_error("weights", "unknown weight format \"" + std::string(raw) +
                                   "\"; use fp32, fp16, bf16, fp8, int8, int4, nf4, nf4-no-dq, bnb-int8, "
                                   "gptq-4bit-128g (bits 2/3/4/8, -32g/-64g/-128g/-nogroup), awq-4bit-128g, a GGUF "
                                   "type such as q4_k_m, q8_0, q3_k_s, or gguf-<ggml type> (e.g. gguf-iq2_xxs)");
}

std::string weight_format_name(const WeightFormat& f) {
  switch (f.scheme) {
    case WeightScheme::plain:
    case WeightScheme::mixed: return std::string(dtype_label(f.dtype));
    case WeightScheme::bnb_nf4: return f.double_quant ? "nf4" : "nf4-no-dq";
    case WeightScheme::bnb_int8: return "bnb-int8";
    case WeightScheme::mxfp4: return "mxfp4";
    case WeightScheme::gptq:
    case WeightScheme::awq:
      return std::string(f.scheme == WeightScheme::gptq ? "gptq-" : "awq-") + std::to_string(f.bits) + "bit" +
             (f.group_size == -1 ? std::string("-nogroup") : "-" + std::to_string(f.group_size) + "g");
    case WeightScheme::gguf:
      if (f.gguf_mix == GgufMix::pure) return "gguf-" + lower_ascii(ggml_type_info(f.gguf_type).name);
      return std::string(gguf_mix_name(f.gguf_mix));
  }
  return "";
}

std::vector<std::string> weight_format_examples() {
  std::vector<std::string> out{"fp32", "fp16", "bf16", "fp8", "int8", "int4", "nf4", "nf4-no-dq", "bnb-int8",
                               "gptq-4bit-128g", "gptq-4bit-32g", "gptq-3bit-128g", "gptq-8bit-128g",
                               "gptq-4bit-nogroup", "awq-4bit-128g"};
  // llama.cpp's bf16 mix has the plain format's name (one spelling, one format): listed once.
  for (const GgufMix mix : gguf_mixes())
    if (std::find(out.begin(), out.end(), gguf_mix_name(mix)) == out.end()) out.emplace_back(gguf_mix_name(mix));
  return out;
}

}  // namespace vramfit

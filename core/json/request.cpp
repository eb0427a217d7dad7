#include "json/request.hpp"

#include <algorithm>  // std::all_of, std::none_of
#include <charconv>   // std::from_chars (integers)
#include <cmath>      // std::isfinite, std::floor, std::llround, std::log10, std::pow
#include <cstdlib>    // std::strtod
#include <string>     // std::string, std::to_string
#include <type_traits>  // std::is_same_v
#include <utility>    // std::move
#include <variant>    // std::variant, std::get_if

#include "json/inputs.hpp"
#include "json/model_read.hpp"  // read_models
#include "memory/vision.hpp"     // parse_image_size
#include "util/json_fields.hpp"
#include "util/number_text.hpp"  // fixed_text, general_text
#include "util/quantity.hpp"  // parse_count, parse_tokens
#include "util/text.hpp"      // parse_switch, split_list, join_names

namespace vramfit {

using detail::FieldReader;
using detail::json;

namespace {

// --also: "ID" or "ID@CONTEXT", comma-separated (the CLI joins a repeated flag the same way); at most 8.
std::variant<std::vector<OtherModelRequest>, Error> parse_also(std::string_view text) {
  constexpr std::size_t kMaxOthers = 8;
  std::vector<OtherModelRequest> out;
  for (const std::string& item : split_list(text)) {
    const auto at = item.find('@');
    OtherModelRequest m;
    m.model = item.substr(0, at);
    if (m.model.empty())
      return make_error("also", message("input.also_model",
                                        "\"{given}\" names no model: give a preset id, a Hugging Face repository, "
                                        "an Ollama model or a model file, optionally with its context after @, such "
                                        "as qwen3-0.6b@8192",
                                        {arg::text("given", item)}));
    if (at != std::string::npos) {
      const auto tokens = parse_tokens(std::string_view(item).substr(at + 1));
      if (!tokens || *tokens < 1 || *tokens > kMaxContextTokens)
        return make_error("also", message("input.also_context",
                                          "\"{given}\": the context after @ must be a whole number of tokens from 1 "
                                          "to {max}, such as 8192 or 8k",
                                          {arg::text("given", item), arg::digits("max", kMaxContextTokens)}));
      m.context = *tokens;
    }
    // Each model and context is one line of the breakdown: the same twice would be one line counted twice.
    for (const OtherModelRequest& before : out)
      if (before.model == m.model && before.context == m.context)
        return make_error("also", message("input.also_duplicate",
                                          "\"{given}\" is named twice among the other models on the GPU: name each "
                                          "model and context once",
                                          {arg::text("given", item)}));
    out.push_back(std::move(m));
  }
  if (out.size() > kMaxOthers)
    return make_error("also", message("input.also_count", "at most {max} other models; got {count}",
                                      {arg::digits("max", kMaxOthers), arg::digits("count", out.size())}));
  return out;
}

using K = InputKind;

// One input's value, read by its table entry: text (text, config, choice), a whole number (count, tokens,
// quantity), a number (number, fraction), a toggle or a list.
using InputValue = std::variant<std::string, std::uint64_t, double, bool, std::vector<std::string>>;

// A range's bound as people read it: 100,000,000 and 0.9, but 1e14 rather than fifteen digits.
std::string bound_text(double v) {
  if (v == std::floor(v) && v >= 1e10) {
    const double exponent = std::floor(std::log10(v));
    if (std::pow(10.0, exponent) == v) return "1e" + detail::fixed_text(exponent, 0);
  }
  if (v == std::floor(v) && v < 1e10) return (detail::Text() << detail::Grouped{static_cast<std::uint64_t>(v)}).str();
  return detail::general_text(v, 6);
}

// The value as given: text quoted (cut at 40 bytes, on a UTF-8 boundary), numbers and booleans as written.
std::string shown(const json& v) {
  if (v.is_string()) {
    const auto& text = v.get_ref<const std::string&>();
    if (text.size() <= 40) return "\"" + text + "\"";
    std::size_t cut = 40;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return "\"" + text.substr(0, cut) + "…\"";
  }
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return detail::dump(v);
}

// A bound as a message's value: a count for whole bounds (grouped in each language), 1e14 as written, else the number.
MessageArg bound_arg(std::string_view name, double v) {
  const std::string english = bound_text(v);
  if (v == std::floor(v) && v < 1e10) return arg::count(name, static_cast<std::uint64_t>(v));
  if (english.starts_with("1e")) return arg::text(name, english);
  return arg::general(name, v, 6);
}

// The value given, as JSON shows it in any language ("[…]" where English says "an array").
MessageArg given_arg(const json& v) {
  return arg::text("given", v.is_array() ? "[…]" : v.is_object() ? "{…}" : shown(v), shown(v));
}

// The refusal as a message the page says in its language: one id per kind and form of range, each worded once.
// Whole numbers, token counts, quantities, sizes and fractions have a maximum, and a number without one lies above
// its minimum: kInputs holds every input to these forms (core/json/inputs.cpp, refusal_worded).
Message refusal_message(const Input& in, const json& given) {
  const bool bounded = std::isfinite(in.max);
  const bool above_max = in.above_min && bounded;
  const MessageArg g = given_arg(given);
  const MessageArg lo = bound_arg("min", in.min);
  const MessageArg hi = bound_arg("max", bounded ? in.max : 0);
  switch (in.kind) {
    case K::text: return message("input.text", "expected a text; got {given}", {g});
    case K::config: return message("input.config", "expected a config.json object or its text; got {given}", {g});
    case K::choice:
      return message("input.choice", "expected one of {allowed}; got {given}",
                     {arg::text("allowed", allowed_values(in)), g});
    case K::toggle: return message("input.toggle", "expected true or false (or on/off, yes/no, 1/0); got {given}", {g});
    case K::list:
      return message("input.list",
                     "expected GPU ids, as an array or comma-separated text such as h100-sxm,l40s; got {given}", {g});
    case K::size:
      return message("input.size_range", "expected a memory size in GB from {min} to {max}, such as 48GB or 24 GiB; "
                                         "got {given}", {lo, hi, g});
    case K::count:
      return message("input.count_range", "expected a whole number from {min} to {max}; got {given}", {lo, hi, g});
    case K::tokens:
      return message("input.tokens_range",
                     "expected a whole number of tokens from {min} to {max}, such as 8192 or 8k; got {given}",
                     {lo, hi, g});
    case K::quantity:
      return message("input.quantity_range",
                     "expected a whole number from {min} to {max}, such as 7e9, 300B or 1.5T; got {given}",
                     {lo, hi, g});
    case K::number:
      if (!in.above_min)
        return message("input.number_range", "expected a number from {min} to {max}; got {given}", {lo, hi, g});
      if (above_max)
        return message("input.number_above_max", "expected a number above {min} and at most {max}; got {given}",
                       {lo, hi, g});
      return message("input.number_above", "expected a number above {min}; got {given}", {lo, g});
    case K::fraction:
      if (above_max)
        return message("input.fraction_above_max",
                       "expected a fraction above {min} and at most {max}, such as 0.4 or 40%; got {given}", {lo, hi, g});
      return message("input.fraction_range",
                     "expected a fraction from {min} to {max}, such as 0.4 or 40%; got {given}", {lo, hi, g});
  }
  return message("input.text", "expected a text; got {given}", {g});  // not reached: every kind has its case
}

Error refusal(const Input& in, const json& given) { return make_error(std::string(in.key), refusal_message(in, given)); }

// A JSON number that is a whole number (4096, 4096.0, 7e9); nothing for fractions, negatives and others.
std::optional<std::uint64_t> whole_of(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) {
    const auto n = v.get<std::int64_t>();
    return n >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(n)) : std::nullopt;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= 0 && d <= 9.0e18 && d == std::floor(d)) return static_cast<std::uint64_t>(d);
  }
  return std::nullopt;
}

// Text as the count kinds read it: digits only, or the written forms of tokens ("8k") and quantities ("7B").
std::optional<std::uint64_t> whole_from_text(InputKind kind, std::string_view text) {
  if (kind == K::tokens) return parse_tokens(text);
  if (kind == K::quantity) return parse_count(text);
  std::uint64_t n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

// A decimal number ("0.85", "1e3"; not " 8", "0x10", "inf" or "nan"), or for a fraction a percentage ("40%").
std::optional<double> number_from_text(InputKind kind, std::string_view text) {
  const bool percent = kind == K::fraction && !text.empty() && text.back() == '%';
  if (percent) text.remove_suffix(1);
  if (text.empty() || text.size() > 64 || text.find_first_not_of("0123456789.eE+-") != std::string_view::npos)
    return std::nullopt;
  const std::string copy(text);  // strtod needs a terminated string
  char* end = nullptr;
  const double x = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(x)) return std::nullopt;
  return percent ? x / 100 : x;
}

// A card's memory in GB: "48GB", "48 GB", "24 GiB", "48G" or "48" (a card's GB are GiB, as its maker counts them).
std::optional<double> gb_from_text(std::string_view text) {
  std::string t = lower_ascii(text);
  while (!t.empty() && t.back() == ' ') t.pop_back();
  for (std::string_view unit : {"gib", "gb", "g"})
    if (t.ends_with(unit)) {
      t.resize(t.size() - unit.size());
      break;
    }
  while (!t.empty() && t.back() == ' ') t.pop_back();
  return number_from_text(K::number, t);
}

bool in_range(const Input& in, double v) {
  return (in.above_min ? v > in.min : v >= in.min) && v <= in.max;
}

// The value as `in` reads it; nothing when it is not of the input's kind or lies outside its range.
std::optional<InputValue> read_value(const Input& in, const json& v) {
  const std::string* text = v.is_string() ? &v.get_ref<const std::string&>() : nullptr;
  switch (in.kind) {
    case K::text:
      if (text) return *text;
      return std::nullopt;
    case K::config:
      if (text) return *text;
      if (v.is_object()) return detail::dump(v);
      return std::nullopt;
    case K::choice: {
      const auto digits = whole_of(v);  // "zero": 3
      // People write names in any case ("vLLM", "FP8", "Eager"); every choice's names are lower case.
      std::string value = text ? lower_ascii(*text) : digits ? std::to_string(*digits) : std::string();
      if ((!text && !digits) || !is_allowed_value(in, value)) return std::nullopt;
      return value;
    }
    case K::count:
    case K::tokens:
    case K::quantity: {
      const auto n = text ? whole_from_text(in.kind, *text) : whole_of(v);
      if (!n || !in_range(in, static_cast<double>(*n))) return std::nullopt;
      return *n;
    }
    case K::number:
    case K::fraction: {
      const auto x = text          ? number_from_text(in.kind, *text)
                     : v.is_number() ? std::optional(v.get<double>())
                                     : std::nullopt;
      if (!x || !in_range(in, *x)) return std::nullopt;
      return *x;
    }
    case K::size: {
      const auto gb = text ? gb_from_text(*text) : v.is_number() ? std::optional(v.get<double>()) : std::nullopt;
      if (!gb || !in_range(in, *gb)) return std::nullopt;
      return static_cast<std::uint64_t>(std::llround(*gb * 1024.0 * 1024.0 * 1024.0));
    }
    case K::toggle: {
      const auto on = v.is_boolean() ? std::optional(v.get<bool>()) : text ? parse_switch(*text) : std::nullopt;
      if (!on) return std::nullopt;
      return *on;
    }
    case K::list: {
      std::vector<std::string> items;
      if (const auto n = whole_of(v); n && !text) items = {std::to_string(*n)};  // a count, as the page sends it
      else if (text) items = split_list(*text);
      else if (v.is_array() && std::all_of(v.begin(), v.end(), [](const json& g) { return g.is_string(); }))
        for (const json& g : v) items.push_back(g.get<std::string>());
      if (items.empty()) return std::nullopt;
      return items;
    }
  }
  return std::nullopt;
}

// Reads a request's inputs by their table entries for one use; the first refusal is kept, naming the key.
class InputReader {
 public:
  InputReader(const json& object, InputUse use) : object_(object), use_(use) {}

  std::optional<std::string> text(std::string_view key) { return get<std::string>(key); }
  std::optional<std::uint64_t> whole(std::string_view key) { return get<std::uint64_t>(key); }
  std::optional<double> number(std::string_view key) { return get<double>(key); }
  std::optional<bool> toggle(std::string_view key) { return get<bool>(key); }
  // A choice as the value its parser reads; none when the key is absent or refused. The inputs table has checked the
  // text by its row's parser: a text it accepted that `parse` refuses means the two name different parsers, an
  // error of vramfit's that is said, naming the key, rather than read as the input's default.
  template <auto parse>
  auto choice(std::string_view key) -> decltype(parse(std::string_view())) {
    const auto given = text(key);
    if (!given) return std::nullopt;
    auto value = parse(*given);
    if (!value)
      fail(make_error(std::string(key),
                      message("input.choice_unread",
                              "\"{given}\" passed this input's check but was not read: an error in vramfit, "
                              "please report it",
                              {arg::text("given", *given)})));
    return value;
  }
  // A card described by its figures: gpu_memory, gpu_bandwidth, ...
  CustomGpuInputs custom_gpu() {
    CustomGpuInputs c;
    c.memory_bytes = whole("gpu_memory");
    c.bandwidth_gb_s = number("gpu_bandwidth");
    c.tflops = number("gpu_tflops");
    c.tflops_fp8 = number("gpu_tflops_fp8");
    c.tflops_fp4 = number("gpu_tflops_fp4");
    c.vendor = choice<parse_gpu_vendor>("gpu_vendor");
    c.unified = toggle("gpu_unified");
    return c;
  }
  std::vector<std::string> list(std::string_view key) {
    return get<std::vector<std::string>>(key).value_or(std::vector<std::string>{});
  }
  bool has(std::string_view key) const {
    const auto it = object_.find(key);
    return it != object_.end() && !it->is_null();
  }
  void fail(Error e) {
    if (!error_) error_ = std::move(e);
  }
  const std::optional<Error>& error() const noexcept { return error_; }
  std::vector<Request::EngineInput> engine_inputs() const { return engine_inputs_; }

 private:
  template <class T>
  std::optional<T> get(std::string_view key) {
    const Input* in = input_by_key(key, use_);
    if (!in || !has(key)) return std::nullopt;
    const json& given = *object_.find(key);
    auto value = read_value(*in, given);
    if (!value) {
      fail(refusal(*in, given));
      return std::nullopt;
    }
    T* typed = std::get_if<T>(&*value);
    if (!typed) return std::nullopt;
    if (in->engines != Engines::all && asks(*typed) &&
        std::none_of(engine_inputs_.begin(), engine_inputs_.end(), [&](const auto& e) { return e.key == key; }))
      engine_inputs_.push_back({std::string(key), static_cast<unsigned>(in->engines)});
    return std::move(*typed);
  }

  // Whether a value read asks something of the engine: a toggle on, a text that is not empty, any number.
  template <class T>
  static bool asks(const T& value) {
    if constexpr (std::is_same_v<T, bool>) return value;
    else if constexpr (std::is_same_v<T, std::string>) return !value.empty();
    else return true;
  }

  const json& object_;
  InputUse use_;
  std::optional<Error> error_;
  std::vector<Request::EngineInput> engine_inputs_;
};

// A key another question or mode reads: say where it applies rather than that it is unknown.
Message applies_elsewhere(std::string_view key) {
  unsigned uses = 0;
  for (const Input& in : inputs())
    if (in.key == key) uses |= static_cast<unsigned>(in.use);
  const bool training = uses & static_cast<unsigned>(InputUse::training);
  const bool ranking = uses & static_cast<unsigned>(InputUse::gpu_ranking);
  if (training && ranking)
    return message("input.training_and_ranking", "applies to training (mode train, lora or qlora) and to the GPU ranking");
  if (training) return message("input.training_only", "applies to training; set mode to train, lora or qlora");
  if (uses & static_cast<unsigned>(InputUse::inference))
    return message("input.inference_only", "applies to inference only; training does not use it");
  return message("input.ranking_only", "applies to the GPU ranking only");
}

// Every key must be an input of this use (or one of `extra`, already read): the first other one is refused.
std::optional<Error> refuse_other_keys(const json& object, InputUse use, std::span<const std::string_view> extra) {
  for (const auto& [key, value] : object.items()) {
    if (input_by_key(key, use)) continue;
    if (input_by_key(key)) return make_error(key, applies_elsewhere(key));
    std::string allowed;
    for (const Input& in : inputs())
      if (used_by(in, use)) allowed += (allowed.empty() ? "" : ", ") + std::string(in.key);
    for (std::string_view k : extra) allowed += ", " + std::string(k);
    return make_error(key, message("input.unknown", "is not a known input; allowed: {allowed}",
                                   {arg::text("allowed", allowed)}));
  }
  return std::nullopt;
}

// The request text as a JSON object, or the error naming "request".
Result<json> request_object(std::string_view text) {
  auto parsed = detail::parse_json(text, "request");
  if (!parsed) return parsed.error();
  if (!parsed.value().is_object())
    return make_error("request", message("json.expected_json_object", "expected a JSON object"));
  return parsed;
}

bool used_by_ranking(InputUse use) {
  return (static_cast<unsigned>(use) & static_cast<unsigned>(InputUse::gpu_ranking)) != 0;
}

// "gpus" as one whole number: how many of the request's GPU there are; otherwise a list of GPU names.
std::optional<std::uint64_t> gpu_count(const std::vector<std::string>& gpus) {
  if (gpus.size() != 1 || gpus.front().empty() || gpus.front().size() > 18 ||
      gpus.front().find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(gpus.front());
}

// "gpus": a count of the request's GPU, or GPU names (the ranking's candidates; elsewhere the cards one has, in
// device order).
void read_gpus(InputReader& in, InputUse use, Request& r) {
  r.gpus = in.list("gpus");
  if (auto count = gpu_count(r.gpus)) {
    constexpr std::uint64_t kMaxServingGpus = 1024;
    if (*count < 1 || *count > kMaxServingGpus)
      in.fail(make_error("gpus", message("input.gpu_count",
                                         "must be a number of GPUs between 1 and {max}, or GPU names; got {given}",
                                         {arg::digits("max", kMaxServingGpus), arg::text("given", r.gpus.front())})));
    r.gpu_count = *count;
    r.gpus.clear();
  } else if (!used_by_ranking(use)) {
    r.devices = std::move(r.gpus);  // outside the ranking the names are the cards one has, in device order
    r.gpus.clear();
  }
}

// "image_size": "1024x768", or "1024" for a square.
void read_image_size(InputReader& in, Request& r) {
  const auto given = in.text("image_size");
  if (!given || given->empty()) return;
  r.image_size = parse_image_size(*given);
  if (!r.image_size)
    in.fail(make_error("image_size", message("images.size", "expected the size in pixels as WIDTHxHEIGHT (1024x768) or "
                                                            "one side (1024), each 1 to 16384; got {given}",
                                             {arg::text("given", *given)})));
}

// `question` names the question in the message that refuses a training mode ("limits"; "" for the whole request).
Result<Request> inference_request(const json& j, InputUse use, std::span<const std::string_view> extra,
                                  std::string_view question, const ModelReads* reads) {
  if (auto other = refuse_other_keys(j, use, extra)) return *other;
  InputReader in(j, use);
  if (const auto mode = in.text("mode"); mode && is_training_mode(*mode))
    return make_error("mode", question.empty()
                                  ? message("request.training_mode", "\"{mode}\" is a training mode; this request answers "
                                            "inference only", {arg::text("mode", *mode)})
                                  : message("request.training_mode_question", "\"{mode}\" is a training mode; the question "
                                            "\"{question}\" answers inference only",
                                            {arg::text("mode", *mode), arg::text("question", question)}));
  Request r;
  r.model = in.text("model").value_or("");
  r.model_name = in.text("model_name").value_or("");
  r.model_repo = in.text("model_repo").value_or("");
  r.model_revision = in.text("model_revision").value_or("");
  r.model_hf_file = in.text("model_hf_file").value_or("");
  r.ollama_tag = in.text("ollama_tag").value_or("");
  r.config_json = in.text("config").value_or("");
  r.quant_config_json = in.text("quant_config").value_or("");
  r.config_name = in.text("config_name").value_or("");
  r.params = in.whole("params").value_or(0);
  r.weights = in.text("weights").value_or("");
  r.kv_dtype = in.choice<parse_kv_dtype>("kv_dtype");
  r.context = in.whole("context");
  r.batch = in.whole("batch").value_or(1);
  r.headroom = in.number("headroom").value_or(kDefaultHeadroom);
  r.gpu = in.text("gpu").value_or("");
  r.custom_gpu = in.custom_gpu();
  r.wired_limit_mb = in.whole("wired_limit_mb").value_or(0);
  const auto engine = in.choice<parse_engine>("engine");
  r.engine_given = engine.has_value();
  r.engine = engine.value_or(Engine::transformers);
  r.attention = in.choice<parse_attention>("attention");
  r.kv_allocation = in.choice<parse_kv_allocation>("kv_allocation");
  r.avg_tokens = in.whole("avg_tokens");
  r.expandable_segments = in.toggle("expandable_segments").value_or(false);
  r.engine_version = in.text("engine_version").value_or("");
  r.enforce_eager = in.toggle("enforce_eager").value_or(false);
  r.language_model_only = in.toggle("language_model_only").value_or(false);
  r.gpu_util = in.number("gpu_util");
  r.max_num_batched_tokens = in.whole("max_num_batched_tokens");
  r.max_num_seqs = in.whole("max_num_seqs");
  r.mem_fraction_static = in.number("mem_fraction_static");
  r.max_total_tokens = in.whole("max_total_tokens");
  r.max_kv_size = in.whole("max_kv_size");
  r.ollama_gpu_overhead = in.whole("ollama_gpu_overhead");
  r.memory_in_use = in.whole("memory_in_use");
  if (const auto also = in.text("also")) {
    auto parsed = parse_also(*also);
    if (auto* error = std::get_if<Error>(&parsed)) in.fail(*error);
    else r.also = std::move(std::get<std::vector<OtherModelRequest>>(parsed));
  }
  r.gpu_layers = in.whole("gpu_layers");
  r.mmproj = in.toggle("mmproj").value_or(false);
  r.images = in.whole("images").value_or(0);
  read_image_size(in, r);
  r.draft = in.text("draft").value_or("");
  r.draft_config = in.text("draft_config").value_or("");
  // Checked as inputs first (their kind, the engines that read them), then read as what a client read.
  (void)in.text("draft_read");
  (void)in.text("also_read");
  if (!in.error())
    if (auto read = detail::read_models(j, r, reads)) in.fail(*read);
  r.draft_tokens = in.whole("draft_tokens");
  r.acceptance = in.number("acceptance");
  r.tp = in.whole("tp").value_or(1);
  r.pp = in.whole("pp").value_or(1);
  r.serving.system_bandwidth_gb_s = in.number("system_bandwidth");
  r.serving.prompt_tokens = in.whole("prompt_tokens");
  r.serving.usd_per_kwh = in.number("usd_per_kwh");
  read_gpus(in, use, r);
  r.budget_per_hour = in.number("budget_per_hour");
  r.engine_inputs = in.engine_inputs();
  if (in.error()) return *in.error();
  return r;
}

// In training the page's shared "context" is the sequence and "batch" the micro-batch: one value for each.
std::optional<std::uint64_t> training_alias(InputReader& in, std::string_view key, std::string_view shared,
                                            const Message& both_given) {
  const auto own = in.whole(key);
  const auto alias = in.whole(shared);
  if (own && alias && *own != *alias) in.fail(make_error(std::string(shared), both_given));
  return own ? own : alias;
}

// "mode": grpo or a training mode (the inputs table refuses other words); none or "inference" asks inference,
// which a training request does not answer.
void read_training_mode(InputReader& in, TrainingRequest& r) {
  const auto mode = in.text("mode");
  if (in.error()) return;
  r.grpo = mode && is_grpo_mode(*mode);
  const auto trained = mode ? parse_training_mode(*mode) : std::nullopt;
  if (trained) r.mode = *trained;
  else if (!r.grpo)
    in.fail(make_error("mode", message("error.training.not_training_mode",
                                       "\"{mode}\" is not a training mode (inference has its own estimate); allowed: "
                                       "{allowed}, grpo",
                                       {arg::text("mode", mode.value_or("")), arg::text("allowed", training_mode_names())})));
}

Result<TrainingRequest> training_request(const json& j, std::span<const std::string_view> extra) {
  if (auto other = refuse_other_keys(j, InputUse::training, extra)) return *other;
  InputReader in(j, InputUse::training);
  TrainingRequest r;
  r.model = in.text("model").value_or("");
  r.model_name = in.text("model_name").value_or("");
  (void)in.text("model_repo");  // checked as an input; training has no command that fetches the file
  (void)in.text("model_revision");
  (void)in.text("model_hf_file");
  r.config_json = in.text("config").value_or("");
  r.quant_config_json = in.text("quant_config").value_or("");
  r.config_name = in.text("config_name").value_or("");
  r.params = in.whole("params").value_or(0);
  read_training_mode(in, r);
  r.precision = in.choice<parse_precision>("precision");
  r.grad_dtype = in.choice<parse_grad_dtype>("grad_dtype");
  r.optimizer = in.choice<parse_optimizer>("optimizer");
  r.lora_rank = in.whole("lora_rank");
  r.lora_targets = in.text("lora_targets").value_or("");
  r.sequence = training_alias(in, "sequence", "context",
                              message("request.sequence_twice", "is the sequence in training, also given as sequence "
                                      "with another value; give one"));
  r.micro_batch = training_alias(in, "micro_batch", "batch",
                                 message("request.micro_batch_twice", "is the micro-batch in training, also given as "
                                         "micro_batch with another value; give one"))
                      .value_or(1);
  r.grad_accum = in.whole("grad_accum").value_or(1);
  r.checkpointing = in.choice<parse_checkpointing>("checkpointing");
  r.attn_implementation = in.choice<parse_attn_implementation>("attn_implementation");
  r.dropout = in.toggle("dropout");
  r.zero = in.choice<parse_zero>("zero");
  r.gpus = in.whole("gpus").value_or(1);
  r.tp = in.whole("tp").value_or(1);
  r.pp = in.whole("pp").value_or(1);
  r.sp = in.toggle("sp").value_or(false);
  r.offload = in.choice<parse_offload>("offload");
  r.gpu = in.text("gpu").value_or("");
  r.custom_gpu = in.custom_gpu();
  r.wired_limit_mb = in.whole("wired_limit_mb").value_or(0);
  r.headroom = in.number("headroom").value_or(kDefaultHeadroom);
  if (const auto tokens = in.whole("tokens")) r.tokens = static_cast<double>(*tokens);
  r.mfu = in.number("mfu");
  r.policy = in.choice<parse_training_mode>("policy");
  r.prompt_tokens = in.whole("prompt_tokens");
  r.completion_tokens = in.whole("completion_tokens");
  r.num_generations = in.whole("num_generations");
  r.generation_batch = in.whole("generation_batch");
  r.beta = in.number("beta");
  r.sampler = in.choice<parse_grpo_sampler>("sampler");
  r.gpu_util = in.number("gpu_util");
  (void)in.text("weights");  // checked, then ignored: see the header
  if (in.error()) return *in.error();
  return r;
}

// "mode" names a training mode (an unknown word too, so that the training reader refuses it, naming "mode").
bool asks_training(const json& j) {
  const auto it = j.find("mode");
  return it != j.end() && it->is_string() && is_training_mode(it->get_ref<const std::string&>());
}

// Reads and removes "question": the rest of the object is the question's inputs.
Result<Question> take_question(json& j) {
  FieldReader f(j, "");
  const auto name = f.string("question");
  if (f.error()) return *f.error();
  j.erase("question");
  if (!name) return Question::estimate;
  if (const auto question = parse_question(*name)) return *question;
  return make_error("question", message("request.unknown_question", "unknown question \"{given}\"; allowed: {allowed}",
                                        {arg::text("given", *name), arg::text("allowed", question_names())}));
}

// Reads and removes the curve's own keys, so that the rest is the scenario's inputs; `path` names where the
// keys are ("questions[1]") in the errors.
Result<CurveInputs> take_curve_inputs(json& j, const std::string& path = "") {
  CurveInputs out;
  detail::FieldReader f(j, path);
  const std::string axis = f.string("axis").value_or("context");
  const std::string spacing = f.string("spacing").value_or("linear");
  out.points = f.uint("points").value_or(256);
  out.from = f.uint("from").value_or(0);
  out.to = f.uint("to").value_or(0);
  if (const json* v = f.array("values")) {
    for (const auto& x : *v) {
      if (!x.is_number() || x.get<double>() < 1 || x.get<double>() > 1e12)
        return make_error(f.path("values"), message("request.curve_values", "expected positive numbers"));
      out.values.push_back(static_cast<std::uint64_t>(x.get<double>()));
    }
  }
  if (f.error()) return *f.error();
  if (axis != "context" && axis != "batch")
    return make_error(f.path("axis"), message("request.curve_axis", "allowed: context, batch"));
  if (spacing != "linear" && spacing != "log")
    return make_error(f.path("spacing"), message("request.curve_spacing", "allowed: linear, log"));
  out.axis = axis == "batch" ? CurveAxis::batch : CurveAxis::context;
  out.log = spacing == "log";
  for (const char* key : {"axis", "points", "from", "to", "spacing", "values"}) j.erase(key);
  return out;
}

constexpr std::string_view kQuestionKey[] = {"question"};
constexpr std::string_view kCurveKeys[] = {"question", "axis", "points", "from", "to", "spacing", "values"};
constexpr std::string_view kQuestionsKey[] = {"questions"};

// One entry of "questions": a question's name, or an object with "question" and that question's own keys.
Result<AskedQuestion> asked_question(const json& given, const std::string& path) {
  json entry = given.is_string() ? json{{"question", given}} : given;
  if (!entry.is_object())
    return make_error(path, message("request.question_entry",
                                    "expected a question's name or {\"question\": name, ...its own keys}"));
  AskedQuestion out;
  auto question = take_question(entry);
  if (!question) return make_error(path + "." + question.error().field, question.error().message);
  out.question = question.value();
  if (out.question == Question::biggest_model)
    return make_error(path, message("request.biggest_alone",
                                    "biggest_model compares the catalog's presets, not this scenario's model: ask it alone"));
  if (out.question == Question::curve) {
    auto curve = take_curve_inputs(entry, path);
    if (!curve) return curve.error();
    out.curve = std::move(curve).value();
  }
  if (out.question == Question::estimate || out.question == Question::gpu_ranking) {
    detail::FieldReader f(entry, path);
    out.every_gpu = f.boolean("every_gpu").value_or(false);
    if (f.error()) return *f.error();
    entry.erase("every_gpu");
  }
  for (const auto& [key, value] : entry.items())
    return make_error(path + "." + key, message("request.question_key",
                                                "is not a key of the question \"{question}\"; the scenario's inputs go "
                                                "beside \"questions\"",
                                                {arg::text("question", question_name(out.question))}));
  return out;
}

// Reads and removes "questions": 1 to 16 questions about the scenario the rest of the object describes.
Result<std::vector<AskedQuestion>> take_questions(json& j) {
  const json& list = j["questions"];
  if (!list.is_array() || list.empty() || list.size() > 16)
    return make_error("questions", message("request.questions_array",
                                           "expected an array of 1 to 16 questions, each a name ({names}) or "
                                           "{\"question\": name, ...its own keys}",
                                           {arg::text("names", question_names())}));
  std::vector<AskedQuestion> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto asked = asked_question(list[i], "questions[" + std::to_string(i) + "]");
    if (!asked) return asked.error();
    out.push_back(std::move(asked).value());
  }
  j.erase("questions");
  return out;
}

// Several questions about one scenario: training when "mode" is a training mode, else inference, whose reader takes
// the GPU ranking's inputs when the ranking is asked.
Result<ParsedRequest> parse_questions(json& j, const ModelReads* reads) {
  ParsedRequest out;
  if (j.contains("question"))
    return make_error("question", message("request.question_and_questions", "give either \"question\" or \"questions\", not both"));
  auto questions = take_questions(j);
  if (!questions) return questions.error();
  out.questions = std::move(questions).value();
  if (asks_training(j)) {
    auto training = training_request(j, kQuestionsKey);
    if (!training) return training.error();
    out.training = std::move(training).value();
    return out;
  }
  bool ranks = false;
  for (const AskedQuestion& q : out.questions) ranks = ranks || q.question == Question::gpu_ranking;
  auto inference = inference_request(j, ranks ? InputUse::inference | InputUse::gpu_ranking : InputUse::inference,
                                     kQuestionsKey, "", reads);
  if (!inference) return inference.error();
  out.inference = std::move(inference).value();
  return out;
}


constexpr bool in_question_order() {
  for (std::size_t i = 0; i < std::size(kQuestions); ++i)
    if (static_cast<std::size_t>(kQuestions[i].question) != i) return false;
  return std::size(kQuestions) == static_cast<std::size_t>(Question::remedies) + 1;
}
static_assert(in_question_order(), "one row per Question, in its order");

}  // namespace

std::span<const QuestionInfo> questions() noexcept { return kQuestions; }

std::string_view question_name(Question question) noexcept { return questions()[static_cast<std::size_t>(question)].name; }

std::optional<Question> parse_question(std::string_view name) noexcept {
  for (const QuestionInfo& q : kQuestions)
    if (q.name == name) return q.question;
  return std::nullopt;
}

std::string question_names() { return join_names(kQuestions); }

Result<ParsedRequest> parse_request(std::string_view text, const ModelReads* reads) {
  auto object = request_object(text);
  if (!object) return object.error();
  json& j = object.value();
  if (j.contains("questions")) return parse_questions(j, reads);
  ParsedRequest out;
  auto question = take_question(j);
  if (!question) return question.error();
  out.question = question.value();
  const bool curve = out.question == Question::curve;
  if (curve) {
    auto inputs = take_curve_inputs(j);
    if (!inputs) return inputs.error();
    out.curve = std::move(inputs).value();
  }
  const std::span<const std::string_view> extra = curve ? std::span<const std::string_view>(kCurveKeys)
                                                        : std::span<const std::string_view>(kQuestionKey);
  // "mode": "train" | "lora" | "qlora" asks the training estimate, curve or remedies; the other questions are
  // inference only, and the inference reader says so, naming "mode".
  const bool trains = questions()[static_cast<std::size_t>(out.question)].trains;
  if (trains && asks_training(j)) {
    auto training = training_request(j, extra);
    if (!training) return training.error();
    out.training = std::move(training).value();
    return out;
  }
  const bool ranks = out.question == Question::gpu_ranking;
  auto inference = inference_request(j, ranks ? InputUse::inference | InputUse::gpu_ranking : InputUse::inference,
                                     extra, question_name(out.question), reads);
  if (!inference) return inference.error();
  out.inference = std::move(inference).value();
  return out;
}

Result<Request> request_from_json(std::string_view text) {
  auto object = request_object(text);
  if (!object) return object.error();
  return inference_request(object.value(), InputUse::inference | InputUse::gpu_ranking, {}, "", nullptr);
}

Result<TrainingRequest> training_request_from_json(std::string_view text) {
  auto object = request_object(text);
  if (!object) return object.error();
  return training_request(object.value(), {});
}

}  // namespace vramfit

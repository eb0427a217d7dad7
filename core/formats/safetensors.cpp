#include "formats/safetensors.hpp"

#include <algorithm>  // std::sort
#include <array>      // std::array
#include <map>        // std::map
#include <set>        // std::set
#include <string>     // std::to_string

#include "util/binary_reader.hpp"
#include "util/json_fields.hpp"
#include "util/text.hpp"
#include "model/hf_config.hpp"
#include "util/units.hpp"
#include "formats/tally.hpp"

namespace vramfit {

using detail::Text;
namespace {

using detail::json;
using detail::JsonWriter;

struct DtypeBits {
  std::string_view name;
  std::uint32_t bits;
};
// safetensors Dtype (safetensors/src/tensor.rs), sub-byte float formats included.
constexpr std::array<DtypeBits, 20> kDtypes{{
    {"BOOL", 8},    {"U8", 8},      {"I8", 8},       {"F8_E5M2", 8},  {"F8_E4M3", 8},   {"F8_E8M0", 8},
    {"I16", 16},    {"U16", 16},    {"F16", 16},     {"BF16", 16},    {"I32", 32},      {"U32", 32},
    {"F32", 32},    {"F64", 64},    {"I64", 64},     {"U64", 64},     {"F4", 4},        {"F6_E2M3", 6},
    {"F6_E3M2", 6}, {"C64", 64},
}};

// A number as the file holds it: a garbled header's values may pass what a page's numbers keep exactly.
MessageArg read_number(std::string_view name, std::uint64_t v) { return arg::text(name, std::to_string(v)); }

// "name" with JSON escapes; invalid UTF-8 is replaced, never thrown on.
std::string json_quoted(std::string_view s) {
  JsonWriter w;
  w.value(s);
  return w.take();
}

Result<SafetensorsTensor> read_entry(const std::string& name, const json& entry, std::uint64_t header_offset) {
  // The English names the header's offset; a page that says the message in its own language leaves it out.
  auto fail = [&](const char* part, Message m) {
    m.text = (Text() << "at offset " << header_offset << ": " << m.text).str();
    return make_error((Text() << "header[" << json_quoted(name) << "]" << part).str(), std::move(m));
  };
  if (!entry.is_object())
    return fail("", message("safetensors.entry_object", "expected an object with dtype, shape and data_offsets"));
  SafetensorsTensor t;
  t.name = name;
  const auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string())
    return fail(".dtype", message("safetensors.dtype_string", "expected a dtype string such as \"BF16\""));
  t.dtype = dtype->get<std::string>();
  const auto bits = safetensors_dtype_bits(t.dtype);
  if (!bits)
    return fail(".dtype", message("safetensors.unknown_dtype", "unknown dtype {dtype}", {arg::text("dtype", json_quoted(t.dtype))}));
  const auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array() || shape->size() > 16)
    return fail(".shape", message("safetensors.shape_array", "expected an array of at most 16 dimensions"));
  t.elements = 1;
  for (const auto& d : *shape) {
    if (!d.is_number_unsigned())
      return fail(".shape", message("safetensors.shape_integers", "dimensions must be non-negative integers"));
    const auto product = checked_mul(t.elements, d.get<std::uint64_t>());
    if (!product) return fail(".shape", message("safetensors.elements_overflow", "the element count overflows 64 bits"));
    t.elements = *product;
    t.shape.push_back(d.get<std::uint64_t>());
  }
  const auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
      !(*offsets)[1].is_number_unsigned())
    return fail(".data_offsets", message("safetensors.offsets_pair", "expected [begin, end] as non-negative integers"));
  t.begin = (*offsets)[0].get<std::uint64_t>();
  t.end = (*offsets)[1].get<std::uint64_t>();
  if (t.end < t.begin)
    return fail(".data_offsets", message("safetensors.end_before_begin", "end {end} is before begin",
                                         {read_number("end", t.end)}));
  const auto total_bits = checked_mul(t.elements, *bits);
  if (!total_bits || *total_bits % 8 != 0 || *total_bits / 8 != t.end - t.begin)
    return fail(".data_offsets", message("safetensors.size_mismatch", "{size} bytes do not hold {elements} elements of {dtype}",
                                         {read_number("size", t.end - t.begin), read_number("elements", t.elements),
                                          arg::text("dtype", t.dtype)}));
  return t;
}

// Quantization settings a config.json declares (quantization_config), for unpacking packed weights.
struct QuantConfig {
  std::string method;  // "gptq", "awq", "bitsandbytes", "compressed-tensors", "fp8", ...
  std::uint32_t bits = 4;
  bool declared = false;
};

Result<QuantConfig> quant_config(std::string_view config_json) {
  QuantConfig q;
  if (config_json.empty()) return q;
  auto parsed = detail::parse_json(config_json, "config");
  if (!parsed) return parsed.error();
  detail::FieldReader root(parsed.value(), "config");
  if (const json* qc = root.object("quantization_config")) {
    detail::FieldReader r(*qc, "config.quantization_config");
    q.declared = true;
    q.method = r.string("quant_method").value_or("");
    const auto bits = r.uint("bits").value_or(r.uint("w_bit").value_or(4));
    if (bits == 0 || bits > 16)
      r.fail_message("bits", message("safetensors.quant_bits", "must be 1 to 16, got {bits}", {read_number("bits", bits)}));
    q.bits = static_cast<std::uint32_t>(bits);
    if (r.error()) return *r.error();
  }
  if (root.error()) return *root.error();
  return q;
}

// Names of tensors that describe quantization rather than hold parameters.
bool is_quant_metadata(std::string_view n) {
  for (auto end : {".qzeros", ".scales", ".g_idx", ".weight_scale", ".weight_zero_point", ".input_scale",
                   ".absmax", ".quant_map", ".nested_absmax", ".nested_quant_map", ".SCB", ".weight_format",
                   ".weight_shape", ".weight_global_scale", ".weight_scale_2"})
    if (n.ends_with(end)) return true;
  return n.find(".quant_state.") != std::string_view::npos;
}

}  // namespace

std::optional<std::uint32_t> safetensors_dtype_bits(std::string_view dtype) noexcept {
  for (const auto& d : kDtypes)
    if (d.name == dtype) return d.bits;
  return std::nullopt;
}

Result<SafetensorsHeader> parse_safetensors(std::span<const std::byte> prefix, std::uint64_t file_size) {
  if (prefix.size() > file_size)
    return make_error("file_size", message("file.prefix_over_size", "the prefix ({prefix} bytes) is longer than the file ({size} bytes)",
                                           {arg::digits("prefix", prefix.size()), read_number("size", file_size)}));
  detail::BinaryReader r(prefix, file_size);
  SafetensorsHeader out;
  std::uint64_t n = 0;
  if (!r.read(n, "header_length")) {
    if (r.need()) out.need_prefix_bytes = r.need();
    if (r.error()) return *r.error();
    return out;
  }
  if (n > kSafetensorsMaxHeaderBytes)
    return make_error("header_length",
                      message("safetensors.header_over_limit", "at offset 0: header of {n} bytes is larger than the 100 MB limit",
                              {read_number("n", n)}));
  if (n > file_size - 8)
    return make_error("header_length", message("safetensors.header_past_end",
                                               "at offset 0: header of {n} bytes runs past the end of the file "
                                               "({size} bytes)",
                                               {arg::digits("n", n), arg::digits("size", file_size)}));
  if (8 + n > prefix.size()) {
    out.need_prefix_bytes = 8 + n;
    return out;
  }
  out.header_bytes = n;
  const std::string_view text(reinterpret_cast<const char*>(prefix.data()) + 8, static_cast<std::size_t>(n));
  if (text.empty() || text.front() != '{')
    return make_error("header", message("safetensors.header_brace", "at offset 8: the JSON header must start with '{'"));
  const json header = detail::parse_dom(text);
  if (header.is_discarded() || !header.is_object())
    return make_error("header", message("safetensors.header_json", "at offset 8: not a valid JSON object"));

  const std::uint64_t buffer = file_size - 8 - n;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object())
        return make_error("header[\"__metadata__\"]", message("safetensors.metadata_object", "at offset 8: expected an object"));
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string())
          return make_error((Text() << "header[\"__metadata__\"][" << json_quoted(key) << "]").str(),
                            message("safetensors.metadata_strings", "at offset 8: values must be strings"));
        out.metadata.emplace_back(key, value.get<std::string>());
      }
      continue;
    }
    if (name.empty() || !detail::valid_utf8(name))
      return make_error("header", message("safetensors.tensor_name", "at offset 8: empty or invalid tensor name"));
    auto t = read_entry(name, entry, 8);
    if (!t) return t.error();
    if (t.value().end > buffer)
      return make_error((Text() << "header[" << json_quoted(name) << "].data_offsets").str(),
                        message("safetensors.tensor_truncated",
                                "at offset {offset}: ends at byte {end} of a data buffer of {size} bytes (truncated?)",
                                {arg::digits("offset", 8 + n), arg::digits("end", t.value().end),
                                 arg::digits("size", buffer)}));
    out.tensors.push_back(std::move(t).value());
  }
  // No two tensors may share bytes.
  std::vector<const SafetensorsTensor*> order;
  for (const auto& t : out.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->begin < b->begin || (a->begin == b->begin && a->end < b->end); });
  for (std::size_t i = 1; i < order.size(); ++i)
    if (order[i]->begin < order[i - 1]->end)
      return make_error((Text() << "header[" << json_quoted(order[i]->name) << "].data_offsets").str(),
                        message("safetensors.overlap", "at offset {offset}: overlaps {tensor}",
                                {arg::digits("offset", 8 + n), arg::text("tensor", json_quoted(order[i - 1]->name))}));
  return out;
}

Result<SafetensorsIndex> parse_safetensors_index(std::string_view json_text) {
  auto parsed = detail::parse_json(json_text, "index");
  if (!parsed) return parsed.error();
  detail::FieldReader root(parsed.value(), "index");
  SafetensorsIndex out;
  if (const json* meta = root.object("metadata")) {
    detail::FieldReader m(*meta, "index.metadata");
    out.total_size = m.uint("total_size").value_or(0);
    if (m.error()) return *m.error();
  }
  const json* map = root.object("weight_map");
  if (root.error()) return *root.error();
  if (!map)
    return make_error("index.weight_map", message("safetensors.index_no_map",
                                                  "missing: expected {\"tensor name\": \"shard file\", ...}"));
  std::set<std::string> seen;
  for (const auto& [name, file] : map->items()) {
    if (!file.is_string())
      return make_error((Text() << "index.weight_map[" << json_quoted(name) << "]").str(),
                        message("safetensors.index_file_string", "expected a file name string"));
    const auto& f = file.get_ref<const std::string&>();
    out.weight_map.emplace_back(name, f);
    if (seen.insert(f).second) out.files.push_back(f);
  }
  return out;
}

namespace {

using ShardOfTensor = std::map<std::string, std::size_t>;

// Which file holds each tensor; a name in two shards is an error.
Result<ShardOfTensor> shards_of_tensors(std::span<const SafetensorsFile> files,
                                        const std::vector<SafetensorsHeader>& headers) {
  ShardOfTensor where;
  for (std::size_t i = 0; i < headers.size(); ++i)
    for (const auto& t : headers[i].tensors)
      if (!where.emplace(t.name, i).second)
        return make_error((Text() << files[i].name << ": header[" << json_quoted(t.name) << "]").str(),
                          message("safetensors.in_two_shards", "also in {file}; a tensor may be in one shard only",
                                  {arg::text("file", files[where[t.name]].name)}));
  return where;
}

// The index's weight map against the shards given: every shard it names given, every tensor where it says.
std::optional<Error> check_index(std::span<const SafetensorsFile> files, const ShardOfTensor& where,
                                 std::string_view index_json, std::vector<Message>& notes) {
  auto index = parse_safetensors_index(index_json);
  if (!index) return index.error();
  for (const auto& [name, file] : index.value().weight_map) {
    const auto it = where.find(name);
    std::size_t given = files.size();
    for (std::size_t i = 0; i < files.size(); ++i)
      if (files[i].name == file) given = i;
    if (given == files.size())
      return make_error((Text() << "index.weight_map[" << json_quoted(name) << "]").str(),
                        message("safetensors.shard_missing", "names shard {file}, which was not given; add every shard",
                                {arg::text("file", json_quoted(file))}));
    if (it == where.end() || it->second != given)
      return make_error((Text() << "index.weight_map[" << json_quoted(name) << "]").str(),
                        message("safetensors.not_in_shard", "the tensor is not in {file}",
                                {arg::text("file", json_quoted(file))}));
  }
  if (index.value().weight_map.size() != where.size())
    notes.push_back(message("safetensors.index_differs", "The shards hold {held} tensors, the index lists {listed}.",
                            {arg::digits("held", where.size()), arg::digits("listed", index.value().weight_map.size())}));
  return std::nullopt;
}

// Each tensor's bytes and the parameters it holds (packed quantized weights unpacked); whether packed int32 weights
// were seen.
bool tally_shards(const std::vector<SafetensorsHeader>& headers, const ShardOfTensor& where, std::uint32_t bits,
                  WeightBytes& weights) {
  bool packed_seen = false;
  for (std::size_t i = 0; i < headers.size(); ++i) {
    for (const auto& t : headers[i].tensors) {
      const TensorRole role = role_of_tensor(t.name);
      const std::uint64_t bytes = t.end - t.begin;
      std::uint64_t params = t.elements;
      std::string storage = t.dtype;
      if ((t.name.ends_with(".qweight") || t.name.ends_with(".weight_packed")) && (t.dtype == "I32" || t.dtype == "U32")) {
        // GPTQ qweight [in·bits/32, out], AWQ [in, out·bits/32], compressed-tensors weight_packed
        // [out, in·bits/32]: each int32 holds 32/bits weights.
        params = t.elements * (32 / bits) + t.elements * (32 % bits) / bits;
        storage = (Text() << t.dtype << " packed " << bits << "-bit").str();
        packed_seen = true;
      } else if (t.dtype == "U8" && (where.count(t.name + ".quant_state.bitsandbytes__nf4") ||
                                     where.count(t.name + ".quant_state.bitsandbytes__fp4"))) {
        params = t.elements * 2;  // bitsandbytes Params4bit: two 4-bit weights per byte
        storage = "U8 packed 4-bit (bitsandbytes)";
      } else if (is_quant_metadata(t.name)) {
        params = 0;
        storage = (Text() << t.dtype << " quantization metadata").str();
      }
      tally_tensor(weights, role, storage, t.elements, bytes, params);
    }
  }
  return packed_seen;
}

}  // namespace

Result<ImportedModel> import_safetensors(std::span<const SafetensorsFile> files, std::string_view config_json,
                                         std::string_view index_json) {
  ImportedModel out;
  out.format = "safetensors";
  if (files.empty()) return make_error("files", message("safetensors.no_files", "no safetensors file was given"));
  auto quant = quant_config(config_json);
  if (!quant) return quant.error();

  std::vector<SafetensorsHeader> headers;
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto h = parse_safetensors(files[i].prefix, files[i].file_size);
    if (!h) {
      Error e = h.error();
      e.field = (Text() << files[i].name << ": " << e.field).str();
      return e;
    }
    if (h.value().need_prefix_bytes) {
      out.need_file = i;
      out.need_prefix_bytes = h.value().need_prefix_bytes;
      return out;
    }
    headers.push_back(std::move(h).value());
  }

  auto where = shards_of_tensors(files, headers);
  if (!where) return where.error();
  if (!index_json.empty())
    if (auto error = check_index(files, where.value(), index_json, out.notes)) return *error;
  const bool packed_seen = tally_shards(headers, where.value(), quant.value().bits, out.weights);
  finish_tally(out.weights);
  if (packed_seen && !quant.value().declared)
    out.notes.push_back(message("safetensors.packed_4bit", "Packed int32 weights without a quantization_config: read as 4-bit."));
  out.weights.explanation =
      files.size() == 1
          ? message("explain.weights.source_safetensors_one",
                    "exact tensor bytes of 1 safetensors file; packed quantized weights counted as the parameters they hold")
          : message("explain.weights.source_safetensors",
                    "exact tensor bytes of {files} safetensors files; packed quantized weights counted as the parameters "
                    "they hold",
                    {arg::digits("files", files.size())});

  if (config_json.empty()) {
    out.spec.bare_params = out.weights.params;
    out.notes.push_back(message("safetensors.no_config",
                                "Without config.json only the parameter count is known; add it for the KV cache."));
    return out;
  }
  auto spec = model_from_hf_config(config_json);
  if (!spec) return spec.error();
  out.spec = std::move(spec).value();
  if (auto counts = count_params(out.spec); counts && out.weights.params) {
    const double ratio = static_cast<double>(counts.value().total) / static_cast<double>(out.weights.params);
    if (ratio > 1.01 || ratio < 0.99)
      out.notes.push_back(message("safetensors.count_differs",
                                  "config.json describes {counted} parameters, the checkpoint holds {held}; weights "
                                  "use the checkpoint's exact bytes.",
                                  {arg::digits("counted", counts.value().total), arg::digits("held", out.weights.params)}));
  }
  return out;
}

}  // namespace vramfit

#include "model/model_presets.hpp"

#include "model/hf_config_json.hpp"
#include "util/text.hpp"  // lookup_key

namespace vramfit {

using detail::FieldReader;
using detail::json;

Result<std::vector<ModelPreset>> parse_model_presets(std::string_view json_text) {
  auto parsed = detail::parse_json(json_text, "models.json");
  if (!parsed) return parsed.error();
  FieldReader root(parsed.value(), "");
  const json* list = root.array("models");
  if (!list) return root.error().value_or(make_error("models", "missing the \"models\" array"));
  std::vector<ModelPreset> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string path = "models[" + std::to_string(i) + "]";
    const json& item = (*list)[i];
    if (!item.is_object()) return make_error(path, "expected an object");
    FieldReader r(item, path);
    const json* config = r.object("config");
    if (!config) return r.error().value_or(make_error(path + ".config", "missing"));
    auto spec = detail::model_from_config_object(*config, path + ".config");
    if (!spec) return spec.error();
    ModelPreset p;
    p.spec = std::move(spec).value();
    p.spec.id = r.string("id").value_or("");
    p.spec.name = r.string("name").value_or(p.spec.id);
    if (auto ctx = r.uint("default_context")) p.spec.default_context = *ctx;
    p.hf_repo = r.string("hf_repo").value_or("");
    if (const json* tags = r.array("ollama")) {
      for (std::size_t t = 0; t < tags->size(); ++t) {
        if (!(*tags)[t].is_string() || (*tags)[t].get_ref<const std::string&>().empty())
          return make_error(path + ".ollama[" + std::to_string(t) + "]", "must be a non-empty string (an Ollama tag)");
        p.ollama.push_back((*tags)[t].get<std::string>());
      }
    }
    p.config_source = r.string("config_source").value_or("");
    if (const json* published = r.object("published_params")) {
      FieldReader pub(*published, path + ".published_params");
      p.published_total = pub.uint("total").value_or(0);
      p.published_active = pub.uint("active").value_or(0);
      p.published_source = pub.string("source").value_or("");
      if (const json* rounded = pub.object("rounded_to")) {
        FieldReader unit(*rounded, pub.path("rounded_to"));
        p.published_total_rounded_to = unit.uint("total").value_or(0);
        p.published_active_rounded_to = unit.uint("active").value_or(0);
        if (unit.error()) return *unit.error();
      }
      if (pub.error()) return *pub.error();
    }
    if (r.error()) return *r.error();
    if (p.spec.id.empty()) return make_error(path + ".id", "must be a non-empty string");
    for (const auto& existing : out)
      if (lookup_key(existing.spec.id) == lookup_key(p.spec.id))
        return make_error(path + ".id", "duplicate id " + p.spec.id);
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

bool answers_to(const ModelPreset& p, const std::string& key) {
  if (lookup_key(p.spec.id) == key || lookup_key(p.spec.name) == key || lookup_key(p.hf_repo) == key) return true;
  for (const auto& tag : p.ollama)
    if (lookup_key(tag) == key) return true;
  return false;
}

}  // namespace

const ModelPreset* find_model(const std::vector<ModelPreset>& presets, std::string_view id) noexcept {
  const std::string key = lookup_key(id);
  if (key.empty()) return nullptr;
  for (const auto& p : presets)
    if (answers_to(p, key)) return &p;
  return nullptr;
}

}  // namespace vramfit

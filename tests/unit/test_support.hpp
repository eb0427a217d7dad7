#pragma once
// Shared fixtures: the built-in catalog, loaded once per test binary.
#include <doctest/doctest.h>

#include "vramfit/builtin_data.hpp"
#include "questions/evaluate.hpp"

namespace vramfit::test {

inline const Catalog& catalog() {
  static const Catalog loaded = [] {
    auto c = load_catalog(builtin::models_json(), builtin::gpus_json(), builtin::model_configs());
    if (!c) FAIL("built-in catalog does not load: " << c.error().field << ": " << c.error().message);
    return c.value();
  }();
  return loaded;
}

inline const ModelSpec& preset(const char* id) {
  const ModelPreset* p = find_model(catalog().models, id);
  REQUIRE_MESSAGE(p != nullptr, "missing preset " << id);
  const Result<ModelSpec>& spec = p->model.get();
  REQUIRE_MESSAGE(spec.ok(), "preset " << id << " does not read: " << (spec.ok() ? "" : spec.error().message.text));
  return spec.value();
}

inline const Gpu& gpu(const char* id) {
  const Gpu* g = find_gpu(catalog().gpus, id);
  REQUIRE_MESSAGE(g != nullptr, "missing GPU " << id);
  return *g;
}

}  // namespace vramfit::test

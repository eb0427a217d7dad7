#include <memory>   // std::make_shared
#include <utility>  // std::move

#include "json/report_writer.hpp"  // error_to_json
#include "questions/evaluate.hpp"  // load_catalog

namespace vramfit {

CatalogHandle open_catalog(std::string_view models_json, std::string_view gpus_json,
                           std::span<const std::string_view> model_configs) {
  auto catalog = load_catalog(models_json, gpus_json, model_configs);
  if (!catalog) return {nullptr, error_to_json(catalog.error())};
  return {std::make_shared<const Catalog>(std::move(catalog).value()), ""};
}

}  // namespace vramfit

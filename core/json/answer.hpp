#pragma once
// One dispatcher for every question: the request is decoded once (parse_request) and answered here. A model
// file's header, once imported, stands in for the request's model, so every question that takes a model takes a
// file as well. The text forms (answer, answer_file, answer_shards) are the public face, vramfit/vramfit.hpp.
#include <string>  // std::string

#include "json/request.hpp"
#include "vramfit/vramfit.hpp"

namespace vramfit {

std::string answer(const Catalog& catalog, const ParsedRequest& request);

}  // namespace vramfit

#pragma once
// The inputs table's checks for the request parser: which values a choice input takes. The table itself is
// public (vramfit/inputs.hpp): the CLI translates flags into request keys by it.
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "vramfit/inputs.hpp"

namespace vramfit {

// A choice input's allowed values, comma-separated, from the parsers that read them ("" for other kinds).
std::string allowed_values(const Input& input);
// Whether a choice input takes this value: its parser decides, so its aliases ("full", "llama.cpp") pass too.
bool is_allowed_value(const Input& input, std::string_view value);

}  // namespace vramfit

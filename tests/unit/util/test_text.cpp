// The shared text helpers (util/text.hpp): case-insensitive names, lists and switches as people type them, and
// the message builder, each piece appended as the std::string chains it replaces printed it.
#include <doctest/doctest.h>

#include <array>    // std::array
#include <cstdint>  // std::uint64_t, std::int64_t, std::uint32_t, std::int8_t
#include <limits>   // std::numeric_limits
#include <memory>   // std::unique_ptr
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include "util/small_sort.hpp"
#include "util/text.hpp"

using vramfit::detail::Fixed;
using vramfit::detail::General;
using vramfit::detail::Grouped;
using vramfit::detail::Text;

TEST_CASE("lower_ascii lowers ASCII letters only") {
  CHECK(vramfit::lower_ascii("Q4_K_M") == "q4_k_m");
  CHECK(vramfit::lower_ascii("Full-Shard 2") == "full-shard 2");
  CHECK(vramfit::lower_ascii("ÄÖ") == "ÄÖ");  // UTF-8 bytes pass through
  CHECK(vramfit::lower_ascii("").empty());
}

TEST_CASE("lookup_key keeps lowercase letters and digits, so case and punctuation do not matter") {
  CHECK(vramfit::lookup_key("NVIDIA H100 SXM") == "nvidiah100sxm");
  CHECK(vramfit::lookup_key("h100-sxm") == vramfit::lookup_key("H100_SXM"));
  CHECK(vramfit::lookup_key("--").empty());
}

TEST_CASE("a comma-separated list is trimmed and loses its empty items") {
  using List = std::vector<std::string>;
  CHECK(vramfit::split_list(" h100-sxm, l40s ,") == List{"h100-sxm", "l40s"});
  CHECK(vramfit::split_list("a,,b") == List{"a", "b"});
  CHECK(vramfit::split_list("one") == List{"one"});
  CHECK(vramfit::split_list(",,").empty());
  CHECK(vramfit::split_list("").empty());
}

TEST_CASE("a switch reads on/off, true/false and 1/0 in any case, and nothing else") {
  for (const char* on : {"on", "ON", "true", "True", "yes", "1"}) CHECK(vramfit::parse_switch(on) == true);
  for (const char* off : {"off", "Off", "false", "FALSE", "No", "0"}) CHECK(vramfit::parse_switch(off) == false);
  for (const char* neither : {"", "y", "maybe", "2", " on", "o n"}) CHECK_FALSE(vramfit::parse_switch(neither));
}

TEST_CASE("Text appends text pieces in order") {
  const std::string owned = "owned";
  const std::string_view view = "view";
  CHECK((Text() << "literal " << owned << ' ' << view).str() == "literal owned view");
  CHECK(Text().str().empty());
  CHECK((Text() << "" << std::string() << "x").str() == "x");
  CHECK((Text() << "10 × 2 B = 20 B").str() == "10 × 2 B = 20 B");  // UTF-8 passes through
}

TEST_CASE("Text writes integers as plain digits, signed ones with their sign") {
  CHECK((Text() << std::uint64_t{0}).str() == "0");
  CHECK((Text() << std::numeric_limits<std::uint64_t>::max()).str() == "18446744073709551615");
  CHECK((Text() << std::numeric_limits<std::int64_t>::min()).str() == "-9223372036854775808");
  CHECK((Text() << -42).str() == "-42");
  CHECK((Text() << 7u << ',' << std::size_t{123456} << ',' << std::uint32_t{4294967295u}).str() ==
        "7,123456,4294967295");
  CHECK((Text() << std::int8_t{-5}).str() == "-5");  // a number, not a character
}

TEST_CASE("Text groups digits in threes") {
  CHECK((Text() << Grouped{0}).str() == "0");
  CHECK((Text() << Grouped{999}).str() == "999");
  CHECK((Text() << Grouped{1000}).str() == "1,000");
  CHECK((Text() << Grouped{123456}).str() == "123,456");
  CHECK((Text() << Grouped{1234567}).str() == "1,234,567");
  CHECK((Text() << Grouped{std::numeric_limits<std::uint64_t>::max()}).str() == "18,446,744,073,709,551,615");
}

TEST_CASE("Text writes printf's fixed and general forms") {
  CHECK((Text() << Fixed{2.5, 0} << ' ' << Fixed{1.0 / 3, 2} << ' ' << Fixed{-0.125, 2}).str() == "2 0.33 -0.12");
  CHECK((Text() << General{123456789.0, 3} << ' ' << General{0.0001234, 2} << ' ' << General{0.5, 5}).str() ==
        "1.23e+08 0.00012 0.5");
}

TEST_CASE("A named Text is built piece by piece") {
  Text t;
  t << "a" << 1;
  if (t.str().empty()) t << "never";
  Text u;
  for (int i = 0; i < 3; ++i) u << i << ';';
  CHECK(u.str() == "0;1;2;");
}

TEST_CASE("Choice names fold case and both separators, and are looked up in a table of spellings") {
  CHECK(vramfit::fold_name("Full-Shard", '_') == "full_shard");
  CHECK(vramfit::fold_name("ADAMW_8bit", '-') == "adamw-8bit");
  constexpr std::array<vramfit::NamedValue<int>, 3> table{{{"none", 0}, {"params", 2}, {"nvme", 3}}};
  REQUIRE(vramfit::find_named(table, "params") != nullptr);
  CHECK(vramfit::find_named(table, "params")->value == 2);
  CHECK(vramfit::find_named(table, "Params") == nullptr);  // the caller folds first
  CHECK(vramfit::join_names(table) == "none, params, nvme");
}

TEST_CASE("name keys keep numbers of separate words apart, and a name part is a whole number") {
  CHECK(vramfit::name_key("GeForce RTX 3060 12GB") == "geforcertx3060.12gb");
  CHECK(vramfit::name_key("h100-sxm") == "h100sxm");
  CHECK(vramfit::contains_name_part("geforcertx3060.12gb", "3060"));
  CHECK(vramfit::contains_name_part("geforcertx4090", "rtx4090"));
  CHECK_FALSE(vramfit::contains_name_part("nvidiaa100", "a10"));   // a digit follows
  CHECK_FALSE(vramfit::contains_name_part("nvidiah100", "100x"));
  CHECK_FALSE(vramfit::contains_name_part("rtx14090", "4090"));    // a digit precedes
  CHECK_FALSE(vramfit::contains_name_part("anything", ""));
}

TEST_CASE("the closest names share the longest run of letters and digits, at least three") {
  const std::vector<std::string> names{"llama-3.1-8b", "llama-3.1-70b", "mistral-7b", "gpt2"};
  const auto closest = vramfit::closest_names(names, "llma-3.1-8b", 2);
  REQUIRE(closest.size() == 2);
  CHECK(closest[0] == "llama-3.1-8b");  // "a318b" (5) beats "a31" (3)
  CHECK(vramfit::closest_names(names, "xyz", 3).empty());
}

TEST_CASE("small_stable_sort orders by the comparison and keeps equal elements as they came") {
  // Keys descending, ties in input order, sorted by hand: b d (3), c f (2), a e (1).
  std::vector<std::pair<int, char>> v{{1, 'a'}, {3, 'b'}, {2, 'c'}, {3, 'd'}, {1, 'e'}, {2, 'f'}};
  vramfit::detail::small_stable_sort(v, [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string order;
  for (const auto& [key, tag] : v) order += tag;
  CHECK(order == "bdcfae");

  std::vector<std::pair<int, char>> none;
  vramfit::detail::small_stable_sort(none, [](const auto& x, const auto& y) { return x.first < y.first; });
  CHECK(none.empty());

  // Elements are moved into place, never copied: a move-only type sorts.
  std::vector<std::unique_ptr<int>> owned;
  for (int x : {5, 1, 4}) owned.push_back(std::make_unique<int>(x));
  vramfit::detail::small_stable_sort(owned, [](const auto& x, const auto& y) { return *x < *y; });
  REQUIRE(owned.size() == 3);
  CHECK(*owned[0] == 1);
  CHECK(*owned[1] == 4);
  CHECK(*owned[2] == 5);
}

// Messages: the English sentence is the template with each arg's English form, the JSON carries the raw values.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <type_traits>  // std::is_convertible_v, std::is_aggregate_v

#include "util/explanation.hpp"
#include "util/json_writer.hpp"
#include "util/message.hpp"
#include "util/result.hpp"

using namespace vramfit;

TEST_CASE("a message renders its English from the template and keeps the raw values") {
  // 1,234,567,890 B by hand: the grouped digits the explanations use; 2 GiB = 2,147,483,648 B → "2.0 GiB".
  const Message m = message("test.partial", "{n} of {total} layers; {ram_bytes} in RAM ({gib_bytes}), share {share}, on {gpu}",
                            {arg::count("n", 40), arg::count("total", 81), arg::bytes("ram_bytes", 1'234'567'890),
                             arg::gib("gib_bytes", 2'147'483'648ULL, 1), arg::fixed("share", 0.9, 2),
                             arg::text("gpu", "GeForce RTX 4090")});
  CHECK(m.text == "40 of 81 layers; 1,234,567,890 B in RAM (2.0 GiB), share 0.90, on GeForce RTX 4090");
  CHECK(m.id == "test.partial");
  detail::JsonWriter w;
  w.message_id(nullptr, m);
  const auto j = nlohmann::json::parse(w.take());
  CHECK(j["id"] == "test.partial");
  CHECK(j["args"]["ram_bytes"] == 1'234'567'890);
  CHECK(j["args"]["gib_bytes"] == 2'147'483'648ULL);
  CHECK(j["args"]["share"] == 0.9);
  CHECK(j["args"]["gpu"] == "GeForce RTX 4090");
  CHECK(j["args"]["n"] == 40);
}

TEST_CASE("a plain string is no message, and a placeholder without an arg stays as written") {
  static_assert(!std::is_convertible_v<std::string, Message> && !std::is_convertible_v<const char*, Message>);
  static_assert(!std::is_convertible_v<Message, std::string>);
  static_assert(!std::is_aggregate_v<Message>);  // {"text"} never fills the id
  CHECK(Message().empty());
  const Error e = make_error("context", message("test.range", "must be between 1 and 10"));
  CHECK(e.message.text == "must be between 1 and 10");
  CHECK(message("test.x", "{missing} stays", {}).text == "{missing} stays");
  CHECK(arg::signed_count("d", -1234).english == "-1,234");
}

TEST_CASE("a range whose two ends read the same is one figure") {
  // 5.24 and 5.21 both round to "5.2" at one decimal: "5.2-5.2 tokens/s" would say nothing a single figure does not.
  CHECK(message("test.r", "at {low}-{high} tokens/s", {arg::fixed("low", 5.21, 1), arg::fixed("high", 5.24, 1)}).text ==
        "at 5.2 tokens/s");
  CHECK(message("test.r", "{low}–{high} GB", {arg::fixed("low", 3, 1), arg::fixed("high", 3, 1)}).text == "3.0 GB");
  CHECK(message("test.r", "at {low}-{high} tokens/s", {arg::fixed("low", 5.2, 1), arg::fixed("high", 5.3, 1)}).text ==
        "at 5.2-5.3 tokens/s");
}

TEST_CASE("a long argument name is found in the template as a short one is") {
  // Names past the short-string buffer (15 characters in libstdc++) live on the heap.
  CHECK(message("test.long", "{a_rather_long_argument_name} tokens", {arg::count("a_rather_long_argument_name", 4096)}).text ==
        "4,096 tokens");
}

TEST_CASE("a total's formula and figures are one clause per term, however many lines the breakdown has") {
  const std::vector<SumTerm> terms{{message("explain.term.weights", "weights"), 1234},
                                   {message("explain.term.kv_cache", "KV cache"), 5},
                                   {message("explain.term.overhead", "overhead"), 100000}};
  const Message formula = sum_formula(terms);
  CHECK(formula.text == "weights + KV cache + overhead");
  // ((weights + KV cache) + overhead): the page words each clause in its language.
  CHECK(formula.id == "explain.sum.plus");
  CHECK(arg_named(formula, "right").nested.front().id == "explain.term.overhead");
  CHECK(arg_named(arg_named(formula, "left").nested.front(), "left").nested.front().id == "explain.term.weights");
  // 1,234 + 5 + 100,000 = 101,239 by hand.
  CHECK(sum_values(terms, 101239, true).text == "1,234 + 5 + 100,000 = 101,239 B");
  CHECK(sum_values(terms, 101239, false).text == "1234 + 5 + 100000 = 101239 B");
  const Message staged = sum_values(terms, 101239, false, message("explain.role.last_stage", "last pipeline stage"));
  CHECK(staged.text == "1234 + 5 + 100000 = 101239 B (last pipeline stage)");
  CHECK(staged.id == "explain.sum.equals_role");
  CHECK(arg_named(staged, "total").integer == 101239);
}

// The core's streaming JSON writer and its printf-free number text (util/json_writer.hpp,
// util/number_text.hpp): the text must be what nlohmann's dump and printf print.
#include <nlohmann/json.hpp>

#include <cmath>    // NAN, INFINITY, std::ldexp
#include <cstdint>  // std::uint64_t, std::int64_t
#include <cstdio>   // std::snprintf: the reference the number text is checked against
#include <limits>   // std::numeric_limits
#include <random>   // std::mt19937_64
#include <string>   // std::string

#include "util/json_fields.hpp"
#include "util/json_writer.hpp"
#include "util/number_text.hpp"
#include "../test_support.hpp"
#include "questions/gpu_ranking.hpp"
#include "questions/limits.hpp"
#include "questions/evaluate_training.hpp"
#include "json/report_writer.hpp"
#include "json/request.hpp"

using namespace vramfit;
using detail::fixed_text;
using detail::general_text;
using detail::JsonWriter;
using nlohmann::json;

namespace {

std::string json_text(std::string_view s) {
  JsonWriter w;
  w.value(s);
  return w.take();
}

std::string printf_text(const char* format, int digits, double x) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, digits, x);
  return buf;
}

// nlohmann's own text for a value: the serializer the writer replaces, keys sorted by its std::map.
std::string nlohmann_dump(const std::string& text) {
  return json::parse(text).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

TEST_CASE("fixed_text is printf's %.*f, ties to even on the binary value") {
  // Each figure below is glibc's printf output for the same call.
  CHECK(fixed_text(0.125, 2) == "0.12");  // 0.125 is exact in binary: a true tie, to even
  CHECK(fixed_text(2.5, 0) == "2");
  CHECK(fixed_text(3.5, 0) == "4");
  CHECK(fixed_text(1234.5678, 2) == "1234.57");
  CHECK(fixed_text(0.999, 2) == "1.00");
  CHECK(fixed_text(-0.001, 2) == "-0.00");
  // 8.365 is 8.36500000000000021316… in binary; 8.365 × 100 rounds to exactly 836.5, so rounding the scaled
  // double alone would give 8.36.
  CHECK(fixed_text(8.365, 2) == "8.37");
  CHECK(fixed_text(0.95, 6) == "0.950000");  // std::to_string's "%f"
  CHECK(fixed_text(1e20, 2) == "100000000000000000000.00");
  // Every digit of the double nearest 1e300, as printf prints it: 301 digits.
  CHECK(fixed_text(-1e300, 0).size() == 302);
  CHECK(fixed_text(-1e300, 0).substr(0, 30) == "-10000000000000000525047602552");
  CHECK(fixed_text(INFINITY, 2) == "inf");
  CHECK(fixed_text(-INFINITY, 2) == "-inf");
  CHECK(fixed_text(NAN, 2) == "nan");
}

TEST_CASE("general_text is printf's %.*g: significant digits, zeros dropped, exponent outside 1e-4..10^p") {
  CHECK(general_text(0.00012345, 4) == "0.0001234");  // 1.23449999…e-4 in binary: below the tie
  CHECK(general_text(1.5e12, 4) == "1.5e+12");
  CHECK(general_text(123456789, 4) == "1.235e+08");
  CHECK(general_text(9.9996, 4) == "10");  // rounds up into the next decade
  CHECK(general_text(0.4, 4) == "0.4");
  CHECK(general_text(1e-5, 4) == "1e-05");
  CHECK(general_text(123456, 5) == "1.2346e+05");
  CHECK(general_text(12345, 5) == "12345");
  CHECK(general_text(0, 4) == "0");
  CHECK(general_text(-2.5e-7, 4) == "-2.5e-07");
  CHECK(general_text(1.005, 3) == "1");  // 1.00499999… in binary
  CHECK(general_text(0.125, 2) == "0.12");
  CHECK(general_text(6.3e24, 4) == "6.3e+24");
  CHECK(general_text(INFINITY, 4) == "inf");
}

TEST_CASE("the number text agrees with this platform's printf over many values") {
  std::mt19937_64 rng(20261129);
  int mismatches = 0;
  auto check = [&](double x) {
    for (int d = 0; d <= 6; ++d) {
      if (fixed_text(x, d) != printf_text("%.*f", d, x) && ++mismatches <= 5)
        FAIL_CHECK("%." << d << "f of " << printf_text("%.*g", 17, x) << ": printf " << printf_text("%.*f", d, x)
                        << ", ours " << fixed_text(x, d));
    }
    for (int p = 1; p <= 6; ++p) {
      if (general_text(x, p) != printf_text("%.*g", p, x) && ++mismatches <= 5)
        FAIL_CHECK("%." << p << "g of " << printf_text("%.*g", 17, x) << ": printf " << printf_text("%.*g", p, x)
                        << ", ours " << general_text(x, p));
    }
  };
  for (int i = 0; i < 20000; ++i) {
    // Short decimals (their halves are near-ties in binary) at magnitudes 1e-12 … 1e16, and binary values
    // with few significant bits (exact ties).
    const double mantissa = static_cast<double>(rng() % 1'000'000);
    const int exponent = static_cast<int>(rng() % 29) - 12;
    check((rng() & 1 ? -1 : 1) * mantissa * std::pow(10.0, exponent - 5));
    check(std::ldexp(static_cast<double>(rng() % 4096), static_cast<int>(rng() % 80) - 40));
  }
  check(0.0);
  check(-0.0);
  check(1e300);
  check(std::numeric_limits<double>::max());
  CHECK(mismatches == 0);
}

TEST_CASE("the writer nests objects and arrays and places every comma") {
  JsonWriter w;
  w.begin_object();
  w.field("a", std::numeric_limits<std::uint64_t>::max());
  w.begin_array("b");
  w.value(1);
  w.value(std::int64_t{-2});
  w.value(2.5);
  w.value(true);
  w.value(nullptr);
  w.value("x");
  w.begin_object();
  w.end_object();
  w.begin_array();
  w.end_array();
  w.end_array();
  w.begin_object("c");
  w.field("d", std::optional<double>{});
  w.field("e", std::optional<std::uint64_t>{7});
  w.field("f", std::vector<std::string>{"g", "h"});
  w.field("i", {"j"});
  w.end_object();
  w.field("k", std::numeric_limits<std::int64_t>::min());
  w.end_object();
  CHECK(w.take() == R"({"a":18446744073709551615,"b":[1,-2,2.5,true,null,"x",{},[]],)"
                    R"("c":{"d":null,"e":7,"f":["g","h"],"i":["j"]},"k":-9223372036854775808})");
}

TEST_CASE("an object's members come out in key byte order, whatever order the writer gives them in") {
  JsonWriter w;
  w.begin_object();
  w.field("zero", 0);
  w.begin_array("list");  // an array keeps its order; the objects in it are sorted each on its own
  w.begin_object();
  w.field("micro_batch", 1);
  w.field("grad_accum", 8);
  w.end_object();
  w.value("b");
  w.value("a");
  w.end_array();
  w.begin_object("inputs");
  w.field("kv_dtype", "q8_0");
  w.begin_object("attention");
  w.field("b", 2);
  w.field("a", 1);
  w.end_object();
  w.end_object();
  w.field("Z", true);  // byte order: upper case before lower case, as std::map<std::string> sorts
  w.field("a_b", 1);
  w.field("a", 1);     // a prefix sorts first
  w.end_object();
  const std::string text = w.take();
  CHECK(text == R"({"Z":true,"a":1,"a_b":1,"inputs":{"attention":{"a":1,"b":2},"kv_dtype":"q8_0"},)"
                R"("list":[{"grad_accum":8,"micro_batch":1},"b","a"],"zero":0})");
  CHECK(text == nlohmann_dump(text));
}

TEST_CASE("doubles print as nlohmann printed them: shortest round trip, .0 on integers, null when not finite") {
  auto text = [](double x) {
    JsonWriter w;
    w.value(x);
    return w.take();
  };
  CHECK(text(1.0) == "1.0");
  CHECK(text(0.1) == "0.1");
  CHECK(text(-0.0) == "-0.0");
  CHECK(text(0.34) == "0.34");
  CHECK(text(450.0) == "450.0");
  CHECK(text(1e14) == "100000000000000.0");
  CHECK(text(1e15) == "1e+15");  // nlohmann switches to an exponent past 15 digits
  CHECK(text(1e-5) == "1e-05");
  CHECK(text(0.0001) == "0.0001");
  CHECK(text(123456789012345680.0) == "1.2345678901234568e+17");
  CHECK(text(NAN) == "null");
  CHECK(text(-INFINITY) == "null");
}

TEST_CASE("strings are escaped as JSON, and invalid UTF-8 becomes U+FFFD") {
  CHECK(json_text("<img src=x onerror=alert(1)>") == R"("<img src=x onerror=alert(1)>")");
  CHECK(json_text("a\"b\\c\nd\te\r\b\f") == R"("a\"b\\c\nd\te\r\b\f")");
  CHECK(json_text(std::string("\x01\x1f\x7f", 3)) == "\"\\u0001\\u001f\x7f\"");  // DEL is not a control escape
  CHECK(json_text(std::string("nul\0!", 5)) == R"("nul\u0000!")");
  CHECK(json_text("na\xC3\xAFve \xE2\x82\xAC \xF0\x9F\x98\x80") == "\"na\xC3\xAFve \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  // One U+FFFD per maximal ill-formed subsequence (Unicode §3.9, "U+FFFD Substitution of Maximal Subparts").
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(json_text("a\xFF" "b") == "\"a" + fffd + "b\"");
  CHECK(json_text("\xC3(") == "\"" + fffd + "(\"");                    // lead byte without its continuation
  CHECK(json_text("\xE2\x82") == "\"" + fffd + "\"");                  // cut off at the end: one for both bytes
  CHECK(json_text("\xF0\x9F\x98x") == "\"" + fffd + "x\"");
  CHECK(json_text("\xC0\xAF") == "\"" + fffd + fffd + "\"");           // overlong: C0 never starts a character
  CHECK(json_text("\xED\xA0\x80") == "\"" + fffd + fffd + fffd + "\"");  // a UTF-16 surrogate
  CHECK(json_text("\xF4\x90\x80\x80") == "\"" + fffd + fffd + fffd + fffd + "\"");  // above U+10FFFF
  CHECK(json::accept(json_text("bad\xFF\xFE \xC3\x28 \xE2\x82")));
}

TEST_CASE("strings come out as nlohmann's serializer wrote them, for arbitrary bytes") {
  std::mt19937_64 rng(7);
  const unsigned char interesting[] = {0x00, 0x1F, '"', '\\', 'a', 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0,
                                       0xA0, 0xED, 0x9F, 0xEF, 0xF0, 0x90, 0xF4, 0x8F, 0xF5, 0xFF};
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 8, '\0');
    for (auto& ch : s) ch = static_cast<char>(interesting[rng() % sizeof interesting]);
    std::string hex;
    for (const char ch : s) hex += {"0123456789abcdef"[(ch >> 4) & 15], "0123456789abcdef"[ch & 15], ' '};
    CAPTURE(hex);
    REQUIRE(json_text(s) == json(s).dump(-1, ' ', false, json::error_handler_t::replace));
  }
}

TEST_CASE("a parsed document is written back as nlohmann dumps it") {
  const std::string text =
      R"({"z":[1,-2,3.25e-7,1e300,18446744073709551615,true,null,"\u0000é"],"a":{"b\u0000c":{},"":[]},"m":4096.0})";
  CHECK(detail::dump(json::parse(text)) == json::parse(text).dump());
}

TEST_CASE("every report's text is its own nlohmann round trip: keys in byte order, numbers as nlohmann prints") {
  const Catalog& c = test::catalog();
  auto evaluated = [&](const char* request) {
    auto r = evaluate(c, request_from_json(request).value());
    REQUIRE(r.ok());
    return report_to_json(r.value());
  };
  auto trained = [&](const char* request) {
    auto r = evaluate_training(c, training_request_from_json(request).value());
    REQUIRE(r.ok());
    return training_report_to_json(r.value());
  };
  const std::string texts[] = {
      evaluated(R"({"model":"llama-3.1-8b"})"),
      evaluated(R"({"model":"llama-3.1-70b","engine":"vllm","weights":"fp8","gpu":"h100-sxm","usd_per_kwh":0.3})"),
      evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4060","gpu_layers":20})"),
      evaluated(R"({"model":"llama-3.1-8b","gpu":"apple-m2-ultra-192gb","usd_per_kwh":0.1})"),
      evaluated(R"({"params":7000000000,"gpu":"rtx-4090"})"),
      trained(R"({"mode":"train","model":"llama-3.1-8b","gpu":"h100-sxm","tokens":1e12,"zero":3,"gpus":8,"pp":2})"),
      trained(R"({"mode":"qlora","model":"llama-2-70b","gpu":"rtx-4090","tokens":2e9,"zero":2,"offload":"optimizer"})"),
      trained(R"({"mode":"lora","model":"gpt2"})"),
      answer(c, R"({"question":"gpu_ranking","model":"llama-3.1-8b","gpus":"rtx-4090,a100-80gb-sxm,h100-sxm"})"),
      answer(c, R"({"question":"gpu_ranking","model":"llama-3.1-70b","weights":"bf16","budget_per_hour":0.01})"),
      answer(c, R"({"question":"biggest_model","gpu":"rtx-4090","engine":"llamacpp"})"),
      answer(c, R"({"question":"biggest_model","gpu":"rtx-4060","weights":"bf16","context":1000000})"),
      answer(c, R"({"question":"curve","model":"qwen2.5-7b","points":5})"),
      limits_to_json(solve_limits(c, request_from_json(R"({"model":"llama-3.1-8b","gpu":"rtx-4090"})").value()).value()),
      // Remedies whose inputs are given in the order they are applied: kv_dtype before attention, micro_batch
      // before grad_accum.
      answer(c, R"({"question":"remedies","model":"llama-2-7b","engine":"llamacpp","attention":"eager","gpu":"rtx-4060"})"),
      answer(c, R"({"question":"remedies","mode":"train","model":"llama-3.1-8b","micro_batch":4,"gpu":"a100-80gb-sxm"})"),
      catalog_to_json(c),
      error_to_json(make_error("field\xFF", message("test.x", "a <b> \"message\""))),
  };
  for (const std::string& text : texts) {
    CAPTURE(text.substr(0, 200));
    CHECK(text == nlohmann_dump(text));
  }
  CHECK(texts[1].find("\"vllm\":{") != std::string::npos);
  CHECK(texts[1].find("\"energy\":{") != std::string::npos);
  CHECK(texts[2].find("\"llamacpp\":{") != std::string::npos);
  CHECK(texts[5].find("\"time\":{") != std::string::npos);
  CHECK(texts[5].find("\"ranks\":[{") != std::string::npos);
  CHECK(texts[14].find(R"("inputs":{"attention":"sdpa","kv_dtype":"q8_0"})") != std::string::npos);
  CHECK(texts[15].find(R"("inputs":{"grad_accum":4,"micro_batch":1})") != std::string::npos);
}

TEST_CASE("parse_dom takes exactly one JSON text and reports anything else as discarded") {
  using vramfit::detail::parse_dom;
  CHECK(parse_dom(R"({"a":[1,2.5,"x",null,true]})").dump() == R"({"a":[1,2.5,"x",null,true]})");
  CHECK(parse_dom("  [1]\n").dump() == "[1]");
  CHECK(parse_dom("").is_discarded());
  CHECK(parse_dom("{} x").is_discarded());      // trailing text after the value
  CHECK(parse_dom("{\"a\":").is_discarded());    // truncated
  CHECK(parse_dom("{\"a\":1,}").is_discarded()); // trailing comma
  CHECK(parse_dom("\"\x01\"").is_discarded());   // a raw control character inside a string
  CHECK(parse_dom("[1e400]").is_discarded());    // out of range for a double: nlohmann refuses it
}

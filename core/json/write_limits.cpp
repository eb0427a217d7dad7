#include "json/report_writer.hpp"

#include <string>   // std::string

#include "util/json_writer.hpp"

namespace vramfit {

using detail::JsonWriter;

std::string limits_to_json(const Limits& l) {
  JsonWriter w;
  w.begin_object();
  w.field("budget_bytes", l.budget_bytes);
  w.field("gpu", l.gpu);
  w.field("batch_limit", batch_limit_name(l.batch_limit));
  w.field("max_batch", l.max_batch);
  w.field("max_context", l.max_context);
  w.message_ids("notes", l.notes);
  w.field("ok", true);
  w.end_object();
  return w.take();
}

std::string curve_to_json(const Curve& c) {
  // Columnar, as the page's chart takes it: xs, one column per breakdown line, the totals and their range.
  JsonWriter w;
  w.begin_object();
  w.field("axis", c.axis == CurveAxis::batch ? "batch" : "context");
  if (!c.high.empty()) w.field("high", c.high);
  w.begin_array("lines");
  for (const CurveLine& line : c.lines) {
    w.begin_object();
    w.field("key", line.key);
    w.field("values", line.values);
    w.end_object();
  }
  w.end_array();
  if (!c.low.empty()) w.field("low", c.low);
  w.field("ok", true);
  w.field("totals", c.total);
  w.field("xs", c.x);
  w.end_object();
  return w.take();
}

}  // namespace vramfit

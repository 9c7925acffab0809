// The draws that the backend tests run, derived from the registry: every row
// of XRNG_ROWS (rng/registry.h) with each sample parameter set of its
// distribution (golden/sample_params.h), so that a row added to the registry
// is tested on every host backend without a list to edit here, and, where
// asked, the edge parameters of each distribution (edge_params below).
#pragma once

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "golden/cases.h"
#include "rng/plan.h"

namespace xrng_test {

// Parameters that reach the edges of a distribution's arithmetic (rounding to
// `high`, overflow of the narrow types, degenerate scales, full integer
// ranges, ...): golden::edge_params (golden/cases.h), the registry's table of
// them, which states them for every distribution after the frozen section of
// the golden file; for the distributions of that frozen section, whose edge
// cases golden/cases.h writes inside frozen_requests() instead, the sets the
// SIMD tests have always run, below. That set of distributions is closed, so
// every later one falls to the default (and golden::edge_params, which has no
// default, asks for its edge cases).
inline std::vector<xrng::DrawParams> frozen_edge_params(xrng::Dist d) {
  using xrng::DrawParams;
  switch (d) {
    case xrng::Dist::uniform:
      return {DrawParams::range(-0.0, 1.0),          // the exact unit path with a negative zero
              DrawParams::range(-3.0, 7.5),          //
              DrawParams::range(1.0, 1.0078125),     // values that round to high (every float type)
              DrawParams::range(-60000.0, 60000.0),  // near the f16 range
              DrawParams::range(-1e300, 1e300),      // f64 only
              DrawParams::range(0.0, 3e38)};         // f32, bf16 and f64
    case xrng::Dist::normal:
      return {DrawParams::moments(3.5, 0.25), DrawParams::moments(-1.0, 0.0),  // std 0: the mean exactly
              DrawParams::moments(0.0, 3e4)};                                 // f16 overflow
    case xrng::Dist::bernoulli:
    case xrng::Dist::dropout:
      return {DrawParams::probability(0.0), DrawParams::probability(1.0), DrawParams::probability(1e-10),
              DrawParams::probability(1.0 - 1e-12)};
    case xrng::Dist::randint:
      return {DrawParams::int_range(-5, 7),
              DrawParams::int_range(INT32_MIN, int64_t{INT32_MAX} + 1),  // the full i32 range
              DrawParams::int_range(-1, 0),
              DrawParams::int_range(-1000, 1000000007),
              DrawParams::int_range(INT64_MIN, INT64_MAX),  // i64 only
              DrawParams::int_range(0, (int64_t{1} << 62) + 3),
              DrawParams::int_range(INT64_MIN, INT64_MIN + 3)};
    case xrng::Dist::perm: return {DrawParams::perm_size(1), DrawParams::perm_size(100000)};
    default: return {};  // bits, and every distribution after the frozen section
  }
}
inline std::vector<xrng::DrawParams> edge_params(xrng::Dist d) {
  std::vector<xrng::DrawParams> v = frozen_edge_params(d);
  for (const xrng::DrawParams& q : xrng::golden::edge_params(d)) v.push_back(q);
  return v;
}

// "name=value" of each parameter the distribution reads.
inline std::string params_text(xrng::Dist d, const xrng::DrawParams& q) {
  std::string s;
  for (const xrng::ParamInfo& p : xrng::kParams) {
    if (!xrng::dist_has_param(d, p.id)) continue;
    // snprintf all the way: GCC 12 warns falsely (-Wrestrict) on "..." + std::string here
    char b[96];
    switch (p.kind) {
      case xrng::ParamKind::real: std::snprintf(b, sizeof b, " %s=%.9g", p.name, q.real(p.id)); break;
      case xrng::ParamKind::integer: std::snprintf(b, sizeof b, " %s=%" PRId64, p.name, q.integer(p.id)); break;
      case xrng::ParamKind::count: std::snprintf(b, sizeof b, " %s=%" PRIu64, p.name, q.count(p.id)); break;
    }
    s += b;
  }
  return s;
}

struct RowCase {
  std::string name;  // "dist/dtype name=value ..."
  const xrng::RowInfo* row;
  xrng::DrawParams params;
  xrng::Plan plan;
};

// Every row (of any kind) with each sample parameter set; with `edges`, also
// with each edge parameter set the row's dtype can take (make_plan accepts it:
// a range beyond f16, say, is left out for f16 only).
inline std::vector<RowCase> row_cases(bool edges) {
  std::vector<RowCase> v;
  for (const xrng::RowInfo& r : xrng::kRows) {
    auto add = [&](const xrng::DrawParams& q, bool may_reject) {
      try {
        // rows of a later stream version are named with it: "normal/f32 v2 mean=..."
        const std::string ver = r.version == 1 ? "" : " v" + std::to_string(r.version);
        v.push_back({std::string(xrng::dist_name(r.dist)) + "/" + xrng::dtype_name(r.dtype) + ver +
                         params_text(r.dist, q),
                     &r, q, xrng::make_plan(r.dist, r.dtype, q, r.version)});
      } catch (const xrng::Error&) {
        if (!may_reject) throw;  // a sample parameter set must suit every dtype of its distribution
      }
    };
    for (const xrng::DrawParams& q : xrng::golden::sample_params(r.dist)) add(q, false);
    if (edges)
      for (const xrng::DrawParams& q : edge_params(r.dist)) add(q, true);
  }
  return v;
}

// The cases of one kind of draw.
inline std::vector<RowCase> row_cases(bool edges, xrng::Kind kind) {
  std::vector<RowCase> v;
  for (RowCase& c : row_cases(edges))
    if (c.plan.kind == kind) v.push_back(std::move(c));
  return v;
}

}  // namespace xrng_test

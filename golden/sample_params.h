// Representative parameters of every distribution of the registry, and one
// plan per registry row: the lists that the golden cases, `xrng verify` and
// every backend's tests iterate, so that a row added to the registry is
// tested everywhere without a hand-written list. The switch has no default:
// a distribution without samples is a compile error (-Werror=switch).
#pragma once

#include <vector>

#include "rng/plan.h"

namespace xrng::golden {

// Parameter sets of distribution d, the first being its typical use.
inline std::vector<DrawParams> sample_params(Dist d) {
  switch (d) {
    case Dist::bits: return {DrawParams{}};
    case Dist::uniform: return {DrawParams::range(0.0, 1.0), DrawParams::range(-3.0, 5.0)};
    case Dist::normal: return {DrawParams::moments(0.0, 1.0), DrawParams::moments(-3.5, 0.25)};
    case Dist::bernoulli: return {DrawParams::probability(0.3), DrawParams::probability(0.5)};
    case Dist::randint: return {DrawParams::int_range(-5, 1000), DrawParams::int_range(0, 10)};
    case Dist::perm: return {DrawParams::perm_size(1000), DrawParams::perm_size(10)};
    case Dist::dropout: return {DrawParams::probability(0.25), DrawParams::probability(0.5)};
    case Dist::exponential: return {DrawParams::with_rate(1.0), DrawParams::with_rate(2.5)};
    case Dist::geometric: return {DrawParams::probability(0.3), DrawParams::probability(1e-4)};
    case Dist::log_normal: return {DrawParams::moments(0.0, 1.0), DrawParams::moments(1.0, 2.0)};
    case Dist::cauchy: return {DrawParams::location_scale(0.0, 1.0), DrawParams::location_scale(-2.0, 0.5)};
  }
  return {};
}

struct RowPlan {
  const RowInfo* row;
  DrawParams params;
  Plan plan;
};

// One plan per registry row, with the distribution's first sample parameters,
// in the row's own stream version (make_plan(..., r.version) resolves to r
// itself): the rows of every stream version, v1's and v2's, so that every
// backend test that iterates these plans covers both.
inline std::vector<RowPlan> row_plans() {
  std::vector<RowPlan> v;
  for (const RowInfo& r : kRows) {
    const DrawParams q = sample_params(r.dist).front();
    v.push_back({&r, q, make_plan(r.dist, r.dtype, q, r.version)});
  }
  return v;
}

}  // namespace xrng::golden

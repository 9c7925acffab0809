// Eigen adapters: fill any Eigen Matrix / Array / Map / Block with an xrng draw.
//
// Element (r, c) of an R x C object receives element r * C + c of the draw,
// i.e. the row-major (torch / NumPy) order, whatever Eigen's storage order, so
// an Eigen matrix and a torch tensor of the same shape and key hold the same
// values. Scalar types: float, double, Eigen::half, Eigen::bfloat16 (uniform,
// normal), int32_t, int64_t (randint, perm), uint8_t (bernoulli), uint32_t,
// uint64_t (bits).
#pragma once

#include <Eigen/Core>
#include <cstring>
#include <type_traits>
#include <vector>

#include "xrng.h"

namespace xrng {

template <class T>
constexpr DType eigen_dtype() {
  if constexpr (std::is_same_v<T, float>) return DType::f32;
  else if constexpr (std::is_same_v<T, double>) return DType::f64;
  else if constexpr (std::is_same_v<T, Eigen::half>) return DType::f16;
  else if constexpr (std::is_same_v<T, Eigen::bfloat16>) return DType::bf16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::i32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::i64;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::u8;
  else if constexpr (std::is_same_v<T, uint32_t>) return DType::u32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DType::u64;
  else static_assert(sizeof(T) == 0, "xrng: no dtype for this Eigen scalar type");
}

// Fills `m` with elements [start, start + m.size()) of the draw `d` (params q)
// at word `offset` of `key`. perm requires q.n >= start + m.size().
// Returns the number of words the draw consumes (for a caller keeping an offset).
// `stream`: the stream version (SPEC.md section 7), the newest by default.
template <class Derived>
uint64_t eigen_fill(Eigen::DenseBase<Derived>& m, Dist d, const DrawParams& q, const Key& key, uint64_t offset,
                    uint64_t start = 0, const FillOptions& opt = {}, int stream = kStreamVersion) {
  using T = typename Derived::Scalar;
  static_assert(sizeof(T) == static_cast<size_t>(dtype_size(eigen_dtype<T>())), "scalar size");
  const Plan plan = make_plan(d, eigen_dtype<T>(), q, stream);
  const Eigen::Index rows = m.rows(), cols = m.cols();
  const uint64_t count = static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols);
  const uint64_t used = check_counters(plan, offset, start, count);
  std::vector<T> tmp(count);
  fill(plan, key, offset, start, count, tmp.data(), opt);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c) m.derived().coeffRef(r, c) = tmp[static_cast<size_t>(r * cols + c)];
  return used;
}

// Conveniences with torch's names.
template <class Derived>
uint64_t eigen_randn(Eigen::DenseBase<Derived>& m, const Key& key, uint64_t offset = 0, double mean = 0.0,
                     double std = 1.0, int stream = kStreamVersion) {
  DrawParams q;
  q.mean = mean;
  q.std = std;
  return eigen_fill(m, Dist::normal, q, key, offset, 0, {}, stream);
}
template <class Derived>
uint64_t eigen_rand(Eigen::DenseBase<Derived>& m, const Key& key, uint64_t offset = 0, double low = 0.0,
                    double high = 1.0) {
  DrawParams q;
  q.low = low;
  q.high = high;
  return eigen_fill(m, Dist::uniform, q, key, offset);
}

}  // namespace xrng

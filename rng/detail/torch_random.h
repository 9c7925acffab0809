// torch's Tensor.random_ arithmetic for the integer element types, shared by
// both torch streams' whole draws (host/torch_cpu.h, rng/torch_cuda.h): the
// bounds torch 2.15 checks and the range and base it hands its kernels
// (ATen/native/DistributionTemplates.h random_from_to_impl,
// check_from_to_in_range), the modulus of random_() without a range and
// the value of the full 64-bit range (ATen/core/TransformationHelper.h
// uniform_int, uniform_int_full_range). T is the element's C++ type: int64_t,
// int32_t, int16_t, int8_t, uint8_t, bool, uint16_t, uint32_t or uint64_t
// (torch's int64 ... uint64). The floating dtypes (update_from / update_to,
// 2^digits) are the Python API's (bindings/torch_cpu_ops.cpp).
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace xrng::torch_random {

template <class T>
inline constexpr bool is_int = std::is_integral_v<T> && sizeof(T) <= 8 && !std::is_same_v<T, char>;

// check_from_to_in_range for an integer T: the smallest and largest value
// `from` and `to - 1` (or the inclusive `to_inc`) may take. uint64's upper
// bound is INT64_MAX (torch compares as int64); bool's are 0 and 1.
template <class T>
constexpr int64_t lowest() {
  return static_cast<int64_t>(std::numeric_limits<T>::lowest());
}
template <class T>
constexpr int64_t highest() {
  if constexpr (std::is_same_v<T, uint64_t>)
    return std::numeric_limits<int64_t>::max();
  else
    return static_cast<int64_t>(std::numeric_limits<T>::max());
}

// random_(from, to) / randint(from, to) into T: the range to - from (the
// base is `from`). Throws std::invalid_argument (`who` names the call) for
// from >= to or bounds outside T's, before anything is drawn.
template <class T>
uint64_t from_to_range(int64_t from, int64_t to, const char* who) {
  static_assert(is_int<T>, "an integer element type");
  if (!(from < to)) throw std::invalid_argument(std::string(who) + ": from must be less than to");
  if (from < lowest<T>() || to - 1 > highest<T>())
    throw std::invalid_argument(std::string(who) + ": [from, to) does not fit the dtype");
  return static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
}

// random_(from, None) into T, from > INT64_MIN: [from, max(T)] (bool: [from,
// 1]), the range max - from + 1. uint64 has none in torch (its max read as
// int64 is -1, out of its bounds): throws, as for a `from` outside T.
template <class T>
uint64_t from_range(int64_t from, const char* who) {
  static_assert(is_int<T>, "an integer element type");
  if (std::is_same_v<T, uint64_t>)
    throw std::invalid_argument(std::string(who) + ": random_(from, None) into uint64: to - 1 is out of bounds");
  if (from == std::numeric_limits<int64_t>::min())
    throw std::invalid_argument(std::string(who) + ": from = INT64_MIN is the full 64-bit range");
  if (from < lowest<T>() || from > highest<T>())
    throw std::invalid_argument(std::string(who) + ": from does not fit the dtype");
  return static_cast<uint64_t>(highest<T>()) - static_cast<uint64_t>(from) + 1;
}

// random_(INT64_MIN, None): torch's random_full_64_bits_range kernels take
// int64, float64, float32 and bfloat16 only; of the integer types, int64.
template <class T>
void check_full_range(const char* who) {
  if (!std::is_same_v<T, int64_t>)
    throw std::invalid_argument(std::string(who) +
                                ": random_ over the full 64-bit range takes int64 (float64, float32, bfloat16 in torch)");
}

// random_() without a range into T: w mod (max + 1) (bool: w & 1, which is
// w mod 2); torch has no such draw for uint16, uint32, uint64 (throws).
template <class T>
uint64_t modulus(const char* who) {
  static_assert(is_int<T>, "an integer element type");
  if (std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>)
    throw std::invalid_argument(std::string(who) + ": torch has no random_() without a range for uint16/32/64");
  if (std::is_same_v<T, bool>) return 2;
  return static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1;
}
// Whether random_() without a range takes a 64-bit word (int64; float64 too).
template <class T>
inline constexpr bool random_wide = std::is_same_v<T, int64_t>;

// uniform_int_from_to's value (w mod range) + base, as int64, stored as T
// (static_cast: bool is value != 0, as torch's).
template <class T>
constexpr T from_to_value(uint64_t w, uint64_t range, int64_t base) {
  return static_cast<T>(static_cast<int64_t>(w % range + static_cast<uint64_t>(base)));
}

}  // namespace xrng::torch_random

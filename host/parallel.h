// Internal to the host backend (fill.cpp, block.cpp): how a draw's elements
// are split across threads. Values never depend on the split (every element
// is a pure function of its index); this only decides who computes what.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace xrng::detail {

// Below this many elements per thread, fewer threads (one for small draws).
constexpr uint64_t kMinPerThread = 1u << 15;

// Runs body(b, e) over a split of [0, count) into equal parts, each a
// multiple of `align` elements but the last, on up to `threads` threads (0:
// all cores), the calling thread taking the first part. The first exception
// thrown by any part is rethrown after every thread has joined.
template <class Body>
void parallel_ranges(uint64_t count, int threads, uint64_t align, Body body) {
  unsigned t = threads <= 0 ? std::max(1u, std::thread::hardware_concurrency()) : static_cast<unsigned>(threads);
  const uint64_t max_t = std::max<uint64_t>(1, count / kMinPerThread);
  if (t > max_t) t = static_cast<unsigned>(max_t);
  if (t <= 1) {
    body(uint64_t{0}, count);
    return;
  }
  uint64_t per = (count + t - 1) / t;
  per = (per + align - 1) / align * align;
  std::vector<std::thread> pool;
  std::exception_ptr err;
  std::atomic<bool> failed{false};
  auto guarded = [&](uint64_t b, uint64_t e) {
    try {
      body(b, e);
    } catch (...) {
      if (!failed.exchange(true)) err = std::current_exception();
    }
  };
  for (unsigned i = 1; i < t; ++i) {
    const uint64_t b = per * i;
    if (b >= count) break;
    pool.emplace_back(guarded, b, std::min(count, b + per));
  }
  guarded(0, std::min(count, per));
  for (auto& th : pool) th.join();
  if (err) std::rethrow_exception(err);
}

}  // namespace xrng::detail

// The fill driver of the vector backend: elements [start, start + count) of
// an element draw, from the word window of philox.h through the row's kernel
// (kernels.h) into the caller's buffer, with non-temporal stores for large
// outputs. Groups cut by start or end are evaluated whole on a copy, so every
// start phase, offset and count runs the same kernels.
#pragma once

#include "../../rng/detail/rows.h"
#include "fused.h"
#include "kernels.h"
#include "philox.h"

namespace xrng::detail {
namespace {

// Copies with non-temporal stores (the destination is not read back soon and
// does not fit in cache); unaligned edges with ordinary stores.
void stream_copy(void* dst, const void* src, size_t bytes) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  size_t head = (kBytes - reinterpret_cast<uintptr_t>(d) % kBytes) % kBytes;
  head = lmin(head, bytes);
  std::memcpy(d, s, head);
  size_t i = head;
  for (; i + kBytes <= bytes; i += kBytes) stream_store(d + i, loadu<vu32>(s + i));
  std::memcpy(d + i, s + i, bytes - i);
}

// Calls larger than this (per thread) bypass the caches on the way out.
// XRNG_STREAM_BYTES sets it at build time: the sanitizer build (CMake's
// XRNG_SANITIZE) lowers it to 64 KiB, so that its tests reach the streaming
// path with small calls (tests/simd/test_simd_fill.cpp sizes them by the same
// macro). The kind of store never changes a value.
#ifndef XRNG_STREAM_BYTES
#define XRNG_STREAM_BYTES (uint64_t{4} << 20)
#endif
constexpr uint64_t kStreamBytes = XRNG_STREAM_BYTES;

// Elements [start, start + count) of the element row (DI, T) at word `off`
// into outv, by the row's vector kernel. The caller has checked the counters
// (every word below 2^64); the group arithmetic is in 128 bits because
// start + count may be 2^64.
template <Dist DI, DType T, int V>
void fill_kernel(const Plan& p, const Stream& s, uint64_t off, uint64_t start, uint64_t count, void* outv) {
  using out_t = out_of<DI, T>;
  constexpr uint64_t K = RowShape<DI, T, V>::kWords, G = RowShape<DI, T, V>::kGroup;
  constexpr uint64_t kTileGroups = kTileWords / K;
  out_t* o = static_cast<out_t*>(outv);
  const u128 end = static_cast<u128>(start) + count;
  const u128 g_end = (end + G - 1) / G;
  WordSource src(s, static_cast<u128>(off) + g_end * K);
  auto words = [&](u128 g, uint64_t n) { return src.get(static_cast<uint64_t>(off + g * K), n * K); };

  // A group cut by start or end: evaluated whole, the wanted elements copied.
  auto partial = [&](u128 g, uint64_t from, uint64_t to) {
    out_t tmp[G];
    run_groups<DI, T, V>(words(g, 1), 1, p, tmp);
    std::memcpy(o, tmp + from, (to - from) * sizeof(out_t));
    o += to - from;
  };
  u128 g = start / G;
  if (start % G != 0) {
    const uint64_t from = start % G;
    partial(g, from, static_cast<uint64_t>(lmin<u128>(G, from + static_cast<u128>(count))));
    ++g;
  }
  const u128 g_full = end / G;
  const bool nt = kNonTemporal && count * sizeof(out_t) >= kStreamBytes;
  alignas(64) out_t stage[kTileGroups * G];
  // Whole groups [g, to) through the word window.
  auto window = [&](u128 to) {
    while (g < to) {
      const uint64_t n = static_cast<uint64_t>(lmin<u128>(kTileGroups, to - g));
      if (nt) {
        run_groups<DI, T, V>(words(g, n), n, p, stage);
        stream_copy(o, stage, n * G * sizeof(out_t));
      } else {
        run_groups<DI, T, V>(words(g, n), n, p, o);
      }
      o += n * G;
      g += n;
    }
  };
  if constexpr (Fused<DI, T, V>::kFused) {
    // A row with a fused kernel (fused.h): the window up to the first group
    // that starts a block, then whole fused steps straight from Philox, then
    // the window again for the rest.
    using Fz = Fused<DI, T, V>;
    static_assert(4 % K == 0 && kTileGroups % Fz::kGroups == 0);
    const uint64_t to_block = static_cast<uint64_t>((4 - (off + g * K) % 4) % 4);  // words to the next block
    if (to_block % K == 0 && g + to_block / K + Fz::kGroups <= g_full) {  // (at least one whole step)
      window(g + to_block / K);
      // Ordinary stores straight to the output, whatever its size: this
      // kernel produces about 4 GB/s, where the streaming stores of the
      // window path (staged or straight from the registers) cost more than
      // they save (16 MiB of f32, Zen 4: 0.95 against 1.00-1.05 ns per value
      // with AVX-512, 1.33 against 1.40-1.44 with AVX2).
      const uint64_t steps = static_cast<uint64_t>((g_full - g) / Fz::kGroups);
      Fz::steps(src.keys, static_cast<uint64_t>((off + g * K) / 4), steps, p, o);
      o += steps * Fz::kGroups * G;
      g += steps * Fz::kGroups;
    }
  }
  window(g_full);
  if (end % G != 0 && g_full * G >= start) partial(g_full, 0, static_cast<uint64_t>(end % G));
  if (nt) stream_fence();
}

// ---- the entry point -----------------------------------------------------------------------------
// Rows with a vector kernel (Kernel<...>::kVector) run it and return true;
// any other row (a permutation, a transform, or an element row on the scalar
// fallback of Kernel's primary template) returns false, and the dispatcher
// runs the scalar element function on vector Philox words instead.
template <class R>
concept HasKernel = R::kind == Kind::element && Kernel<R::dist, R::dtype, R::version>::kVector;

bool fill_impl(const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out) {
  bool done = false;
  visit_row(plan, [&]<class R>() {
    if constexpr (HasKernel<R>) {
      if (count != 0) fill_kernel<R::dist, R::dtype, R::version>(plan, s, offset, start, count, out);
      done = true;
    }
  });
  return done;
}

}  // namespace
}  // namespace xrng::detail

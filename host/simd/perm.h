// The permutation walk of the vector backend: perm_at of rng/permutation.h
// (the Feistel network, repeated while the value is >= n) for N32 indices per
// register. The network itself is not restated here: detail::feistel_rounds,
// the template that defines it, is instantiated with the 32-bit lane type
// W32<R> (isa.h), each lane holding the halves (l, r) of one element's walk.
#pragma once

#include "../../rng/detail/rows.h"
#include "isa.h"

namespace xrng::detail {
namespace {

// Vectors per pass of the network: a round is a chain of two multiplies and
// eight dependent bit operations, so one vector alone is latency bound; R
// independent ones, interleaved round by round by W32<R>, fill the pipeline.
constexpr int kPermRegs = 4;

struct PermLanes {
  using X = W32<kPermRegs>;
  X key[kPermRounds];
  X mask;
  vu32 nl, nr;  // n = nl * 2^h + nr
  int h;

  explicit PermLanes(const PermKey& k) : mask(k.half_mask), h(static_cast<int>(k.half_bits)) {
    for (int i = 0; i < kPermRounds; ++i) key[i] = X(k.round_key[i]);
    // n <= 2^(2h), so n >> h <= 2^h fits 32 bits (2^32 would need n = 2^64).
    nl = bcast<vu32>(static_cast<uint32_t>(k.n >> k.half_bits));
    nr = bcast<vu32>(static_cast<uint32_t>(k.n & k.half_mask));
  }
  // One pass of the network (feistel_forward of rng/permutation.h) on every lane.
  XRNG_INLINE void forward(X& l, X& r) const { feistel_rounds<X>(l, r, key, mask); }
  // (l << h | r) < n
  XRNG_INLINE vi32 inside(vu32 l, vu32 r) const { return (l < nl) | ((l == nl) & (r < nr)); }
  // Halves of the N32 indices base, base + 1, ...
  XRNG_INLINE void split(uint64_t base, vu32& l, vu32& r) const {
    vu32h lh[2], rh[2];
    const uint64_t m = mask.v[0][0];
    for (int j = 0; j < 2; ++j) {
      const vu64 idx = iota<vu64>() + (base + static_cast<uint64_t>(j * N64));
      lh[j] = trunc32(idx >> h);
      rh[j] = trunc32(idx & m);
    }
    l = concat<vu32>(lh[0], lh[1]);
    r = concat<vu32>(rh[0], rh[1]);
  }
};

// Writes the N32 values (l << h | r) to o as OutT.
template <class OutT>
XRNG_INLINE void perm_store(OutT* o, vu32 l, vu32 r, int h) {
  if constexpr (sizeof(OutT) == 8) {
    for (int j = 0; j < 2; ++j) {
      const vu64 v = (__builtin_convertvector(half<vu32h>(l, j), vu64) << h) |
                     __builtin_convertvector(half<vu32h>(r, j), vu64);
      storeu(o + j * N64, v);
    }
  } else {
    storeu(o, (l << h) | r);  // 32-bit outputs: n <= 2^32, so h <= 16
  }
}

// Elements [start, start + count) of the permutation. The first pass runs on
// consecutive indices and stores whole vectors; the lanes that left [0, n)
// are left-packed into a pending list that further passes walk on, full
// vectors at a time, scattering each element when its walk ends.
template <class OutT>
void perm_kernel(const PermKey& k, uint64_t start, uint64_t count, OutT* out) {
  constexpr int R = kPermRegs;
  constexpr uint64_t V = R * N32;
  const PermLanes pl(k);
  constexpr uint64_t kT = 1024;
  alignas(64) uint32_t pi[kT + V], pli[kT + V], pri[kT + V];
  const vu32 lane = iota<vu32>();
  for (uint64_t t0 = 0; t0 < count; t0 += kT) {
    const uint64_t tn = lmin<uint64_t>(kT, count - t0);
    uint64_t np = 0;
    for (uint64_t j = 0; j < tn; j += V) {
      PermLanes::X l, r;
      for (int v = 0; v < R; ++v) pl.split(start + t0 + j + v * N32, l.v[v], r.v[v]);
      pl.forward(l, r);
      for (int v = 0; v < R; ++v) {
        const uint64_t jv = j + v * N32;
        if (jv >= tn) break;
        if (jv + N32 <= tn) {
          perm_store(out + t0 + jv, l.v[v], r.v[v], pl.h);
        } else {
          OutT tmp[N32];
          perm_store(tmp, l.v[v], r.v[v], pl.h);
          std::memcpy(out + t0 + jv, tmp, (tn - jv) * sizeof(OutT));
        }
        const vi32 valid = lane < static_cast<uint32_t>(tn - jv);
        const unsigned rej = mask_bits(~pl.inside(l.v[v], r.v[v]) & valid);
        if (rej) {
          compress_store(pi + np, lane + static_cast<uint32_t>(jv), rej);
          compress_store(pli + np, l.v[v], rej);
          compress_store(pri + np, r.v[v], rej);
          np += static_cast<uint64_t>(__builtin_popcount(rej));
        }
      }
    }
    while (np != 0) {
      uint64_t wp = 0;  // in place: wp <= q, and a step reads its lanes before it writes
      for (uint64_t q = 0; q < np; q += V) {
        vu32 idx[R];
        PermLanes::X l, r;
        for (int v = 0; v < R; ++v) {
          idx[v] = loadu<vu32>(pi + q + v * N32);
          l.v[v] = loadu<vu32>(pli + q + v * N32);
          r.v[v] = loadu<vu32>(pri + q + v * N32);
        }
        pl.forward(l, r);
        for (int v = 0; v < R; ++v) {
          const uint64_t qv = q + v * N32;
          if (qv >= np) break;
          const vi32 valid = lane < static_cast<uint32_t>(lmin<uint64_t>(N32, np - qv));
          const vi32 in = pl.inside(l.v[v], r.v[v]);
          unsigned acc = mask_bits(in & valid);
          const unsigned rej = mask_bits(~in & valid);
          if (acc) {
            alignas(64) uint32_t li[N32], ri[N32], ii[N32];
            storeu(li, l.v[v]);
            storeu(ri, r.v[v]);
            storeu(ii, idx[v]);
            while (acc) {
              const int i = __builtin_ctz(acc);
              acc &= acc - 1;
              out[t0 + ii[i]] = static_cast<OutT>((static_cast<uint64_t>(li[i]) << pl.h) | ri[i]);
            }
          }
          if (rej) {
            compress_store(pi + wp, idx[v], rej);
            compress_store(pli + wp, l.v[v], rej);
            compress_store(pri + wp, r.v[v], rej);
            wp += static_cast<uint64_t>(__builtin_popcount(rej));
          }
        }
      }
      np = wp;
    }
  }
}

// Elements [start, start + count) of the permutation with key k into out,
// stored as dtype t: every permutation row of the registry; false for a dtype
// that has none.
bool perm_impl(const PermKey& k, uint64_t start, uint64_t count, DType t, void* out) {
  Plan row;
  row.dist = Dist::perm;
  row.dtype = t;
  bool done = false;
  visit_row(row, [&]<class R>() {
    if constexpr (R::kind == Kind::permutation) {
      using OutT = typename R::out_t;
      static_assert(sizeof(OutT) == 8 || sizeof(OutT) == 4, "perm_store writes 64- or 32-bit indices");
      perm_kernel(k, start, count, static_cast<OutT*>(out));
      done = true;
    }
  });
  return done;
}

}  // namespace
}  // namespace xrng::detail

// The tensor-parameter draws of rng/gamma.h, rng/poisson.h and rng/binomial.h
// on vectors. Poisson and binomial: lane l of a group computes element e0 + l,
// all lanes running the element function's rejection loop in lock step (a
// lane that has accepted keeps its value and ignores the later attempts,
// exactly as the scalar loop's break). Gamma: attempt 0 of every element of a
// chunk, then only the elements still open, packed into lanes (see
// gamma_chunk). The arithmetic is the scalar element functions',
// operation by operation and in the same order (each line below names the
// scalar expression it repeats), on the lane types of isa.h through the
// templates of rng/detail/math.h: the same IEEE operations, so the same bits.
// Element e reads its words at word0 + 64 e + i from a vector Philox whose
// lane l computes that element's block: the stream's words, whatever the
// width.
//
// A few rare cases have no lane form here (Poisson's log k! recurrence for
// 2 <= k <= 5, binomial's tabulated Stirling tail for arguments <= 9): those
// lanes are reported undone and the caller (host/gamma.cpp, baseline code)
// runs the scalar element function for them, which gives the same value
// (it is the reference). tests/test_params_simd.cpp compares every lane with
// the scalar function on millions of elements per parameter range.
#pragma once

#include "../../rng/binomial.h"
#include "../../rng/detail/math.h"
#include "../../rng/gamma.h"
#include "../../rng/poisson.h"
#include "params_api.h"
#include "philox.h"

namespace xrng::detail {
namespace {

constexpr int kParamRegs = 2;                    // registers per group (independent chains)
constexpr int kParamLanes = kParamRegs * N64;    // elements per group
constexpr uint64_t kParamWords = gammad::kWords;  // words per element (gamma, poisson, binomial: 64)
static_assert(poissond::kWords == kParamWords && binomiald::kWords == kParamWords, "one word layout");

using PD = DR<kParamRegs>;
using PU = UR<kParamRegs>;
typedef int64_t vm64 __attribute__((vector_size(kBytes)));  // comparison results: all ones or zero
struct PM {
  vm64 v[kParamRegs];
};

XRNG_INLINE PM operator&(const PM& a, const PM& b) {
  PM o;
  for (int r = 0; r < kParamRegs; ++r) o.v[r] = a.v[r] & b.v[r];
  return o;
}
XRNG_INLINE PM operator|(const PM& a, const PM& b) {
  PM o;
  for (int r = 0; r < kParamRegs; ++r) o.v[r] = a.v[r] | b.v[r];
  return o;
}
XRNG_INLINE PM operator~(const PM& a) {
  PM o;
  for (int r = 0; r < kParamRegs; ++r) o.v[r] = ~a.v[r];
  return o;
}
XRNG_INLINE bool any(const PM& a) {
  vm64 x = a.v[0];
  for (int r = 1; r < kParamRegs; ++r) x |= a.v[r];
  int64_t s = 0;
  for (int l = 0; l < N64; ++l) s |= x[l];
  return s != 0;
}
XRNG_INLINE PM none_mask() {
  PM o;
  for (int r = 0; r < kParamRegs; ++r) o.v[r] = vm64{} + 0;
  return o;
}
#define XRNG_PARAM_CMP(NAME, OP)                                                         \
  XRNG_INLINE PM NAME(const PD& a, const PD& b) {                                        \
    PM o;                                                                                \
    for (int r = 0; r < kParamRegs; ++r) o.v[r] = (vm64)(a.v[r] OP b.v[r]);             \
    return o;                                                                            \
  }
XRNG_PARAM_CMP(lt, <)
XRNG_PARAM_CMP(le, <=)
XRNG_PARAM_CMP(gt, >)
XRNG_PARAM_CMP(ge, >=)
XRNG_PARAM_CMP(eq, ==)
#undef XRNG_PARAM_CMP
// m ? a : b, lane by lane.
XRNG_INLINE PD sel(const PM& m, const PD& a, const PD& b) {
  PD o;
  for (int r = 0; r < kParamRegs; ++r) o.v[r] = m.v[r] ? a.v[r] : b.v[r];
  return o;
}
XRNG_INLINE PD load_pd(const double* p) {
  PD o;
  for (int r = 0; r < kParamRegs; ++r) o.v[r] = loadu<vf64>(p + r * N64);
  return o;
}
XRNG_INLINE void store_pd(double* p, const PD& x) {
  for (int r = 0; r < kParamRegs; ++r) storeu(p + r * N64, x.v[r]);
}

// poissond::floor_ (rng/poisson.h) lane by lane: s = x < 0 ? -2^52 : 2^52,
// t = (x + s) - s, one step back where t > x.
XRNG_INLINE PD floor_lanes(const PD& x) {
  const PD s = sel(lt(x, PD(0.0)), PD(-0x1p52), PD(0x1p52));
  const PD t = (x + s) - s;
  return sel(gt(t, x), t - PD(1.0), t);
}
XRNG_INLINE PD log_lanes(const PD& x) { return math::log_unit<PD, PU>(x); }

// ---- the words of a group's elements ---------------------------------------------------------
// Word i (0..63) of each lane's element, lane l being element e0 + l: the
// stream's word word0 + 64 (e0 + l) + i. All lanes read the same position of
// their element, so the block index differs from lane to lane by 16 l and the
// word's place in its block is the same: one vector Philox per block
// position, kept until the next block position is asked for.
struct GroupWords {
  const PhiloxKeys& keys;
  uint64_t w;             // word 0 of lane 0's element
  uint64_t have = ~uint64_t{0};  // the relative block of blk (of lane 0)
  vu64 lane16[kParamRegs];
  vu64 blk[kParamRegs][4];

  GroupWords(const PhiloxKeys& k, uint64_t word0) : keys(k), w(word0) {
    for (int r = 0; r < kParamRegs; ++r)
      lane16[r] = (iota<vu64>() + static_cast<uint64_t>(r * N64)) * kParamWords / 4;
  }

  void compute(uint64_t b0) {
    vu64 b[kParamRegs], c0[kParamRegs], c1[kParamRegs], c2[kParamRegs], c3[kParamRegs];
    for (int r = 0; r < kParamRegs; ++r) b[r] = lane16[r] + b0;
    philox_blocks<kParamRegs>(keys, b, c0, c1, c2, c3);
    for (int r = 0; r < kParamRegs; ++r) {  // the low halves are the words
      blk[r][0] = c0[r] & kLo32;
      blk[r][1] = c1[r] & kLo32;
      blk[r][2] = c2[r] & kLo32;
      blk[r][3] = c3[r] & kLo32;
    }
  }
  // Word i of every lane's element, in the low 32 bits of its 64-bit lane.
  PU operator()(int i) {
    const uint64_t wi = w + static_cast<uint64_t>(i);
    const uint64_t b = wi >> 2;
    if (b != have) {
      compute(b);
      have = b;
    }
    PU o;
    for (int r = 0; r < kParamRegs; ++r) o.v[r] = blk[r][wi & 3];
    return o;
  }
};

// dist::bits_u64(w0, w1) >> 12: the top 52 bits of the pair.
XRNG_INLINE PU top52(const PU& w0, const PU& w1) { return (w0 | (w1 << 32)) >> 12; }

// ---- gamma (rng/gamma.h, gammad::variate) ---------------------------------------------------------
// The rejection loop is not run in lock step here: a lane whose neighbour
// needs a second attempt (or the log test) would wait for it, and with 16
// lanes (AVX-512) at alpha ~ 1 (4.8 % of attempts rejected, ~10 % needing the
// log test) most groups would. Instead a chunk of elements goes through
//   A. attempt 0 of every element (and the boost factor of alpha < 1), lanes
//      of consecutive elements; the squeeze decides most of them;
//   B. the log test, for the elements the squeeze left open (packed);
//   C. attempts 1, 2, ... for the rejected elements only (packed, each lane
//      reading its own element's words at 4j .. 4j + 3);
//   D. y = max(y f, 2^-1022), f the boost factor (1 where alpha >= 1).
// Each element still takes the value of its first accepted attempt (or d),
// each attempt's arithmetic is gammad::attempt's (gamma_try and
// gamma_log_test below repeat it operation by operation), and the boost is
// gammad::boost's, so the values are the scalar function's; only the order
// in which elements are computed changed. y * 1 == y exactly, so multiplying
// the lanes of alpha >= 1 by 1 is the scalar's "no boost".

// gammad::attempt up to its log test: pos = (t > 0), sq = accepted by the
// squeeze, and u, xx, v for the log test.
struct GammaTry {
  PM pos, sq;
  PD u, xx, v;
};
XRNG_INLINE GammaTry gamma_try(const PD& c, const PU& w0, const PU& w1, const PU& w2, const PU& w3) {
  GammaTry g;
  const PD r = math::box_muller_radius<52, PD, PU>(top52(w0, w1));
  PD cs, sn;
  math::sincos_turns<32, PD, PU>(w2, &cs, &sn);
  const PD x = r * cs;
  const PD t = PD(1.0) + c * x;
  g.pos = gt(t, PD(0.0));
  g.v = t * t * t;
  g.u = math::unit_open<32, PD, PU>(w3);
  g.xx = x * x;
  g.sq = g.pos & lt(g.u, PD(1.0) - PD(0.0331) * (g.xx * g.xx));  // the squeeze (no log)
  return g;
}
// The log test of gammad::attempt (for lanes with t > 0).
XRNG_INLINE PM gamma_log_test(const PD& d, const PD& u, const PD& xx, const PD& v) {
  return lt(log_lanes(u), PD(0.5) * xx + d * ((PD(1.0) - v) + log_lanes(v)));
}

// One bit per lane of a comparison result (lanes all ones or zero).
XRNG_INLINE unsigned lane_mask(vm64 m) {
#if XRNG_SIMD_BYTES == 64
  return static_cast<unsigned>(_mm512_movepi64_mask((__m512i)m));
#elif XRNG_SIMD_BYTES == 32
  return static_cast<unsigned>(_mm256_movemask_pd((__m256d)m));
#else
  return (m[0] != 0 ? 1u : 0u) | (m[1] != 0 ? 2u : 0u);
#endif
}
// The lanes of v selected by m packed to the front of p, in lane order (a
// whole vector is written: p has room for N64 lanes).
#if XRNG_SIMD_BYTES == 32
struct Compress64Table {  // vpermd indices: lane i is the 32-bit halves 2i, 2i + 1
  int32_t idx[16][8];
  constexpr Compress64Table() : idx() {
    for (unsigned m = 0; m < 16; ++m) {
      int k = 0;
      for (int i = 0; i < 4; ++i)
        if (m & (1u << i)) {
          idx[m][2 * k] = 2 * i;
          idx[m][2 * k + 1] = 2 * i + 1;
          ++k;
        }
    }
  }
};
constexpr Compress64Table kCompress64;
#endif
XRNG_INLINE void compress_store64(void* p, vu64 v, unsigned m) {
#if XRNG_SIMD_BYTES == 64
  storeu(p, (vu64)_mm512_maskz_compress_epi64(static_cast<__mmask8>(m), (__m512i)v));  // the register form: fast
#elif XRNG_SIMD_BYTES == 32
  const __m256i sel = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kCompress64.idx[m]));
  storeu(p, (vu64)_mm256_permutevar8x32_epi32((__m256i)v, sel));
#else
  const vu64 lane1 = {v[1], v[1]};
  storeu(p, m == 2u ? lane1 : v);
#endif
}

// Words i .. i + nw - 1 (nw <= 4) of each lane's element, in the low halves
// of wd[0 .. nw): lane l's word i + k is the stream's word p_l + k, where
// blk[r][l] = p_l >> 2 and sh = p_l & 3 is the same in every lane (the
// element's words start at word0 + 64 e). One Philox block per lane, or two
// where the words cross into the next block.
XRNG_INLINE void lane_words(const PhiloxKeys& keys, vu64 (&blk)[kParamRegs], uint64_t sh, int nw, PU* wd) {
  vu64 a[4][kParamRegs], b[4][kParamRegs] = {};
  philox_blocks<kParamRegs>(keys, blk, a[0], a[1], a[2], a[3]);
  if (sh + static_cast<uint64_t>(nw) > 4) {
    for (int r = 0; r < kParamRegs; ++r) blk[r] = blk[r] + 1;
    philox_blocks<kParamRegs>(keys, blk, b[0], b[1], b[2], b[3]);
  }
  for (int k = 0; k < nw; ++k) {
    const uint64_t pos = sh + static_cast<uint64_t>(k);
    for (int r = 0; r < kParamRegs; ++r) wd[k].v[r] = (pos < 4 ? a[pos][r] : b[pos - 4][r]) & kLo32;
  }
}

constexpr int kGammaChunk = 256;  // elements per chunk
static_assert(kGammaChunk % kParamLanes == 0, "a chunk of whole groups");
struct GammaScratch {
  alignas(64) double y[kGammaChunk], f[kGammaChunk];  // the variate before the boost, the boost factor
  // elements waiting for the log test of attempt 0: index, and d, u, xx, v
  alignas(64) uint64_t si[kGammaChunk + kParamLanes];
  alignas(64) double sd[kGammaChunk + kParamLanes], su[kGammaChunk + kParamLanes];
  alignas(64) double sxx[kGammaChunk + kParamLanes], sv[kGammaChunk + kParamLanes];
  alignas(64) uint64_t q[2][kGammaChunk + kParamLanes];  // rejected elements: this attempt's, the next one's
};

// gammad::shape: d and c of lanes of alpha; boost: alpha < 1.
XRNG_INLINE void gamma_shape(const PD& alpha, PM* boost, PD* d, PD* c) {
  *boost = lt(alpha, PD(1.0));
  const PD a1 = sel(*boost, alpha + PD(1.0), alpha);
  *d = a1 - PD(1.0 / 3.0);
  *c = PD(1.0) / sqrt_(PD(9.0) * *d);
}

// Elements [0, m) (m <= kGammaChunk) of a gamma draw, element e reading the
// words w + 64 e + i: y[e] = gammad::variate.
__attribute__((flatten)) void gamma_chunk(const double* alpha, uint64_t m, const PhiloxKeys& keys, uint64_t w,
                                          double* y, GammaScratch& S) {
  const uint64_t sh = w & 3;
  int ns = 0, nq = 0;
  alignas(64) double t0[kParamLanes], t1[kParamLanes];
  vu64 lane16[kParamRegs];  // lane l of register r: element g + r N64 + l, 16 blocks per element
  for (int r = 0; r < kParamRegs; ++r)
    lane16[r] = (iota<vu64>() + static_cast<uint64_t>(r * N64)) * (kParamWords / 4) + (w >> 2);
  // A: attempt 0 and the boost factor, lanes of consecutive elements.
  for (uint64_t g = 0; g < m; g += kParamLanes) {
    const uint64_t cnt = lmin<uint64_t>(kParamLanes, m - g);
    PD al;
    if (cnt == kParamLanes) {
      al = load_pd(alpha + g);
    } else {  // the tail: padded with a valid alpha, results dropped
      for (uint64_t l = 0; l < kParamLanes; ++l) t0[l] = l < cnt ? alpha[g + l] : 1.0;
      al = load_pd(t0);
    }
    PM boost;
    PD d, c;
    gamma_shape(al, &boost, &d, &c);
    vu64 blk[kParamRegs];
    PU wd[4];
    for (int r = 0; r < kParamRegs; ++r) blk[r] = lane16[r] + (kParamWords / 4) * g;
    lane_words(keys, blk, sh, 4, wd);
    const GammaTry t = gamma_try(c, wd[0], wd[1], wd[2], wd[3]);
    store_pd(S.y + g, sel(t.sq, d * t.v, d));  // d: all attempts rejected (SPEC 11.2)
    // the elements left to the log test, and those rejected (t <= 0), packed
    const PM pend = t.pos & ~t.sq, rej = ~t.pos;
    for (int r = 0; r < kParamRegs; ++r) {
      const int first = r * N64;
      const unsigned valid = first >= static_cast<int>(cnt) ? 0u : ((2u << (lmin<int>(N64, cnt - first) - 1)) - 1u);
      const vu64 idx = iota<vu64>() + (g + static_cast<uint64_t>(first));
      const unsigned o = lane_mask(pend.v[r]) & valid;
      compress_store64(S.si + ns, idx, o);
      compress_store64(S.sd + ns, (vu64)d.v[r], o);
      compress_store64(S.su + ns, (vu64)t.u.v[r], o);
      compress_store64(S.sxx + ns, (vu64)t.xx.v[r], o);
      compress_store64(S.sv + ns, (vu64)t.v.v[r], o);
      ns += __builtin_popcount(o);
      const unsigned x = lane_mask(rej.v[r]) & valid;
      if (x != 0) {
        compress_store64(S.q[0] + nq, idx, x);
        nq += __builtin_popcount(x);
      }
    }
    PD f = PD(1.0);
    if (any(boost)) {  // gammad::boost, words 60, 61
      for (int r = 0; r < kParamRegs; ++r) blk[r] = lane16[r] + ((kParamWords / 4) * g + gammad::kBoostWord / 4);
      lane_words(keys, blk, sh, 2, wd);
      const PD u = math::unit_open<52, PD, PU>(top52(wd[0], wd[1]));
      f = sel(boost, math::exp_<PD, PU>(log_lanes(u) / al), f);
    }
    store_pd(S.f + g, f);
  }
  // B: the log test of attempt 0, packed (the queue padded with harmless values).
  for (int k = ns; k % kParamLanes != 0; ++k) {
    S.sd[k] = 1.0;
    S.su[k] = 0.5;
    S.sxx[k] = 0.0;
    S.sv[k] = 1.0;
  }
  for (int k = 0; k < ns; k += kParamLanes) {
    const PD d = load_pd(S.sd + k), v = load_pd(S.sv + k);
    const PM acc = gamma_log_test(d, load_pd(S.su + k), load_pd(S.sxx + k), v);
    unsigned ab = 0;
    for (int r = 0; r < kParamRegs; ++r) ab |= lane_mask(acc.v[r]) << (r * N64);
    store_pd(t0, d * v);
    const int cnt = lmin(kParamLanes, ns - k);
    for (int l = 0; l < cnt; ++l) {  // accepted: the value; else on to attempt 1
      const uint64_t e = S.si[k + l];
      const bool in = ab >> l & 1u;
      S.y[e] = in ? t0[l] : S.y[e];
      S.q[0][nq] = e;
      nq += !in;
    }
  }
  // C: attempts 1, 2, ... of the rejected elements, packed: lane l reads the
  // words w + 64 e_l + 4 j .. + 3 of its element e_l.
  int cur = 0;
  for (int j = 1; j < gammad::kAttempts && nq > 0; ++j) {
    int nn = 0;
    for (int k = 0; k < nq; k += kParamLanes) {
      const int cnt = lmin(kParamLanes, nq - k);
      alignas(64) uint64_t tb[kParamLanes];
      for (int l = 0; l < kParamLanes; ++l) {
        const uint64_t e = S.q[cur][k + lmin(l, cnt - 1)];  // the tail repeats the last element, results dropped
        t0[l] = alpha[e];
        tb[l] = (w + kParamWords * e + 4 * static_cast<uint64_t>(j)) >> 2;
      }
      const PD al = load_pd(t0);
      PM boost;
      PD d, c;
      gamma_shape(al, &boost, &d, &c);
      vu64 blk[kParamRegs];
      PU wd[4];
      for (int r = 0; r < kParamRegs; ++r) blk[r] = loadu<vu64>(tb + r * N64);
      lane_words(keys, blk, sh, 4, wd);
      const GammaTry t = gamma_try(c, wd[0], wd[1], wd[2], wd[3]);
      PM acc = t.sq;
      if (any(t.pos & ~t.sq)) acc = acc | (t.pos & gamma_log_test(d, t.u, t.xx, t.v));
      unsigned ab = 0;
      for (int r = 0; r < kParamRegs; ++r) ab |= lane_mask(acc.v[r]) << (r * N64);
      store_pd(t1, d * t.v);
      for (int l = 0; l < cnt; ++l) {
        const uint64_t e = S.q[cur][k + l];
        const bool in = ab >> l & 1u;
        S.y[e] = in ? t1[l] : S.y[e];
        S.q[cur ^ 1][nn] = e;
        nn += !in;
      }
    }
    cur ^= 1;
    nq = nn;
  }
  // D: the boost and torch's clamp.
  for (uint64_t g = 0; g < m; g += kParamLanes) {
    const PD v = max_(load_pd(S.y + g) * load_pd(S.f + g), PD(0x1p-1022));
    if (g + kParamLanes <= m) {
      store_pd(y + g, v);
    } else {
      store_pd(t0, v);
      std::memcpy(y + g, t0, (m - g) * sizeof(double));
    }
  }
}

void gamma_elements(const double* alpha, uint64_t n, const Stream& s, uint64_t word0, double* y, uint8_t* done) {
  const PhiloxKeys keys(s);
  GammaScratch S;
  for (uint64_t i = 0; i < n; i += kGammaChunk)
    gamma_chunk(alpha + i, lmin<uint64_t>(kGammaChunk, n - i), keys, word0 + kParamWords * i, y + i, S);
  std::memset(done, 1, n);
}

// ---- Poisson (rng/poisson.h, poissond::count) -----------------------------------------------------
XRNG_INLINE void poisson_group(const double* rate_p, GroupWords& word, double* y_out, uint8_t* done) {
  const PD lam = load_pd(rate_p);
  PD k = PD(0.0);
  PM fallback = none_mask();
  const PM small = lt(lam, PD(10.0)) & ~eq(lam, PD(0.0));
  const PM big = ge(lam, PD(10.0));
  if (any(small)) {  // poissond::inversion, words 0, 1
    const PD u = math::unit_open<52, PD, PU>(top52(word(0), word(1)));
    PD p = math::exp_<PD, PU>(PD(0.0) - lam);
    PD F = p;
    PD kk = PD(0.0);
    PM act = small & gt(u, F);
    for (int i = 1; i <= poissond::kMaxInversion && any(act); ++i) {
      const PD k1 = kk + PD(1.0);
      kk = sel(act, k1, kk);
      p = sel(act, p * lam / k1, p);  // p = p * lam / k
      F = sel(act, F + p, F);
      act = act & gt(u, F);
    }
    k = sel(small, kk, k);
  }
  if (any(big)) {  // poissond::ptrs and ptrs_attempt, words 2j, 2j + 1
    const PD L = sel(big, lam, PD(10.0));  // lanes of other cases: any valid rate, result unused
    const PD loglam = log_lanes(L);
    const PD b = PD(0.931) + PD(2.53) * sqrt_(L);
    const PD a = PD(-0.059) + PD(0.02483) * b;
    const PD invalpha = PD(1.1239) + PD(1.1328) / (b - PD(3.4));
    const PD vr = PD(0.9277) - PD(3.6224) / (b - PD(2.0));
    PD kb = floor_lanes(L);  // all attempts rejected (SPEC 12.2)
    PM open = big;
    for (int j = 0; j < poissond::kAttempts && any(open); ++j) {
      const PD U = math::unit_open<32, PD, PU>(word(2 * j)) - PD(0.5);
      const PD V = math::unit_open<32, PD, PU>(word(2 * j + 1));
      const PD us = PD(0.5) - sel(lt(U, PD(0.0)), PD(0.0) - U, U);
      const PD kk = floor_lanes((PD(2.0) * a / us + b) * U + L + PD(0.43));
      PM acc = ge(us, PD(0.07)) & le(V, vr);
      const PM rej = ~acc & (lt(kk, PD(0.0)) | (lt(us, PD(0.013)) & gt(V, us)));
      const PM slow = open & ~acc & ~rej;
      if (any(slow)) {
        // log_factorial(kk): 0 for kk <= 1; no recurrence for kk >= 6 (x = kk + 1 >= 7);
        // 2 <= kk <= 5 goes to the scalar function.
        const PM rec = slow & gt(kk, PD(1.0)) & lt(kk, PD(6.0));
        fallback = fallback | rec;
        const PD x0 = kk + PD(1.0);
        const PD rr = PD(1.0) / x0;
        const PD r2 = rr * rr;
        PD s = PD(-1.3924322169059011);
        s = fma_(s, r2, PD(0.17964437236883057));
        s = fma_(s, r2, PD(-0.029550653594771242));
        s = fma_(s, r2, PD(0.0064102564102564102));
        s = fma_(s, r2, PD(-0.0019175269175269176));
        s = fma_(s, r2, PD(0.00084175084175084175));
        s = fma_(s, r2, PD(-0.00059523809523809524));
        s = fma_(s, r2, PD(0.00079365079365079365));
        s = fma_(s, r2, PD(-0.0027777777777777778));
        s = fma_(s, r2, PD(0.083333333333333333));
        const PD g = s * rr + PD(0.91893853320467274) + (x0 - PD(0.5)) * log_lanes(x0) - x0;
        const PD lf = sel(le(kk, PD(1.0)), PD(0.0), g);
        const PM ok = le(log_lanes(V) + log_lanes(invalpha) - log_lanes(a / (us * us) + b),
                         (PD(0.0) - L) + kk * loglam - lf);
        acc = acc | (slow & ~rec & ok);
      }
      acc = acc & open;
      kb = sel(acc, kk, kb);
      open = open & ~acc & ~fallback;
    }
    k = sel(big, kb, k);
  }
  store_pd(y_out, k);
  alignas(64) int64_t fb[kParamLanes];
  for (int r = 0; r < kParamRegs; ++r) storeu(fb + r * N64, fallback.v[r]);
  for (int l = 0; l < kParamLanes; ++l) done[l] = fb[l] == 0;
}

// ---- binomial (rng/binomial.h, binomiald::count) --------------------------------------------------
XRNG_INLINE PD stirling_big(const PD& k) {  // binomiald::stirling_tail for k > 9
  const PD kp1 = k + PD(1.0);
  const PD k2 = kp1 * kp1;
  return (PD(1.0 / 12.0) - (PD(1.0 / 360.0) - PD(1.0 / 1260.0) / k2) / k2) / kp1;
}

XRNG_INLINE void binomial_group(const double* n_p, const double* p_p, GroupWords& word, double* y_out,
                                uint8_t* done) {
  const PD n = load_pd(n_p), p = load_pd(p_p);
  const PM trivial = eq(n, PD(0.0)) | eq(p, PD(0.0)) | eq(p, PD(1.0));
  const PM flip = gt(p, PD(0.5));
  const PD q = sel(flip, PD(1.0) - p, p);
  const PD nq = n * q;
  const PM inv = ~trivial & lt(nq, PD(10.0));
  const PM big = ~trivial & ~lt(nq, PD(10.0));
  PD k = PD(0.0);
  PM fallback = none_mask();
  if (any(inv)) {  // binomiald::inversion, words 0, 1
    const PD qi = sel(inv, q, PD(0.25));  // other lanes: any valid q, result unused
    const PD u = math::unit_open<52, PD, PU>(top52(word(0), word(1)));
    const PD s = qi / (PD(1.0) - qi);
    // log1p_(0 - q): y = 1 + x; y == 1 ? x : log(y) * (x / (y - 1))
    const PD x = PD(0.0) - qi;
    const PD yy = PD(1.0) + x;
    const PD l1p = sel(eq(yy, PD(1.0)), x, log_lanes(yy) * (x / (yy - PD(1.0))));
    PD pk = math::exp_<PD, PU>(n * l1p);
    PD F = pk;
    PD kk = PD(0.0);
    PM act = inv & gt(u, F) & lt(kk, n);
    for (int i = 1; i <= binomiald::kMaxInversion && any(act); ++i) {
      pk = sel(act, pk * ((n - kk) / (kk + PD(1.0))) * s, pk);
      kk = sel(act, kk + PD(1.0), kk);
      F = sel(act, F + pk, F);
      act = act & gt(u, F) & lt(kk, n);
    }
    k = sel(inv, kk, k);
  }
  if (any(big)) {  // binomiald::btrs and btrs_attempt, words 2j, 2j + 1
    const PD N = sel(big, n, PD(100.0)), P = sel(big, q, PD(0.5));  // other lanes: valid, unused
    const PD stddev = sqrt_(N * P * (PD(1.0) - P));
    const PD b = PD(1.15) + PD(2.53) * stddev;
    const PD a = PD(-0.0873) + PD(0.0248) * b + PD(0.01) * P;
    const PD c = N * P + PD(0.5);
    const PD vr = PD(0.92) - PD(4.2) / b;
    const PD r = P / (PD(1.0) - P);
    const PD alpha = (PD(2.83) + PD(5.1) / b) * stddev;
    const PD m = floor_lanes((N + PD(1.0)) * P);
    PD kb = m;  // all attempts rejected (SPEC 13.2)
    PM open = big;
    for (int j = 0; j < binomiald::kAttempts && any(open); ++j) {
      const PD U = math::unit_open<32, PD, PU>(word(2 * j)) - PD(0.5);
      const PD V = math::unit_open<32, PD, PU>(word(2 * j + 1));
      const PD us = PD(0.5) - sel(lt(U, PD(0.0)), PD(0.0) - U, U);
      const PD kk = floor_lanes((PD(2.0) * a / us + b) * U + c);
      const PM rej = lt(kk, PD(0.0)) | gt(kk, N);
      PM acc = ~rej & ge(us, PD(0.07)) & le(V, vr);
      const PM slow = open & ~rej & ~acc;
      if (any(slow)) {
        const PD nm = N - m, nk = N - kk;
        const PM tab = slow & (le(m, PD(9.0)) | le(nm, PD(9.0)) | le(kk, PD(9.0)) | le(nk, PD(9.0)));
        fallback = fallback | tab;
        const PD lv = log_lanes(V * alpha / (a / (us * us) + b));
        const PD ub = (m + PD(0.5)) * log_lanes((m + PD(1.0)) / (r * (N - m + PD(1.0)))) +
                      (N + PD(1.0)) * log_lanes((N - m + PD(1.0)) / (N - kk + PD(1.0))) +
                      (kk + PD(0.5)) * log_lanes(r * (N - kk + PD(1.0)) / (kk + PD(1.0))) + stirling_big(m) +
                      stirling_big(nm) - stirling_big(kk) - stirling_big(nk);
        acc = acc | (slow & ~tab & le(lv, ub));
      }
      acc = acc & open;
      kb = sel(acc, kk, kb);
      open = open & ~acc & ~fallback;
    }
    k = sel(big, kb, k);
  }
  k = sel(flip, n - k, k);
  k = sel(eq(n, PD(0.0)) | eq(p, PD(0.0)), PD(0.0), sel(eq(p, PD(1.0)), n, k));
  store_pd(y_out, k);
  alignas(64) int64_t fb[kParamLanes];
  for (int r = 0; r < kParamRegs; ++r) storeu(fb + r * N64, fallback.v[r]);
  for (int l = 0; l < kParamLanes; ++l) done[l] = fb[l] == 0;
}

// ---- the race time E = -ln u of multinomial without replacement ---------------------------------
// categorical::race_time (rng/multinomial.h): math::neg_log_unit<52> of the top
// 52 bits of dist::bits_u64(w0, w1); a 64-bit lane loaded from the pair is
// w0 | w1 << 32 (little-endian), bits_u64's value. Element i reads words
// word0 + 2i, 2i + 1, from the fill kernels' word window.
void race_times(uint64_t n, const Stream& s, uint64_t word0, double* y, uint8_t* done) {
  WordSource src(s, static_cast<u128>(word0) + 2 * static_cast<u128>(n));
  constexpr uint64_t kChunk = kTileWords / 2;  // elements per window request
  for (uint64_t i = 0; i < n; i += kChunk) {
    const uint64_t m = lmin<uint64_t>(kChunk, n - i);
    const uint32_t* w = src.get(word0 + 2 * i, 2 * m);
    uint64_t j = 0;
    for (; j + N64 <= m; j += N64)
      storeu(y + i + j, math::neg_log_unit<52, D, U>(uof(loadu<vu64>(w + 2 * j) >> 12)).v[0]);
    if (j < m) {  // the tail, through a padded copy
      alignas(64) uint64_t pw[N64] = {};
      alignas(64) double py[N64];
      std::memcpy(pw, w + 2 * j, (m - j) * 8);
      storeu(py, math::neg_log_unit<52, D, U>(uof(loadu<vu64>(pw) >> 12)).v[0]);
      std::memcpy(y + i + j, py, (m - j) * sizeof(double));
    }
  }
  std::memset(done, 1, n);
}

// params_avx2 / params_avx512 / params_neon (params_api.h) of this ISA.
bool params_impl(ParamDraw which, const double* a, const double* b, uint64_t n, const Stream& s, uint64_t word0,
                 double* y, uint8_t* done) {
  if (which == ParamDraw::race_time) {
    race_times(n, s, word0, y, done);
    return true;
  }
  if (which == ParamDraw::gamma) {
    gamma_elements(a, n, s, word0, y, done);
    return true;
  }
  const PhiloxKeys keys(s);
  alignas(64) double pa[kParamLanes], pb[kParamLanes], py[kParamLanes];
  uint8_t pd[kParamLanes];
  for (uint64_t i = 0; i < n; i += kParamLanes) {
    const uint64_t m = lmin<uint64_t>(kParamLanes, n - i);
    const double* ga = a + i;
    const double* gb = b ? b + i : nullptr;
    double* gy = y + i;
    uint8_t* gd = done + i;
    if (m < kParamLanes) {  // the tail: padded with valid parameters, results dropped
      for (uint64_t l = 0; l < kParamLanes; ++l) {
        pa[l] = l < m ? a[i + l] : 1.0;
        pb[l] = l < m && b ? b[i + l] : 0.5;
      }
      ga = pa;
      gb = pb;
      gy = py;
      gd = pd;
    }
    GroupWords words(keys, word0 + kParamWords * i);
    switch (which) {
      case ParamDraw::poisson: poisson_group(ga, words, gy, gd); break;
      case ParamDraw::binomial: binomial_group(ga, gb, words, gy, gd); break;
      default: return false;
    }
    if (m < kParamLanes) {
      std::memcpy(y + i, py, m * sizeof(double));
      std::memcpy(done + i, pd, m);
    }
  }
  return true;
}

}  // namespace
}  // namespace xrng::detail

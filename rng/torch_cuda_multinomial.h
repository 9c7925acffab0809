// torch.multinomial(probs, n > 1, replacement=True) on CUDA, as torch 2.15's
// own kernel computes it (aten/src/ATen/native/cuda/MultinomialKernel.cu:
// multinomial_with_replacement_kernel_impl, its "generic" branch, taken for
// every n_sample > 1), on any host. SPEC.md 15.3 ("multinomial with
// replacement") names the sources and what is proven.
//
// Three kernels, each modelled in the arithmetic of the weights' dtype
// (scalar_t: c10::Half / BFloat16 arithmetic is a float operation rounded
// back to the 16-bit type, nearest-even; float and double are themselves):
//
//  1. renormRows (renormRowsL1): one block per row of B = min(1024, 32
//     ceil(k / 32)) threads; thread t sums columns t, t + B, ... left to
//     right from 0; cuda_utils::BlockReduceSum (the shipped
//     ATen/native/cuda/block_reduce.cuh) folds each warp's 32 partial sums
//     by shuffle-down with offsets 16, 8, 4, 2, 1, then warp 0 folds the
//     B / 32 warp sums (zero-padded to 32) the same way; if the total is >
//     0 every weight is divided by it (else the row is left as is).
//  2. at::cuda::cumsum_out(prefix, norm, 1) (ScanUtils.cuh scan_dim): for
//     more than one row, tensor_kernel_scan_innermost_dim (Sklansky's
//     scan in chunks of 2 * 2^L columns, L = get_log_num_threads_x_inner_scan
//     in uint32 arithmetic, each chunk's first value plus the previous
//     chunks' total). For ONE row (a 1-d input) torch runs cub's
//     DeviceScan::InclusiveScan, whose rounding order depends on the CCCL
//     tuning of the GPU's architecture and, above one tile, on timing (the
//     decoupled look-back; torch flags cumsum on CUDA as nondeterministic):
//     reproduced only where the order cannot matter (k <= 2, or every
//     partial sum of the row exact in scalar_t, checked), else refused.
//  3. sampleMultinomialWithReplacement: block 128, grid (ceil(n / 128),
//     gy = min(rows, 65535)), philox_cuda_state(ceil(rows / gy) 4); the
//     thread of sample j of row r is idx = (r mod gy) * gx * 128 + j
//     (unsigned 32-bit arithmetic, stored in an int, then curand_init's
//     64-bit subsequence: sign-extended), its (r / gy)-th curand_uniform4
//     call's .x, cast to scalar_t, binary-searched in the row's prefix
//     sums (binarySearchForMultinomial: the first prefix >= u; past the end
//     -> the last category; then back over zero normalized weights).
//
// Nothing depends on the SM count: the grids use maxThreadsPerBlock (1024)
// and maxGridSize (2^31 - 1, 65535), the same on every NVIDIA GPU torch
// supports. Host only (no XRNG_HD): the scans are sequential re-enactments.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "rng/torch_cuda.h"

namespace xrng::torch_cuda {

// A draw torch makes but this model does not reproduce (the Python binding
// raises NotImplementedError for it).
struct NotReproducedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace mn {

inline constexpr uint32_t kSampleBlock = 128;     // sampleMultinomialWithReplacement's block
inline constexpr int64_t kMaxGridY = 65535;       // cudaDeviceProp::maxGridSize[1]
inline constexpr int64_t kMaxThreadsPerBlock = 1024;
inline constexpr uint32_t kWarp = 32;

// scalar_t's rounding of a float (16-bit types) or nothing (float, double).
inline double rnd(Type, double v) { return v; }
inline float rnd(Type t, float v) { return round_to(t, v); }
template <class V>
V add(Type t, V a, V b) {
  return rnd(t, a + b);
}

// renormRows' block: min(maxThreadsPerBlock, kCUDABlockReduceMaxThreads() =
// 32 * 32, warp_size * ceil(cols / warp_size)).
inline uint32_t renorm_block(int64_t k) {
  return static_cast<uint32_t>(std::min<int64_t>(kMaxThreadsPerBlock, kWarp * ((k + kWarp - 1) / kWarp)));
}

// WarpReduceSum as lane 0 ends with it: val += __shfl_down(val, off) for off
// = 16, 8, 4, 2, 1 (lanes at or above `off` do not feed lane 0's result).
template <class V>
V warp_reduce_sum(Type t, V* lanes) {
  for (uint32_t off = kWarp / 2; off > 0; off >>= 1)
    for (uint32_t i = 0; i < off; ++i) lanes[i] = add(t, lanes[i], lanes[i + off]);
  return lanes[0];
}

// renormRowsL1's row total (what thread 0 stores in smem[0]).
template <class V>
V renorm_sum(Type t, const V* w, int64_t k) {
  const uint32_t B = renorm_block(k), W = B / kWarp;
  std::vector<V> part(B, V(0));
  for (uint32_t th = 0; th < B; ++th)
    for (int64_t col = th; col < k; col += B) part[th] = add(t, part[th], w[col]);
  V lanes[kWarp];
  std::vector<V> warp_sums(W);
  for (uint32_t wi = 0; wi < W; ++wi) {
    std::copy(part.begin() + wi * kWarp, part.begin() + (wi + 1) * kWarp, lanes);
    warp_sums[wi] = warp_reduce_sum(t, lanes);
  }
  for (uint32_t i = 0; i < kWarp; ++i) lanes[i] = i < W ? warp_sums[i] : V(0);
  return warp_reduce_sum(t, lanes);
}

// renormRowsL1: norm[j] = w[j] / total when total > 0, else w[j].
template <class V>
void renorm_row(Type t, const V* w, int64_t k, V* norm) {
  const V sum = renorm_sum(t, w, k);
  for (int64_t j = 0; j < k; ++j) norm[j] = sum > V(0) ? rnd(t, w[j] / sum) : w[j];
}

// get_log_num_threads_x_inner_scan<uint32_t> (ScanUtils.cuh), in its
// unsigned arithmetic: 9 + (lx - ly) wraps when ly > lx + 9, giving 9.
inline uint32_t scan_log_threads_x(uint32_t num_rows, uint32_t row_size) {
  uint32_t lx = 0, ly = 0;
  while ((uint64_t{1} << lx) < row_size) ++lx;
  while ((uint64_t{1} << ly) < num_rows) ++ly;
  const uint32_t diff = lx - ly;
  uint32_t l = (9u + diff) / 2u;
  return std::clamp(l, 4u, 9u);
}

// tensor_kernel_scan_innermost_dim_impl for one row: chunks of 2 nx
// columns (nx = 2^L, missing columns 0); the chunk's first value plus the
// running total, then Sklansky's steps m = 0 .. L: position a + (x mod s)
// += position a - 1 for every thread x (s = 2^m, a = (x >> m) << (m + 1) |
// s; within a step no position written is read), the chunk's last value
// the new total. `buf` is scratch.
template <class V>
void scan_row_sklansky(Type t, const V* x, int64_t k, uint32_t L, V* out, std::vector<V>& buf) {
  const uint64_t nx = uint64_t{1} << L;
  buf.assign(2 * nx, V(0));
  V total = V(0);
  for (int64_t bc = 0; bc < k; bc += static_cast<int64_t>(2 * nx)) {
    for (uint64_t i = 0; i < 2 * nx; ++i) {
      const int64_t c = bc + static_cast<int64_t>(i);
      buf[i] = c < k ? x[c] : V(0);
    }
    buf[0] = add(t, buf[0], total);
    for (uint32_t m = 0; m <= L; ++m) {
      const uint64_t s = uint64_t{1} << m;
      for (uint64_t th = 0; th < nx; ++th) {
        const uint64_t a = ((th >> m) << (m + 1)) | s;
        const uint64_t ti = a + (th % s), si = a - 1;
        buf[ti] = add(t, buf[ti], buf[si]);
      }
    }
    for (uint64_t i = 0; i < 2 * nx; ++i) {
      const int64_t c = bc + static_cast<int64_t>(i);
      if (c < k) out[c] = buf[i];
    }
    total = buf[2 * nx - 1];
  }
}

// scalar_t's significand bits (p): float 24, double 53, half 11, bfloat16 8.
inline int digits(Type t) { return t == Type::f64 ? 53 : t == Type::f32 ? 24 : t == Type::f16 ? 11 : 8; }

// (integer significand, exponent) of a positive finite value: v = m 2^e,
// m odd.
inline void odd_significand(double v, uint64_t& m, int& e) {
  const uint64_t b = math::as_u64(v);
  const int be = static_cast<int>((b >> 52) & 0x7ff);
  m = b & ((uint64_t{1} << 52) - 1);
  e = be == 0 ? -1074 : be - 1075;
  if (be != 0) m |= uint64_t{1} << 52;
  while ((m & 1) == 0) {
    m >>= 1;
    ++e;
  }
}

// Whether every sum of any subset of the row's (non-negative, finite)
// values is exact in scalar_t: with the values integer multiples of 2^e
// (e the lowest set bit over the row) summing to S 2^e, S <= 2^p makes
// every partial sum an integer multiple of 2^e of at most p bits. Then any
// scan (any bracketing, any order, any timing) gives the same prefix sums.
template <class V>
bool order_free_sums(Type t, const V* x, int64_t k) {
  const int p = digits(t);
  int emin = 1 << 30;
  for (int64_t j = 0; j < k; ++j) {
    if (!(x[j] > V(0))) continue;
    uint64_t m;
    int e;
    odd_significand(static_cast<double>(x[j]), m, e);
    emin = std::min(emin, e);
  }
  if (emin == (1 << 30)) return true;  // all zero
  const uint64_t cap = uint64_t{1} << p;
  uint64_t S = 0;
  for (int64_t j = 0; j < k; ++j) {
    if (!(x[j] > V(0))) continue;
    uint64_t m;
    int e;
    odd_significand(static_cast<double>(x[j]), m, e);
    const int sh = e - emin;
    if (sh >= p || (m << sh) >> sh != m) return false;
    const uint64_t term = m << sh;
    if (term > cap || S > cap - term) return false;
    S += term;
  }
  return true;
}

// binarySearchForMultinomial: the first position whose prefix sum is not
// below `val` (comparisons in scalar_t), the last position if none, then
// back over zero normalized weights.
template <class V>
int64_t binary_search(const V* cum, const V* norm, int64_t size, V val) {
  int64_t start = 0, end = size;
  while (end - start > 0) {
    const int64_t mid = start + (end - start) / 2;
    if (cum[mid] < val)
      start = mid + 1;
    else
      end = mid;
  }
  if (start == size) start = size - 1;
  while (start >= 1 && norm[start] == V(0)) --start;
  return start;
}

// The thread index torch's kernel computes for sample j of row r (row r
// in block row r mod gy): unsigned 32-bit blockIdx.y * gridDim.x *
// blockDim.x + sample, stored in an int, widened to curand_init's
// unsigned long long subsequence (sign-extended).
inline uint64_t sample_subseq(int64_t row, int64_t j, int64_t gy, uint32_t gx) {
  const uint32_t lin = static_cast<uint32_t>(row % gy) * gx * kSampleBlock + static_cast<uint32_t>(j);
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(lin)));
}

}  // namespace mn

// The launch of sampleMultinomialWithReplacement: grid (gx, gy) and the
// philox increment ((rows - 1) / gy + 1) * 4.
struct MultinomialLaunch {
  uint32_t gx = 0;
  int64_t gy = 0;
  uint64_t increment = 0;
};
inline MultinomialLaunch multinomial_launch(int64_t rows, int64_t n) {
  MultinomialLaunch L;
  L.gx = static_cast<uint32_t>((n - 1) / mn::kSampleBlock + 1);
  L.gy = std::min(rows, mn::kMaxGridY);
  L.increment = static_cast<uint64_t>((rows - 1) / L.gy + 1) * 4;
  return L;
}

// The prefix sums torch's kernel searches (renormRows, then cumsum), for
// `rows` rows of k weights `w` of dtype t (values already in the dtype; V
// = double for float64, float otherwise). Throws std::invalid_argument for
// a row torch's kernels assert on (a weight < 0; a last prefix sum not >
// 0: all zero, NaN, infinity or an overflowing total) and
// NotReproducedError for one row (cub's scan) whose prefix sums depend on
// the summation order. Nothing is drawn.
template <class V>
void multinomial_prefix(Type t, const V* w, int64_t rows, int64_t k, V* norm, V* cum) {
  if (rows < 1 || k < 1) throw std::invalid_argument("torch_cuda multinomial: need rows >= 1 and k >= 1");
  if (k > (int64_t{1} << 24)) throw std::invalid_argument("multinomial: number of categories cannot exceed 2^24");
  if (rows > 2147483647) throw NotReproducedError("torch_cuda multinomial: more than 2^31 - 1 rows");
  for (int64_t i = 0; i < rows * k; ++i)
    if (w[i] < V(0))
      throw std::invalid_argument("multinomial: probability tensor contains an element < 0 (torch's CUDA kernel "
                                  "asserts)");
  for (int64_t r = 0; r < rows; ++r) mn::renorm_row(t, w + r * k, k, norm + r * k);
  if (rows == 1) {
    // cub's scan; the left-to-right sums stand for it where the order cannot matter
    V acc = V(0);
    for (int64_t j = 0; j < k; ++j) cum[j] = acc = j == 0 ? norm[0] : mn::add(t, acc, norm[j]);
  } else {
    const uint32_t L = mn::scan_log_threads_x(static_cast<uint32_t>(rows), static_cast<uint32_t>(k));
    std::vector<V> buf;
    for (int64_t r = 0; r < rows; ++r) mn::scan_row_sklansky(t, norm + r * k, k, L, cum + r * k, buf);
  }
  for (int64_t r = 0; r < rows; ++r)
    if (!(cum[r * k + k - 1] > V(0)))
      throw std::invalid_argument("multinomial: invalid multinomial distribution (a row sums to 0, or holds inf or "
                                  "nan: torch's CUDA kernel asserts)");
  if (rows == 1 && k > 2 && !mn::order_free_sums(t, norm, k))
    throw NotReproducedError(
        "xrng.torch_cuda: multinomial with replacement of one row (a 1-d input) is reproduced only when its prefix "
        "sums are exact in the dtype (torch's cumsum runs cub's scan, whose rounding order is not reproduced); "
        "2-d inputs of 2 or more rows are");
}

// multinomial(w, n, replacement=True), n > 1: `rows` rows of k weights
// (row-major, values in dtype t); out: rows * n int64, row-major. Checks
// and prefix sums first (multinomial_prefix: nothing drawn if refused),
// then philox_cuda_state(increment) and the samples.
template <class V>
void multinomial_replacement(State& s, Type t, const V* w, int64_t rows, int64_t k, int64_t n, int64_t* out) {
  if (n < 2 || n > 2147483647)
    throw NotReproducedError("torch_cuda multinomial with replacement: n must lie in [2, 2^31 - 1]");
  if (rows == 0) return;  // an empty result: torch returns before its kernel
  std::vector<V> norm(static_cast<size_t>(rows * k)), cum(static_cast<size_t>(rows * k));
  multinomial_prefix(t, w, rows, k, norm.data(), cum.data());
  const MultinomialLaunch L = multinomial_launch(rows, n);
  const uint64_t offset = philox_cuda_state(s, L.increment);
  for (int64_t r = 0; r < rows; ++r) {
    const uint64_t round = static_cast<uint64_t>(r / L.gy);
    const V* c = cum.data() + r * k;
    const V* nd = norm.data() + r * k;
    for (int64_t j = 0; j < n; ++j) {
      const u32x4 words = curand4(s.seed, offset, mn::sample_subseq(r, j, L.gy, L.gx), round);
      const V u = mn::rnd(t, static_cast<V>(curand_uniform(words.v[0])));
      out[r * n + j] = mn::binary_search(c, nd, k, u);
    }
  }
}

}  // namespace xrng::torch_cuda

// glibc's binary64 log, log1p, exp, sincos and tan, the functions under torch's
// CPU float64 kernels (at::normal_distribution<double>: log1p, sin, cos;
// NormalFill16<double>: log, sin, cos; GCC merges each sin/cos pair into one
// sincos call in libtorch_cpu.so; exponential_: log1p; geometric_: log,
// log1p; log_normal_: exp; cauchy_: tan), written out as scalar code so any host
// reproduces them bit for bit. Never the host's libm.
//
// Which glibc: 2.36 as Debian 12 ships it (the release/2.36 branch, which
// backported the x86-64 FMA variant of log1p from 2.39), in the variant its
// ifunc picks on an x86-64 CPU with FMA and AVX2: each function's C source
// compiled with -mfma -mavx2, where GCC contracts a*b+c into one fused
// multiply-add. Every std::fma below stands where that object code has a
// vfmadd/vfmsub/vfnmadd (objdump -d of __sincos_fma, __log_fma,
// __log1p_fma, __exp_fma, __tan_fma in libm.so.6); every other operation is the plain IEEE one.
//
// Algorithms (ported, not copied; the tables are the published constants):
//  * log: Szabolcs Nagy's 2018 log (ARM Optimized Routines; glibc
//    sysdeps/ieee754/dbl-64/e_log.c, e_log_data.c): x = 2^k z, z near table
//    point c (128 intervals), log x = k ln2 + log c + log1p(z/c - 1) with a
//    degree-6 polynomial; a degree-12 polynomial near 1.
//  * exp: Szabolcs Nagy's 2018 exp (glibc e_exp.c, e_exp_data.c): x =
//    k ln2/128 + r, a 128-entry table of 2^(k/128) and a degree-5
//    polynomial.
//  * log1p: fdlibm's s_log1p.c (Sun, 1993): 1+x = 2^k (1+f), log1p(f) =
//    f - (hfsq - s (hfsq + R(s^2))) with s = f/(2+f).
//  * sincos: IBM Accurate Mathematical Library (glibc s_sin.c, s_sincos.c,
//    usncs.h, sincostab.c): reduction by pi/2 in three parts for |x| <
//    105414350, then sin/cos of x = x0 + dx from a 440-entry table of sin
//    and cos at multiples of 1/128 (each a double-double) and short Taylor
//    polynomials. Only |x| < 105414350 is reproduced (the torch streams give
//    [0, 2 pi)); the Payne-Hanek branch (__branred) is not.
//  * tan: IBM Accurate Mathematical Library (glibc s_tan.c, utan.h,
//    utan.tbl, dla.h; glibc 2.35 removed its multi-precision fallbacks, so
//    2.36's tan is the double-precision code alone): a Taylor polynomial
//    near 0, a 186-entry table of (x_i, tan x_i, cot x_i) at steps of 1/256
//    with a degree-5 correction, and for |x| > 0.787 a reduction by pi/2
//    in three parts. Only |x| <= 25 is reproduced (the torch streams give
//    |x| <= pi/2).
// glibc's IBM and ARM code is LGPL-2.1-or-later; what is here is an
// independent transcription of the algorithms and their published
// constants, checked against the binary.
//
// tests/test_torch_cpu.cpp compares each with this host's glibc on the
// inputs torch's kernels give them (many millions, and the edges).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include "../config.h"

namespace xrng::torch_cpu::detail {

// The functions below that torch's CUDA stream models use (rng/torch_cuda.h:
// log, exp, sincos and their helpers) are XRNG_HD, so that xrng's CUDA
// kernels for that stream (device/torch_cuda.cu) run the very same code. A
// table is read through XRNG_TAB: the constexpr host array, or its copy in
// device memory (built from the host array at compile time) on the GPU.
#if defined(__CUDACC__)
template <class T, int N>
struct DeviceTable {
  T v[N];
};
template <class T, int N>
constexpr DeviceTable<T, N> device_table(const T (&a)[N]) {
  DeviceTable<T, N> t{};
  for (int i = 0; i < N; ++i) t.v[i] = a[i];
  return t;
}
#endif
#if defined(__CUDA_ARCH__)
#define XRNG_TAB(name) (name##_dev.v)
#else
#define XRNG_TAB(name) name
#endif

XRNG_HD inline uint64_t d2u(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t u;
  std::memcpy(&u, &x, 8);
  return u;
#endif
}
XRNG_HD inline double u2d(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, 8);
  return x;
#endif
}
XRNG_HD inline uint32_t hi_word(double x) { return static_cast<uint32_t>(d2u(x) >> 32); }
XRNG_HD inline uint32_t lo_word(double x) { return static_cast<uint32_t>(d2u(x)); }
XRNG_HD inline double with_hi_word(double x, uint32_t hi) {
  return u2d((static_cast<uint64_t>(hi) << 32) | (d2u(x) & 0xffffffffu));
}

// ---- log (e_log.c, FMA build) ----------------------------------------------------------------------

struct LogEntry {
  double invc, logc;
};
// __log_data.tab: 1/c and log(c) for the 128 subintervals of [0x1.6p-1, 0x1.6p0).
inline constexpr LogEntry kLogTab[128] = {
    {0x1.734f0c3e0de9fp+0, -0x1.7cc7f79e69000p-2}, {0x1.713786a2ce91fp+0, -0x1.76feec20d0000p-2},
    {0x1.6f26008fab5a0p+0, -0x1.713e31351e000p-2}, {0x1.6d1a61f138c7dp+0, -0x1.6b85b38287800p-2},
    {0x1.6b1490bc5b4d1p+0, -0x1.65d5590807800p-2}, {0x1.69147332f0cbap+0, -0x1.602d076180000p-2},
    {0x1.6719f18224223p+0, -0x1.5a8ca86909000p-2}, {0x1.6524f99a51ed9p+0, -0x1.54f4356035000p-2},
    {0x1.63356aa8f24c4p+0, -0x1.4f637c36b4000p-2}, {0x1.614b36b9ddc14p+0, -0x1.49da7fda85000p-2},
    {0x1.5f66452c65c4cp+0, -0x1.445923989a800p-2}, {0x1.5d867b5912c4fp+0, -0x1.3edf439b0b800p-2},
    {0x1.5babccb5b90dep+0, -0x1.396ce448f7000p-2}, {0x1.59d61f2d91a78p+0, -0x1.3401e17bda000p-2},
    {0x1.5805612465687p+0, -0x1.2e9e2ef468000p-2}, {0x1.56397cee76bd3p+0, -0x1.2941b3830e000p-2},
    {0x1.54725e2a77f93p+0, -0x1.23ec58cda8800p-2}, {0x1.52aff42064583p+0, -0x1.1e9e129279000p-2},
    {0x1.50f22dbb2bddfp+0, -0x1.1956d2b48f800p-2}, {0x1.4f38f4734ded7p+0, -0x1.141679ab9f800p-2},
    {0x1.4d843cfde2840p+0, -0x1.0edd094ef9800p-2}, {0x1.4bd3ec078a3c8p+0, -0x1.09aa518db1000p-2},
    {0x1.4a27fc3e0258ap+0, -0x1.047e65263b800p-2}, {0x1.4880524d48434p+0, -0x1.feb224586f000p-3},
    {0x1.46dce1b192d0bp+0, -0x1.f474a7517b000p-3}, {0x1.453d9d3391854p+0, -0x1.ea4443d103000p-3},
    {0x1.43a2744b4845ap+0, -0x1.e020d44e9b000p-3}, {0x1.420b54115f8fbp+0, -0x1.d60a22977f000p-3},
    {0x1.40782da3ef4b1p+0, -0x1.cc00104959000p-3}, {0x1.3ee8f5d57fe8fp+0, -0x1.c202956891000p-3},
    {0x1.3d5d9a00b4ce9p+0, -0x1.b81178d811000p-3}, {0x1.3bd60c010c12bp+0, -0x1.ae2c9ccd3d000p-3},
    {0x1.3a5242b75dab8p+0, -0x1.a45402e129000p-3}, {0x1.38d22cd9fd002p+0, -0x1.9a877681df000p-3},
    {0x1.3755bc5847a1cp+0, -0x1.90c6d69483000p-3}, {0x1.35dce49ad36e2p+0, -0x1.87120a645c000p-3},
    {0x1.34679984dd440p+0, -0x1.7d68fb4143000p-3}, {0x1.32f5cceffcb24p+0, -0x1.73cb83c627000p-3},
    {0x1.3187775a10d49p+0, -0x1.6a39a9b376000p-3}, {0x1.301c8373e3990p+0, -0x1.60b3154b7a000p-3},
    {0x1.2eb4ebb95f841p+0, -0x1.5737d76243000p-3}, {0x1.2d50a0219a9d1p+0, -0x1.4dc7b8fc23000p-3},
    {0x1.2bef9a8b7fd2ap+0, -0x1.4462c51d20000p-3}, {0x1.2a91c7a0c1babp+0, -0x1.3b08abc830000p-3},
    {0x1.293726014b530p+0, -0x1.31b996b490000p-3}, {0x1.27dfa5757a1f5p+0, -0x1.2875490a44000p-3},
    {0x1.268b39b1d3bbfp+0, -0x1.1f3b9f879a000p-3}, {0x1.2539d838ff5bdp+0, -0x1.160c8252ca000p-3},
    {0x1.23eb7aac9083bp+0, -0x1.0ce7f57f72000p-3}, {0x1.22a012ba940b6p+0, -0x1.03cdc49fea000p-3},
    {0x1.2157996cc4132p+0, -0x1.f57bdbc4b8000p-4}, {0x1.201201dd2fc9bp+0, -0x1.e370896404000p-4},
    {0x1.1ecf4494d480bp+0, -0x1.d17983ef94000p-4}, {0x1.1d8f5528f6569p+0, -0x1.bf9674ed8a000p-4},
    {0x1.1c52311577e7cp+0, -0x1.adc79202f6000p-4}, {0x1.1b17c74cb26e9p+0, -0x1.9c0c3e7288000p-4},
    {0x1.19e010c2c1ab6p+0, -0x1.8a646b372c000p-4}, {0x1.18ab07bb670bdp+0, -0x1.78d01b3ac0000p-4},
    {0x1.1778a25efbcb6p+0, -0x1.674f145380000p-4}, {0x1.1648d354c31dap+0, -0x1.55e0e6d878000p-4},
    {0x1.151b990275fddp+0, -0x1.4485cdea1e000p-4}, {0x1.13f0ea432d24cp+0, -0x1.333d94d6aa000p-4},
    {0x1.12c8b7210f9dap+0, -0x1.22079f8c56000p-4}, {0x1.11a3028ecb531p+0, -0x1.10e4698622000p-4},
    {0x1.107fbda8434afp+0, -0x1.ffa6c6ad20000p-5}, {0x1.0f5ee0f4e6bb3p+0, -0x1.dda8d4a774000p-5},
    {0x1.0e4065d2a9fcep+0, -0x1.bbcece4850000p-5}, {0x1.0d244632ca521p+0, -0x1.9a1894012c000p-5},
    {0x1.0c0a77ce2981ap+0, -0x1.788583302c000p-5}, {0x1.0af2f83c636d1p+0, -0x1.5715e67d68000p-5},
    {0x1.09ddb98a01339p+0, -0x1.35c8a49658000p-5}, {0x1.08cabaf52e7dfp+0, -0x1.149e364154000p-5},
    {0x1.07b9f2f4e28fbp+0, -0x1.e72c082eb8000p-6}, {0x1.06ab58c358f19p+0, -0x1.a55f152528000p-6},
    {0x1.059eea5ecf92cp+0, -0x1.63d62cf818000p-6}, {0x1.04949cdd12c90p+0, -0x1.228fb8caa0000p-6},
    {0x1.038c6c6f0ada9p+0, -0x1.c317b20f90000p-7}, {0x1.02865137932a9p+0, -0x1.419355daa0000p-7},
    {0x1.0182427ea7348p+0, -0x1.81203c2ec0000p-8}, {0x1.008040614b195p+0, -0x1.0040979240000p-9},
    {0x1.fe01ff726fa1ap-1, 0x1.feff384900000p-9}, {0x1.fa11cc261ea74p-1, 0x1.7dc41353d0000p-7},
    {0x1.f6310b081992ep-1, 0x1.3cea3c4c28000p-6}, {0x1.f25f63ceeadcdp-1, 0x1.b9fc114890000p-6},
    {0x1.ee9c8039113e7p-1, 0x1.1b0d8ce110000p-5}, {0x1.eae8078cbb1abp-1, 0x1.58a5bd001c000p-5},
    {0x1.e741aa29d0c9bp-1, 0x1.95c8340d88000p-5}, {0x1.e3a91830a99b5p-1, 0x1.d276aef578000p-5},
    {0x1.e01e009609a56p-1, 0x1.07598e598c000p-4}, {0x1.dca01e577bb98p-1, 0x1.253f5e30d2000p-4},
    {0x1.d92f20b7c9103p-1, 0x1.42edd8b380000p-4}, {0x1.d5cac66fb5ccep-1, 0x1.606598757c000p-4},
    {0x1.d272caa5ede9dp-1, 0x1.7da76356a0000p-4}, {0x1.cf26e3e6b2ccdp-1, 0x1.9ab434e1c6000p-4},
    {0x1.cbe6da2a77902p-1, 0x1.b78c7bb0d6000p-4}, {0x1.c8b266d37086dp-1, 0x1.d431332e72000p-4},
    {0x1.c5894bd5d5804p-1, 0x1.f0a3171de6000p-4}, {0x1.c26b533bb9f8cp-1, 0x1.067152b914000p-3},
    {0x1.bf583eeece73fp-1, 0x1.147858292b000p-3}, {0x1.bc4fd75db96c1p-1, 0x1.2266ecdca3000p-3},
    {0x1.b951e0c864a28p-1, 0x1.303d7a6c55000p-3}, {0x1.b65e2c5ef3e2cp-1, 0x1.3dfc33c331000p-3},
    {0x1.b374867c9888bp-1, 0x1.4ba366b7a8000p-3}, {0x1.b094b211d304ap-1, 0x1.5933928d1f000p-3},
    {0x1.adbe885f2ef7ep-1, 0x1.66acd2418f000p-3}, {0x1.aaf1d31603da2p-1, 0x1.740f8ec669000p-3},
    {0x1.a82e63fd358a7p-1, 0x1.815c0f51af000p-3}, {0x1.a5740ef09738bp-1, 0x1.8e92954f68000p-3},
    {0x1.a2c2a90ab4b27p-1, 0x1.9bb3602f84000p-3}, {0x1.a01a01393f2d1p-1, 0x1.a8bed1c2c0000p-3},
    {0x1.9d79f24db3c1bp-1, 0x1.b5b515c01d000p-3}, {0x1.9ae2505c7b190p-1, 0x1.c2967ccbcc000p-3},
    {0x1.9852ef297ce2fp-1, 0x1.cf635d5486000p-3}, {0x1.95cbaeea44b75p-1, 0x1.dc1bd3446c000p-3},
    {0x1.934c69de74838p-1, 0x1.e8c01b8cfe000p-3}, {0x1.90d4f2f6752e6p-1, 0x1.f5509c0179000p-3},
    {0x1.8e6528effd79dp-1, 0x1.00e6c121fb800p-2}, {0x1.8bfce9fcc007cp-1, 0x1.071b80e93d000p-2},
    {0x1.899c0dabec30ep-1, 0x1.0d46b9e867000p-2}, {0x1.87427aa2317fbp-1, 0x1.13687334bd000p-2},
    {0x1.84f00acb39a08p-1, 0x1.1980d67234800p-2}, {0x1.82a49e8653e55p-1, 0x1.1f8ffe0cc8000p-2},
    {0x1.8060195f40260p-1, 0x1.2595fd7636800p-2}, {0x1.7e22563e0a329p-1, 0x1.2b9300914a800p-2},
    {0x1.7beb377dcb5adp-1, 0x1.3187210436000p-2}, {0x1.79baa679725c2p-1, 0x1.377266dec1800p-2},
    {0x1.77907f2170657p-1, 0x1.3d54ffbaf3000p-2}, {0x1.756cadbd6130cp-1, 0x1.432eee32fe000p-2},
};
#if defined(__CUDACC__)
__device__ const DeviceTable<LogEntry, 128> kLogTab_dev = device_table(kLogTab);
#endif
inline constexpr double kLogLn2hi = 0x1.62e42fefa3800p-1, kLogLn2lo = 0x1.ef35793c76730p-45;
// __log_data.poly (the leading coefficient 1 implicit) and poly1 (near 1).
inline constexpr double kLogA[5] = {-0x1.0000000000001p-1, 0x1.555555551305bp-2, -0x1.fffffffeb459p-3,
                                    0x1.999b324f10111p-3, -0x1.55575e506c89fp-3};
#if defined(__CUDACC__)
__device__ const DeviceTable<double, 5> kLogA_dev = device_table(kLogA);
#endif
inline constexpr double kLogB[11] = {-0x1p-1,
                                     0x1.5555555555577p-2,
                                     -0x1.ffffffffffdcbp-3,
                                     0x1.999999995dd0cp-3,
                                     -0x1.55555556745a7p-3,
                                     0x1.24924a344de3p-3,
                                     -0x1.fffffa4423d65p-4,
                                     0x1.c7184282ad6cap-4,
                                     -0x1.999eb43b068ffp-4,
                                     0x1.78182f7afd085p-4,
                                     -0x1.5521375d145cdp-4};
#if defined(__CUDACC__)
__device__ const DeviceTable<double, 11> kLogB_dev = device_table(kLogB);
#endif

// log(x) for x > 0 finite, as __log_fma. Near 1 (|x - 1| < 0x1.09p-4) a
// polynomial in r = x - 1 plus the exact split of r^2/2; elsewhere the table.
XRNG_HD inline double glibc_log(double x) {
  uint64_t ix = d2u(x);
  constexpr uint64_t lo1 = 0x3fee000000000000ull;  // asuint64(1.0 - 0x1p-4)
  constexpr uint64_t hi1 = 0x3ff1090000000000ull;  // asuint64(1.0 + 0x1.09p-4)
  if (ix - lo1 < hi1 - lo1) {
    if (ix == 0x3ff0000000000000ull) return 0.0;
    const double* B = XRNG_TAB(kLogB);
    const double r = x - 1.0, r2 = r * r, r3 = r * r2;
    // y = r3 (B1 + r B2 + r2 B3 + r3 (B4 + r B5 + r2 B6 + r3 (B7 + r B8 + r2 B9 + r3 B10))),
    // each "+ a b" one fused step, left to right.
    const double p7 = std::fma(r3, B[10], std::fma(r2, B[9], std::fma(r, B[8], B[7])));
    const double p4 = std::fma(r3, p7, std::fma(r2, B[6], std::fma(r, B[5], B[4])));
    const double p1 = std::fma(r3, p4, std::fma(r2, B[3], std::fma(r, B[2], B[1])));
    // r = rhi + rlo with rhi's 26 high bits (w = r 2^27 is exact, so GCC's
    // fusing of r + w and of w into hi/lo changes nothing there).
    const double w0 = r * 0x1p27;
    const double rhi = r + w0 - w0;
    const double rlo = r - rhi;
    const double m = rhi * rhi;  // w = m B0, exact (B0 = -1/2)
    const double hi = std::fma(m, B[0], r);
    double lo = std::fma(m, B[0], r - hi);
    lo = std::fma(B[0] * rlo, rhi + r, lo);
    // y = r3 p1; y += lo; y += hi: GCC fuses the product into the first sum.
    return std::fma(r3, p1, lo) + hi;
  }
  const uint32_t top = static_cast<uint32_t>(ix >> 48);
  if (top - 0x0010u >= 0x7ff0u - 0x0010u) {
    if (ix * 2 == 0) return -INFINITY;
    if (ix == 0x7ff0000000000000ull) return x;
    if ((top & 0x8000u) || (top & 0x7ff0u) == 0x7ff0u) return NAN;
    ix = d2u(x * 0x1p52);  // subnormal: normalise
    ix -= 52ull << 52;
  }
  constexpr uint64_t off = 0x3fe6000000000000ull;
  const uint64_t tmp = ix - off;
  const int i = static_cast<int>((tmp >> (52 - 7)) % 128);
  const int k = static_cast<int>(static_cast<int64_t>(tmp) >> 52);
  const uint64_t iz = ix - (tmp & (0xfffull << 52));
  const double invc = XRNG_TAB(kLogTab)[i].invc, logc = XRNG_TAB(kLogTab)[i].logc;
  const double z = u2d(iz);
  const double r = std::fma(z, invc, -1.0);
  const double kd = static_cast<double>(k);
  const double w = std::fma(kd, kLogLn2hi, logc);
  const double hi = w + r;
  const double lo = std::fma(kd, kLogLn2lo, w - hi + r);
  const double r2 = r * r;
  const double* A = XRNG_TAB(kLogA);
  // y = lo + r2 A0 + r r2 (A1 + r A2 + r2 (A3 + r A4)) + hi
  const double p = std::fma(r2, std::fma(r, A[4], A[3]), std::fma(r, A[2], A[1]));
  const double y = std::fma(r * r2, p, std::fma(r2, A[0], lo));
  return y + hi;
}

// ---- exp (e_exp.c, FMA build) ------------------------------------------------------------------

// __exp_data.tab: for k < 128, tab[2k] the bits of the tail T[k], tab[2k+1]
// those of 2^(k/128) less k << 45.
inline constexpr uint64_t kExpTab[256] = {
    0x0ull, 0x3ff0000000000000ull, 0x3c9b3b4f1a88bf6eull, 0x3feff63da9fb3335ull,
    0xbc7160139cd8dc5dull, 0x3fefec9a3e778061ull, 0xbc905e7a108766d1ull, 0x3fefe315e86e7f85ull,
    0x3c8cd2523567f613ull, 0x3fefd9b0d3158574ull, 0xbc8bce8023f98efaull, 0x3fefd06b29ddf6deull,
    0x3c60f74e61e6c861ull, 0x3fefc74518759bc8ull, 0x3c90a3e45b33d399ull, 0x3fefbe3ecac6f383ull,
    0x3c979aa65d837b6dull, 0x3fefb5586cf9890full, 0x3c8eb51a92fdeffcull, 0x3fefac922b7247f7ull,
    0x3c3ebe3d702f9cd1ull, 0x3fefa3ec32d3d1a2ull, 0xbc6a033489906e0bull, 0x3fef9b66affed31bull,
    0xbc9556522a2fbd0eull, 0x3fef9301d0125b51ull, 0xbc5080ef8c4eea55ull, 0x3fef8abdc06c31ccull,
    0xbc91c923b9d5f416ull, 0x3fef829aaea92de0ull, 0x3c80d3e3e95c55afull, 0x3fef7a98c8a58e51ull,
    0xbc801b15eaa59348ull, 0x3fef72b83c7d517bull, 0xbc8f1ff055de323dull, 0x3fef6af9388c8deaull,
    0x3c8b898c3f1353bfull, 0x3fef635beb6fcb75ull, 0xbc96d99c7611eb26ull, 0x3fef5be084045cd4ull,
    0x3c9aecf73e3a2f60ull, 0x3fef54873168b9aaull, 0xbc8fe782cb86389dull, 0x3fef4d5022fcd91dull,
    0x3c8a6f4144a6c38dull, 0x3fef463b88628cd6ull, 0x3c807a05b0e4047dull, 0x3fef3f49917ddc96ull,
    0x3c968efde3a8a894ull, 0x3fef387a6e756238ull, 0x3c875e18f274487dull, 0x3fef31ce4fb2a63full,
    0x3c80472b981fe7f2ull, 0x3fef2b4565e27cddull, 0xbc96b87b3f71085eull, 0x3fef24dfe1f56381ull,
    0x3c82f7e16d09ab31ull, 0x3fef1e9df51fdee1ull, 0xbc3d219b1a6fbffaull, 0x3fef187fd0dad990ull,
    0x3c8b3782720c0ab4ull, 0x3fef1285a6e4030bull, 0x3c6e149289cecb8full, 0x3fef0cafa93e2f56ull,
    0x3c834d754db0abb6ull, 0x3fef06fe0a31b715ull, 0x3c864201e2ac744cull, 0x3fef0170fc4cd831ull,
    0x3c8fdd395dd3f84aull, 0x3feefc08b26416ffull, 0xbc86a3803b8e5b04ull, 0x3feef6c55f929ff1ull,
    0xbc924aedcc4b5068ull, 0x3feef1a7373aa9cbull, 0xbc9907f81b512d8eull, 0x3feeecae6d05d866ull,
    0xbc71d1e83e9436d2ull, 0x3feee7db34e59ff7ull, 0xbc991919b3ce1b15ull, 0x3feee32dc313a8e5ull,
    0x3c859f48a72a4c6dull, 0x3feedea64c123422ull, 0xbc9312607a28698aull, 0x3feeda4504ac801cull,
    0xbc58a78f4817895bull, 0x3feed60a21f72e2aull, 0xbc7c2c9b67499a1bull, 0x3feed1f5d950a897ull,
    0x3c4363ed60c2ac11ull, 0x3feece086061892dull, 0x3c9666093b0664efull, 0x3feeca41ed1d0057ull,
    0x3c6ecce1daa10379ull, 0x3feec6a2b5c13cd0ull, 0x3c93ff8e3f0f1230ull, 0x3feec32af0d7d3deull,
    0x3c7690cebb7aafb0ull, 0x3feebfdad5362a27ull, 0x3c931dbdeb54e077ull, 0x3feebcb299fddd0dull,
    0xbc8f94340071a38eull, 0x3feeb9b2769d2ca7ull, 0xbc87deccdc93a349ull, 0x3feeb6daa2cf6642ull,
    0xbc78dec6bd0f385full, 0x3feeb42b569d4f82ull, 0xbc861246ec7b5cf6ull, 0x3feeb1a4ca5d920full,
    0x3c93350518fdd78eull, 0x3feeaf4736b527daull, 0x3c7b98b72f8a9b05ull, 0x3feead12d497c7fdull,
    0x3c9063e1e21c5409ull, 0x3feeab07dd485429ull, 0x3c34c7855019c6eaull, 0x3feea9268a5946b7ull,
    0x3c9432e62b64c035ull, 0x3feea76f15ad2148ull, 0xbc8ce44a6199769full, 0x3feea5e1b976dc09ull,
    0xbc8c33c53bef4da8ull, 0x3feea47eb03a5585ull, 0xbc845378892be9aeull, 0x3feea34634ccc320ull,
    0xbc93cedd78565858ull, 0x3feea23882552225ull, 0x3c5710aa807e1964ull, 0x3feea155d44ca973ull,
    0xbc93b3efbf5e2228ull, 0x3feea09e667f3bcdull, 0xbc6a12ad8734b982ull, 0x3feea012750bdabfull,
    0xbc6367efb86da9eeull, 0x3fee9fb23c651a2full, 0xbc80dc3d54e08851ull, 0x3fee9f7df9519484ull,
    0xbc781f647e5a3ecfull, 0x3fee9f75e8ec5f74ull, 0xbc86ee4ac08b7db0ull, 0x3fee9f9a48a58174ull,
    0xbc8619321e55e68aull, 0x3fee9feb564267c9ull, 0x3c909ccb5e09d4d3ull, 0x3feea0694fde5d3full,
    0xbc7b32dcb94da51dull, 0x3feea11473eb0187ull, 0x3c94ecfd5467c06bull, 0x3feea1ed0130c132ull,
    0x3c65ebe1abd66c55ull, 0x3feea2f336cf4e62ull, 0xbc88a1c52fb3cf42ull, 0x3feea427543e1a12ull,
    0xbc9369b6f13b3734ull, 0x3feea589994cce13ull, 0xbc805e843a19ff1eull, 0x3feea71a4623c7adull,
    0xbc94d450d872576eull, 0x3feea8d99b4492edull, 0x3c90ad675b0e8a00ull, 0x3feeaac7d98a6699ull,
    0x3c8db72fc1f0eab4ull, 0x3feeace5422aa0dbull, 0xbc65b6609cc5e7ffull, 0x3feeaf3216b5448cull,
    0x3c7bf68359f35f44ull, 0x3feeb1ae99157736ull, 0xbc93091fa71e3d83ull, 0x3feeb45b0b91ffc6ull,
    0xbc5da9b88b6c1e29ull, 0x3feeb737b0cdc5e5ull, 0xbc6c23f97c90b959ull, 0x3feeba44cbc8520full,
    0xbc92434322f4f9aaull, 0x3feebd829fde4e50ull, 0xbc85ca6cd7668e4bull, 0x3feec0f170ca07baull,
    0x3c71affc2b91ce27ull, 0x3feec49182a3f090ull, 0x3c6dd235e10a73bbull, 0x3feec86319e32323ull,
    0xbc87c50422622263ull, 0x3feecc667b5de565ull, 0x3c8b1c86e3e231d5ull, 0x3feed09bec4a2d33ull,
    0xbc91bbd1d3bcbb15ull, 0x3feed503b23e255dull, 0x3c90cc319cee31d2ull, 0x3feed99e1330b358ull,
    0x3c8469846e735ab3ull, 0x3feede6b5579fdbfull, 0xbc82dfcd978e9db4ull, 0x3feee36bbfd3f37aull,
    0x3c8c1a7792cb3387ull, 0x3feee89f995ad3adull, 0xbc907b8f4ad1d9faull, 0x3feeee07298db666ull,
    0xbc55c3d956dcaebaull, 0x3feef3a2b84f15fbull, 0xbc90a40e3da6f640ull, 0x3feef9728de5593aull,
    0xbc68d6f438ad9334ull, 0x3feeff76f2fb5e47ull, 0xbc91eee26b588a35ull, 0x3fef05b030a1064aull,
    0x3c74ffd70a5fddcdull, 0x3fef0c1e904bc1d2ull, 0xbc91bdfbfa9298acull, 0x3fef12c25bd71e09ull,
    0x3c736eae30af0cb3ull, 0x3fef199bdd85529cull, 0x3c8ee3325c9ffd94ull, 0x3fef20ab5fffd07aull,
    0x3c84e08fd10959acull, 0x3fef27f12e57d14bull, 0x3c63cdaf384e1a67ull, 0x3fef2f6d9406e7b5ull,
    0x3c676b2c6c921968ull, 0x3fef3720dcef9069ull, 0xbc808a1883ccb5d2ull, 0x3fef3f0b555dc3faull,
    0xbc8fad5d3ffffa6full, 0x3fef472d4a07897cull, 0xbc900dae3875a949ull, 0x3fef4f87080d89f2ull,
    0x3c74a385a63d07a7ull, 0x3fef5818dcfba487ull, 0xbc82919e2040220full, 0x3fef60e316c98398ull,
    0x3c8e5a50d5c192acull, 0x3fef69e603db3285ull, 0x3c843a59ac016b4bull, 0x3fef7321f301b460ull,
    0xbc82d52107b43e1full, 0x3fef7c97337b9b5full, 0xbc892ab93b470dc9ull, 0x3fef864614f5a129ull,
    0x3c74b604603a88d3ull, 0x3fef902ee78b3ff6ull, 0x3c83c5ec519d7271ull, 0x3fef9a51fbc74c83ull,
    0xbc8ff7128fd391f0ull, 0x3fefa4afa2a490daull, 0xbc8dae98e223747dull, 0x3fefaf482d8e67f1ull,
    0x3c8ec3bc41aa2008ull, 0x3fefba1bee615a27ull, 0x3c842b94c3a9eb32ull, 0x3fefc52b376bba97ull,
    0x3c8a64a931d185eeull, 0x3fefd0765b6e4540ull, 0xbc8e37bae43be3edull, 0x3fefdbfdad9cbe14ull,
    0x3c77893b4d91cd9dull, 0x3fefe7c1819e90d8ull, 0x3c5305c14160cc89ull, 0x3feff3c22b8f71f1ull,
};
#if defined(__CUDACC__)
__device__ const DeviceTable<uint64_t, 256> kExpTab_dev = device_table(kExpTab);
#endif
inline constexpr double kExpInvLn2N = 0x1.71547652b82fep0 * 128, kExpNegLn2hiN = -0x1.62e42fefa0000p-8,
                        kExpNegLn2loN = -0x1.cf79abc9e3b3ap-47, kExpShift = 0x1.8p52;
inline constexpr double kExpC2 = 0x1.ffffffffffdbdp-2, kExpC3 = 0x1.555555555543cp-3, kExpC4 = 0x1.55555cf172b91p-5,
                        kExpC5 = 0x1.1111167a4d017p-7;

// exp(x), as __exp_fma (Szabolcs Nagy's 2018 exp): x = k ln2/128 + r,
// exp(x) = 2^(k/128) exp(r), 2^(k/128) = scale (1 + tail) from the table,
// exp(r) - 1 a degree-5 polynomial; |x| >= 512 rescales to dodge overflow
// and underflow (there the product scale tmp is shared by two sums in
// different blocks, so GCC leaves it unfused).
XRNG_HD inline double glibc_exp(double x) {
  uint32_t abstop = static_cast<uint32_t>(d2u(x) >> 52) & 0x7ff;
  if (abstop - 0x3c9u >= 0x408u - 0x3c9u) {  // top12(0x1p-54), top12(512)
    if (abstop - 0x3c9u >= 0x80000000u) return 1.0 + x;  // |x| < 2^-54
    if (abstop >= 0x409u) {  // |x| >= 1024
      if (d2u(x) == d2u(-INFINITY)) return 0.0;
      if (abstop >= 0x7ffu) return 1.0 + x;
      return (d2u(x) >> 63) ? 0.0 : INFINITY;
    }
    abstop = 0;  // large |x|: special-cased below
  }
  const double kd0 = std::fma(kExpInvLn2N, x, kExpShift);
  const uint64_t ki = d2u(kd0);
  const double kd = kd0 - kExpShift;
  const double r = std::fma(kd, kExpNegLn2loN, std::fma(kd, kExpNegLn2hiN, x));
  const uint64_t idx = 2 * (ki % 128);
  const uint64_t top = ki << 45;
  const double tail = u2d(XRNG_TAB(kExpTab)[idx]);
  uint64_t sbits = XRNG_TAB(kExpTab)[idx + 1] + top;
  const double r2 = r * r;
  // tmp = tail + r + r2 (C2 + r C3) + r2 r2 (C4 + r C5)
  const double tmp = std::fma(r2 * r2, std::fma(r, kExpC5, kExpC4), std::fma(r2, std::fma(r, kExpC3, kExpC2), tail + r));
  if (abstop != 0) {
    const double scale = u2d(sbits);
    return std::fma(scale, tmp, scale);
  }
  if ((ki & 0x80000000u) == 0) {  // k > 0: the scale's exponent may have overflowed by <= 460
    sbits -= 1009ull << 52;
    const double scale = u2d(sbits);
    return 0x1p1009 * std::fma(scale, tmp, scale);
  }
  sbits += 1022ull << 52;  // k < 0: round once before scaling into the subnormals
  const double scale = u2d(sbits);
  const double st = scale * tmp;
  double y = scale + st;
  if (y < 1.0) {
    double lo = scale - y + st;
    const double hi = 1.0 + y;
    lo = 1.0 - hi + y + lo;
    y = (hi + lo) - 1.0;
    if (y == 0.0) y = 0.0;
  }
  return 0x1p-1022 * y;
}

// ---- log1p (s_log1p.c, FMA build) -----------------------------------------------------------------

inline constexpr double kL1pLn2hi = 6.93147180369123816490e-01, kL1pLn2lo = 1.90821492927058770002e-10;
inline constexpr double kL1pLp[8] = {0.0,
                                     6.666666666666735130e-01,
                                     3.999999999940941908e-01,
                                     2.857142874366239149e-01,
                                     2.222219843214978396e-01,
                                     1.818357216161805012e-01,
                                     1.531383769920937332e-01,
                                     1.479819860511658591e-01};

// log1p(x) for x > -1 finite (and -1: -inf), as __log1p_fma.
inline double glibc_log1p(double x) {
  const int32_t hx = static_cast<int32_t>(hi_word(x));
  const int32_t ax = hx & 0x7fffffff;
  int32_t k = 1, hu = 0;
  double f = 0.0, c = 0.0;
  if (hx < 0x3FDA827A) {  // x < 0.41422
    if (ax >= 0x3ff00000) return x == -1.0 ? -INFINITY : NAN;
    if (ax < 0x3e200000) {  // |x| < 2^-29
      if (ax < 0x3c900000) return x;
      return std::fma(-(x * x), 0.5, x);  // x - x*x*0.5
    }
    if (hx > 0 || hx <= static_cast<int32_t>(0xbfd2bec3u)) {  // -0.2929 < x < 0.41422
      k = 0;
      f = x;
      hu = 1;
    }
  } else if (hx >= 0x7ff00000) {
    return x + x;
  }
  if (k != 0) {
    double u;
    if (hx < 0x43400000) {
      u = 1.0 + x;
      hu = static_cast<int32_t>(hi_word(u));
      k = (hu >> 20) - 1023;
      c = (k > 0) ? 1.0 - (u - x) : x - (u - 1.0);  // the rounding error of 1 + x
      c /= u;
    } else {
      u = x;
      hu = static_cast<int32_t>(hi_word(u));
      k = (hu >> 20) - 1023;
      c = 0;
    }
    hu &= 0x000fffff;
    if (hu < 0x6a09e) {
      u = with_hi_word(u, static_cast<uint32_t>(hu) | 0x3ff00000u);  // u in [1, sqrt 2)
    } else {
      k += 1;
      u = with_hi_word(u, static_cast<uint32_t>(hu) | 0x3fe00000u);  // u/2
      hu = (0x00100000 - hu) >> 2;
    }
    f = u - 1.0;
  }
  const double hfsq = 0.5 * f * f;
  const double kd = static_cast<double>(k);
  if (hu == 0) {  // |f| < 2^-20
    if (f == 0.0) {
      if (k == 0) return 0.0;
      c = std::fma(kd, kL1pLn2lo, c);
      return std::fma(kd, kL1pLn2hi, c);
    }
    const double R = hfsq * std::fma(-0.66666666666666666, f, 1.0);
    if (k == 0) return f - R;
    return std::fma(kd, kL1pLn2hi, -((R - std::fma(kd, kL1pLn2lo, c)) - f));
  }
  const double* Lp = kL1pLp;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double z2 = z * z, z4 = z2 * z2, z6 = z4 * z2;
  const double R2 = std::fma(z, Lp[3], Lp[2]);
  const double R3 = std::fma(z, Lp[5], Lp[4]);
  const double R4 = std::fma(z, Lp[7], Lp[6]);
  // R = R1 + z2 R2 + z4 R3 + z6 R4 with R1 = z Lp1: GCC fuses R1 (the first
  // product) into the first sum, then z4 R3 and z6 R4 into the next two.
  const double R = std::fma(z6, R4, std::fma(z4, R3, std::fma(z, Lp[1], z2 * R2)));
  // s (hfsq + R) is shared by both returns, so computed once and unfused
  // (GCC fuses only a product whose every use is in its own block).
  const double m = s * (hfsq + R);
  if (k == 0) return f - (hfsq - m);
  return std::fma(kd, kL1pLn2hi, -((hfsq - (m + std::fma(kd, kL1pLn2lo, c))) - f));
}

// ---- sincos (s_sin.c / s_sincos.c, FMA build) --------------------------------------------------

// __sincostab: for x0 = i/128, i < 110: sin x0 (hi, lo), cos x0 (hi, lo).
inline constexpr double kSincosTab[440] = {
    0x0.0p+0, 0x0.0p+0, 0x1.0000000000000p+0, 0x0.0p+0,
    0x1.fffeaaaaeeeefp-8, -0x1.e45e2ec67b77cp-62, 0x1.fffc000155552p-1, 0x1.f4a01a0196daep-55,
    0x1.fffaaaaeeeed5p-7, -0x1.2ab639a9f0777p-63, 0x1.fff000155549fp-1, 0x1.28a28a03a5ef3p-55,
    0x1.7ff7001033255p-6, 0x1.efe2b51527336p-64, 0x1.ffdc006bff7e6p-1, 0x1.ae6dae86977bdp-55,
    0x1.ffeaaaeeee86fp-6, -0x1.cd406fb224ae2p-60, 0x1.ffc00155527d3p-1, -0x1.3b54492d89b5bp-55,
    0x1.3feb2b12d45d5p-5, 0x1.4ec54203d1c11p-60, 0x1.ff9c03414a7bap-1, 0x1.991f4be6c59bfp-57,
    0x1.7fdc01032fba9p-5, -0x1.599bdf46e997ap-59, 0x1.ff7006bfdf99fp-1, -0x1.8b3b560648d5fp-56,
    0x1.bfc6d78586dacp-5, 0x1.8e4fd03dbf236p-62, 0x1.ff3c0c8103a31p-1, 0x1.4856dbddc0e66p-56,
    0x1.ffaaaeeed4edbp-5, -0x1.2d16d32684b69p-59, 0x1.ff0015549f4d3p-1, 0x1.328387b99426fp-55,
    0x1.1fc343d808befp-4, -0x1.f3d32e6f3be4fp-58, 0x1.febc222a8ef9fp-1, 0x1.7934934f54c77p-58,
    0x1.3facb12d1755bp-4, -0x1.921915299468cp-58, 0x1.fe7034129ef6fp-1, -0x1.cbf4337c96f97p-57,
    0x1.5f911fd10b737p-4, -0x1.0184f02be9102p-58, 0x1.fe1c4c3c873ebp-1, -0x1.5a9c9057c4a02p-60,
    0x1.7f701032550e4p-4, 0x1.afc2d1800501ap-60, 0x1.fdc06bf7e6b9bp-1, 0x1.31902b535f8dbp-55,
    0x1.9f4902d55d1f9p-4, 0x1.2696d7eac1dc1p-58, 0x1.fd5c94b43e000p-1, -0x1.2e768cb4f92f9p-57,
    0x1.bf1b78568391dp-4, 0x1.e91841dea4cc8p-58, 0x1.fcf0c800e99b1p-1, 0x1.ea3d786d186acp-57,
    0x1.dee6f16c1cce6p-4, -0x1.50f8e2fb71673p-59, 0x1.fc7d078d1bc88p-1, 0x1.075d2447db685p-55,
    0x1.feaaeee86ee36p-4, -0x1.afcb2bcc6f03bp-59, 0x1.fc015527d5bd3p-1, 0x1.b68f35094efb8p-55,
    0x1.0f3378ddd71d1p-3, 0x1.d8468724f0f9ep-57, 0x1.fb7db2bfe0695p-1, 0x1.21dadf4f65ab1p-55,
    0x1.1f0d3d7afceafp-3, -0x1.6ef95099769a5p-57, 0x1.faf22263c4bd3p-1, -0x1.52ace133a2769p-58,
    0x1.2ee285e4ab88fp-3, -0x1.e4d0f05dee058p-57, 0x1.fa5ea641c36f2p-1, 0x1.04da6ed17cc7cp-59,
    0x1.3eb312c5d66cbp-3, 0x1.47d666b66cb91p-57, 0x1.f9c340a7cc428p-1, 0x1.c5b6b063b7462p-55,
    0x1.4e7ea4dc5f27bp-3, 0x1.949db2ac072fcp-58, 0x1.f91ff40374d01p-1, -0x1.7d03f4d3a9e4cp-57,
    0x1.5e44fcfa126f3p-3, -0x1.6f443063f89b6p-57, 0x1.f874c2e1eecf6p-1, -0x1.c6514e1332b16p-55,
    0x1.6e05dc05a4d4cp-3, -0x1.32c5c8b81c940p-66, 0x1.f7c1afeffde24p-1, -0x1.8f55bc47540b1p-56,
    0x1.7dc102fbaf2b5p-3, 0x1.5ab50e23c97c3p-59, 0x1.f706bdf9ece1cp-1, -0x1.698c80c36dcb4p-55,
    0x1.8d7632efaa944p-3, -0x1.20fa262cbb953p-57, 0x1.f643efeb82acdp-1, 0x1.6b00ac1fe28acp-56,
    0x1.9d252d0cec312p-3, 0x1.9c43d80b1137dp-58, 0x1.f57948cff6797p-1, 0x1.e3a0d3e03b1d5p-57,
    0x1.accdb297a0765p-3, -0x1.9883b57d6cdebp-58, 0x1.f4a6cbd1e3a79p-1, 0x1.13df0edaebb57p-55,
    0x1.bc6f84edc6199p-3, 0x1.9c1a56a7b0cabp-57, 0x1.f3cc7c3b3d16ep-1, -0x1.21a3ad28a3494p-57,
    0x1.cc0a6588289a3p-3, -0x1.868d09bc87c6bp-57, 0x1.f2ea5d753ffedp-1, 0x1.cc4215f56d583p-55,
    0x1.db9e15fb5a5d0p-3, -0x1.32e20d6cc6fc2p-57, 0x1.f20073086649fp-1, 0x1.b940416c1984bp-56,
    0x1.eb2a57f8ae5a3p-3, -0x1.0be06af572cebp-57, 0x1.f10ec09c5873bp-1, 0x1.d9072762c1283p-55,
    0x1.faaeed4f31577p-3, -0x1.15d88508e32b8p-57, 0x1.f01549f7deea1p-1, 0x1.d3c1e99e5cafdp-55,
    0x1.0515cbf65155cp-2, -0x1.9b8c29dfd8ec8p-56, 0x1.ef141300d2f26p-1, -0x1.2aa1b08ded372p-55,
    0x1.0cd00cef36436p-2, -0x1.9fb0a0c93e2b5p-56, 0x1.ee0b1fbc0f11cp-1, -0x1.bfd2380bbc3b1p-59,
    0x1.14861aa94ddebp-2, -0x1.be881b5b615a4p-57, 0x1.ecfa744d5efa1p-1, -0x1.56d0a4af541d0p-58,
    0x1.1c37d64c6b876p-2, 0x1.46076fe0dcff5p-56, 0x1.ebe214f76efa8p-1, -0x1.02f9f12ba543ep-55,
    0x1.23e52111aaf36p-2, -0x1.4f080334eff18p-56, 0x1.eac2061bbaf4fp-1, 0x1.2c1d53e94658dp-57,
    0x1.2b8ddc43eb49fp-2, 0x1.1553899f2d807p-57, 0x1.e99a4c3a7cd83p-1, -0x1.2264b1bc53ce8p-55,
    0x1.3331e94049f87p-2, 0x1.e0cb6b40c302cp-56, 0x1.e86aebf29a9edp-1, 0x1.9397afdbb58a7p-55,
    0x1.3ad129769d3d8p-2, 0x1.03d5504878398p-63, 0x1.e733ea0193d40p-1, -0x1.6428b3546ce13p-55,
    0x1.426b7e69ee697p-2, -0x1.f09c75705c59fp-56, 0x1.e5f54b436e9d0p-1, 0x1.7eb0fd02fc8bcp-55,
    0x1.4a00c9b0f3d20p-2, 0x1.823ba6bb08eadp-56, 0x1.e4af14b2a449cp-1, -0x1.68ca02e8a6833p-55,
    0x1.5190ecf68a77ap-2, 0x1.b357155eef0f3p-56, 0x1.e3614b680d6a5p-1, -0x1.27793aa015237p-56,
    0x1.591bc9fa2f597p-2, 0x1.7c74bac3fe0cbp-57, 0x1.e20bf49acd6c1p-1, -0x1.660aec7ef636cp-58,
    0x1.60a1429078775p-2, 0x1.b1fd80ba89133p-58, 0x1.e0af15a03dbcep-1, 0x1.fe8e702771ae6p-58,
    0x1.682138a38d7f7p-2, -0x1.d889202444aadp-56, 0x1.df4ab3ebd875ep-1, -0x1.e2d8a7e6736c4p-55,
    0x1.6f9b8e33a0255p-2, 0x1.42bc14ee9da0dp-56, 0x1.ddded50f228d6p-1, -0x1.e80c8d42ba2bfp-57,
    0x1.7710255764214p-2, -0x1.6ead7314bb6cep-57, 0x1.dc6b7eb995912p-1, 0x1.4b364776dcd35p-58,
    0x1.7e7ee03c86d4ep-2, -0x1.b63bcdabf5af2p-56, 0x1.daf0b6b888e83p-1, 0x1.a249e2b5e5ceap-55,
    0x1.85e7a12826949p-2, 0x1.8a40e9b5face0p-56, 0x1.d96e82f71a9dcp-1, 0x1.ff61bd5d2039dp-55,
    0x1.8d4a4a774992fp-2, 0x1.44a02ea766326p-56, 0x1.d7e4e97e17b4ap-1, -0x1.3b770352bed94p-57,
    0x1.94a6be9f546c5p-2, -0x1.69ce13e683f58p-56, 0x1.d653f073e4040p-1, -0x1.76236434bec37p-55,
    0x1.9bfce02e80510p-2, 0x1.09e39a320b0a4p-56, 0x1.d4bb9e1c619e0p-1, 0x1.f34bb77858f61p-55,
    0x1.a34c91cc50ccap-2, -0x1.a310e3b50cecdp-58, 0x1.d31bf8d8d7c06p-1, 0x1.e60dd3089cbddp-56,
    0x1.aa95b63a09277p-2, -0x1.6293eb13c0381p-57, 0x1.d1750727d94f0p-1, 0x1.0d52b1ec1a48ep-55,
    0x1.b1d8305321617p-2, -0x1.ae242cb99f519p-56, 0x1.cfc6cfa52ad9fp-1, 0x1.8b5b5508f2a0dp-55,
    0x1.b913e30dbac43p-2, -0x1.e38ad2f6c3ff1p-56, 0x1.ce115909a82e5p-1, 0x1.1f139bb31109ap-55,
    0x1.c048b17b140a3p-2, 0x1.19fe6757e9fa7p-57, 0x1.cc54aa2b2972ep-1, 0x1.4ee162ba83a98p-57,
    0x1.c7767ec7fd19ep-2, -0x1.eb14d1a3d5826p-58, 0x1.ca90c9fc67d0bp-1, -0x1.46a81485e3462p-57,
    0x1.ce9d2e3d4a51fp-2, -0x1.2fc8a12dae298p-57, 0x1.c8c5bf8ce1a84p-1, 0x1.ab3d1a1590123p-56,
    0x1.d5bca34047661p-2, 0x1.28a44a75fc29cp-56, 0x1.c6f39208be53bp-1, -0x1.741dbfbaadb42p-55,
    0x1.dcd4c15329c9ap-2, 0x1.0d4c6e171fd9ap-56, 0x1.c51a48b8b175ep-1, -0x1.1bbb43b9aa880p-57,
    0x1.e3e56c1582a69p-2, -0x1.0a4821099f88fp-58, 0x1.c339eb01ddd81p-1, -0x1.caaf5ee82c5c0p-55,
    0x1.eaee8744b05f0p-2, -0x1.789b43c9b027dp-58, 0x1.c1528065b7d50p-1, -0x1.892111312e828p-55,
    0x1.f1eff6bc4f97bp-2, 0x1.17212f8a7525cp-56, 0x1.bf641081e7536p-1, 0x1.b7bd71628a9a1p-55,
    0x1.f8e99e76abc97p-2, 0x1.9d950af2d00a3p-58, 0x1.bd6ea310294f5p-1, 0x1.31bbcc88c109dp-56,
    0x1.ffdb628d2f57ap-2, 0x1.f4a992e905b6ap-57, 0x1.bb723fe630f32p-1, 0x1.72bd2452d0a39p-56,
    0x1.0362939c69955p-1, -0x1.2d8cd78397b01p-55, 0x1.b96eeef58840ep-1, 0x1.45a3cc78fade0p-58,
    0x1.06d3686946e5bp-1, 0x1.3f5ae4538ff1bp-55, 0x1.b764b84b704c2p-1, -0x1.f5848c21b389bp-55,
    0x1.0a4021e9e1001p-1, -0x1.6f643a13914f6p-55, 0x1.b553a410c104ep-1, 0x1.8ff7947027a16p-58,
    0x1.0da8b26b5672ep-1, -0x1.a58def0bee909p-55, 0x1.b33bba89c8948p-1, 0x1.ea6a51d1f6ca9p-55,
    0x1.110d0c4b69c3bp-1, 0x1.d918998809981p-55, 0x1.b11d04162a4c6p-1, 0x1.1dd561efbc0c2p-56,
    0x1.146d21f8b7f82p-1, 0x1.bf9535e2739a8p-56, 0x1.aef78930bd275p-1, -0x1.f836279746f94p-56,
    0x1.17c8e5f2eedb0p-1, 0x1.35e57102e2488p-57, 0x1.accb526f69de5p-1, 0x1.8fb6a8dd6b6ccp-55,
    0x1.1b204acb02fddp-1, -0x1.f190c70cbb5ffp-58, 0x1.aa98688308913p-1, -0x1.b83d607cd5070p-63,
    0x1.1e7343236574cp-1, 0x1.22a3fa4f41d5ap-56, 0x1.a85ed4373e02dp-1, 0x1.9be06385ec792p-57,
    0x1.21c1c1b0394cfp-1, 0x1.e5b324b23aa31p-58, 0x1.a61e9e72586afp-1, 0x1.58330e2fd453fp-55,
    0x1.250bb93788bbbp-1, 0x1.ea3d02457bccep-56, 0x1.a3d7d0352bdcfp-1, -0x1.68dbaeca19669p-55,
    0x1.28511c917a067p-1, -0x1.01df1d9a16b70p-55, 0x1.a18a729aee445p-1, 0x1.95e25736c0358p-60,
    0x1.2b91dea88421ep-1, -0x1.fa371db216ab0p-55, 0x1.9f368ed912f85p-1, -0x1.1d200c5791606p-55,
    0x1.2ecdf279a3082p-1, 0x1.d3557e0e7e37ep-55, 0x1.9cdc2e3f25e5cp-1, 0x1.3f99112993f62p-55,
    0x1.32054b148bc4fp-1, 0x1.f6b42095a135bp-55, 0x1.9a7b5a36a6514p-1, 0x1.722cfcc9fa7a9p-55,
    0x1.3537db9be0367p-1, 0x1.b327e7af040f0p-57, 0x1.98141c42e1310p-1, 0x1.d1ff80488f08dp-55,
    0x1.386597456282bp-1, -0x1.10fada93b07a8p-56, 0x1.95a67e00cb1fdp-1, -0x1.0befda21f862dp-55,
    0x1.3b8e715a2840ap-1, -0x1.97653a7d2f07bp-56, 0x1.93328926d9e92p-1, -0x1.bb77003600cdap-55,
    0x1.3eb25d36cd53ap-1, -0x1.be570e1570fc0p-58, 0x1.90b84784ddaf7p-1, -0x1.0feb10ab93b87p-56,
    0x1.41d14e4ba6790p-1, 0x1.4608fd287ecf5p-55, 0x1.8e37c303d9ad1p-1, -0x1.463a4b53d4bf8p-57,
    0x1.44eb381cf386bp-1, -0x1.3ed6c1e6a5505p-55, 0x1.8bb105a5dc900p-1, 0x1.863e03e9474c1p-55,
    0x1.48000e431159fp-1, -0x1.b194a7463ed10p-55, 0x1.89241985d871fp-1, 0x1.c48d9c413ed84p-55,
    0x1.4b0fc46aab761p-1, 0x1.0da05738cc59ap-61, 0x1.869108d77a6c6p-1, 0x1.338ffe2bfe9ddp-56,
    0x1.4e1a4e54ed51bp-1, -0x1.a492f89b7c76ap-55, 0x1.83f7dde701ca0p-1, -0x1.152cf609bc6e8p-59,
    0x1.511f9fd7b351cp-1, -0x1.5c0e861c48831p-55, 0x1.8158a31916d5dp-1, -0x1.de8b90b8228dep-57,
    0x1.541facddbb724p-1, 0x1.232c28520d391p-56, 0x1.7eb362eaa1488p-1, 0x1.a1d65a4a5959fp-58,
    0x1.571a6966d59b3p-1, 0x1.c843b4d0fb198p-58, 0x1.7c0827f09e54fp-1, -0x1.c73d6d72aee68p-57,
    0x1.5a0fc98813a12p-1, -0x1.d82e2b7d4227bp-55, 0x1.7956fcd7f6543p-1, -0x1.ab276e9d45ae4p-55,
    0x1.5cffc16bf8f0dp-1, 0x1.96cb370eb578ap-55, 0x1.769fec655211fp-1, -0x1.827d5cf8c68c5p-57,
    0x1.5fea4552a9e57p-1, 0x1.0b6cef7ee20b7p-55, 0x1.73e30174efba1p-1, -0x1.5d3ae3d94ad5fp-57,
    0x1.62cf49921ac79p-1, -0x1.edd9855b6241ap-55, 0x1.712046fa77678p-1, 0x1.425b0a5029c81p-55,
    0x1.65aec2963e755p-1, 0x1.126f96b71053cp-55, 0x1.6e57c800cf55ep-1, 0x1.60286dedbd0a6p-55,
    0x1.6888a4e134b2fp-1, -0x1.6b7d37644d5e6p-55, 0x1.6b898fa9efb5dp-1, 0x1.15ac786ccf4b2p-56,
    0x1.6b5ce50b7821ap-1, -0x1.5d5158f702e0fp-57, 0x1.68b5a92eb6253p-1, -0x1.9a91ad985f89cp-55,
    0x1.6e2b77c40bde1p-1, -0x1.0e729857fad53p-56, 0x1.65dc1fdeb8cbap-1, -0x1.97c1b47337c77p-58,
    0x1.70f451d0a8c40p-1, 0x1.97ede3885770dp-57, 0x1.62fcff20191c7p-1, 0x1.d9143895756efp-57,
    0x1.73b7680dea578p-1, -0x1.2248306dc12a2p-56, 0x1.6018526f563dfp-1, 0x1.46ca5e0e432d0p-55,
    0x1.7674af6f7b524p-1, 0x1.e9d3f94ac84a8p-56, 0x1.5d2e255f1f17ap-1, 0x1.0314104c8892bp-55,
    0x1.792c1d0041d52p-1, -0x1.abf05eeb354ebp-55, 0x1.5a3e839824077p-1, 0x1.428aa2759be62p-55,
    0x1.7bdda5e28b3c2p-1, 0x1.ad1197ccd0393p-59, 0x1.574978d8e83f2p-1, 0x1.f4714af282d23p-55,
    0x1.7e893f5037959p-1, 0x1.0eefbaa650c4cp-55, 0x1.544f10f592ca5p-1, -0x1.e7ae8e6c7a62fp-55,
    0x1.812ede9ae4ba4p-1, -0x1.7830adf402ddap-55, 0x1.514f57d7bf3dap-1, 0x1.47a108073c259p-56,
};
#if defined(__CUDACC__)
__device__ const DeviceTable<double, 440> kSincosTab_dev = device_table(kSincosTab);
#endif

inline constexpr double kSinS1 = -0x1.5555555555555p-3, kSinS2 = 0x1.1111111110ECEp-7,
                        kSinS3 = -0x1.A01A019DB08B8p-13, kSinS4 = 0x1.71DE27B9A7ED9p-19,
                        kSinS5 = -0x1.ADDFFC2FCDF59p-26;
inline constexpr double kSinBig = 0x1.8000000000000p45, kSinHp0 = 0x1.921FB54442D18p0,
                        kSinHp1 = 0x1.1A62633145C07p-54, kSinMp1 = 0x1.921FB58000000p0,
                        kSinMp2 = -0x1.DDE973C000000p-27, kSinPp3 = -0x1.CB3B398000000p-55,
                        kSinPp4 = -0x1.d747f23e32ed7p-83, kSinHpinv = 0x1.45F306DC9C883p-1,
                        kSinToint = 0x1.8000000000000p52;
inline constexpr double kSn3 = -1.66666666666664880952546298448555E-01, kSn5 = 8.33333214285722277379541354343671E-03,
                        kCs2 = 4.99999999999999999999950396842453E-01, kCs4 = -4.16666666666664434524222570944589E-02,
                        kCs6 = 1.38888874007937613028114285595617E-03;

// The table row nearest |x| (|x| < 0.86): big + |x| rounds |x| to a multiple
// of 1/128 whose index sits in the low word.
XRNG_HD inline const double* sincos_row(double ax, double* x0) {
  const double u = kSinBig + ax;
  *x0 = u - kSinBig;
  return XRNG_TAB(kSincosTab) + 4 * static_cast<int32_t>(lo_word(u));
}

// do_cos: cos(x + dx), |x| < 0.86.
XRNG_HD inline double sincos_do_cos(double x, double dx) {
  if (x < 0) dx = -dx;
  double x0;
  const double* t = sincos_row(std::fabs(x), &x0);
  x = std::fabs(x) - x0 + dx;
  const double xx = x * x;
  const double s = std::fma(x * xx, std::fma(xx, kSn5, kSn3), x);
  const double c = xx * std::fma(xx, std::fma(xx, kCs6, kCs4), kCs2);
  const double sn = t[0], ssn = t[1], cs = t[2], ccs = t[3];
  // cor = (ccs - s ssn - cs c) - sn s
  const double cor = std::fma(-sn, s, std::fma(-cs, c, std::fma(-s, ssn, ccs)));
  return cs + cor;
}

// do_sin: sin(x + dx), |x| < 0.86 (Taylor below 0.126, the table above).
XRNG_HD inline double sincos_do_sin(double x, double dx) {
  const double xold = x;
  if (std::fabs(x) < 0.126) {
    const double xx = x * x;
    // TAYLOR_SIN: x + ((P(xx) x - dx/2) xx + dx), P = s1 + xx (s2 + xx (s3 + ...)).
    double p = std::fma(kSinS5, xx, kSinS4);
    p = std::fma(p, xx, kSinS3);
    p = std::fma(p, xx, kSinS2);
    p = std::fma(p, xx, kSinS1);
    const double t = std::fma(std::fma(p, x, -(0.5 * dx)), xx, dx);
    return x + t;
  }
  if (x <= 0) dx = -dx;
  double x0;
  const double* t = sincos_row(std::fabs(x), &x0);
  x = std::fabs(x) - x0;
  const double xx = x * x;
  const double s = x + std::fma(x * xx, std::fma(xx, kSn5, kSn3), dx);
  const double c = std::fma(x, dx, xx * std::fma(xx, std::fma(xx, kCs6, kCs4), kCs2));
  const double sn = t[0], ssn = t[1], cs = t[2], ccs = t[3];
  // cor = (ssn + s ccs - sn c) + cs s
  const double cor = std::fma(cs, s, std::fma(-sn, c, std::fma(s, ccs, ssn)));
  return std::copysign(sn + cor, xold);
}

// sincos(x) for |x| < 105414350 (not NaN/inf), as __sincos_fma.
XRNG_HD inline void glibc_sincos(double x, double* sinx, double* cosx) {
  const uint32_t k = hi_word(x) & 0x7fffffffu;
  if (k < 0x400368fdu) {  // |x| < 2.426265
    if (k < 0x3e400000u) {  // |x| < 2^-27
      *sinx = x;
      *cosx = 1.0;
      return;
    }
    if (k < 0x3feb6000u) {  // |x| < 0.855469
      *sinx = sincos_do_sin(x, 0);
      *cosx = sincos_do_cos(x, 0);
      return;
    }
    const double y = kSinHp0 - std::fabs(x);  // pi/2 - |x| as a + da
    const double a = y + kSinHp1;
    const double da = (y - a) + kSinHp1;
    *sinx = std::copysign(sincos_do_cos(a, da), x);
    *cosx = sincos_do_sin(a, da);
    return;
  }
  // reduce_sincos: x - n pi/2 = a + da, pi/2 in four parts.
  const double t = std::fma(x, kSinHpinv, kSinToint);
  const double xn = t - kSinToint;
  const double y = std::fma(-xn, kSinMp2, std::fma(-xn, kSinMp1, x));
  const int n = static_cast<int>(lo_word(t) & 3u);
  const double t2 = std::fma(-xn, kSinPp3, y);
  double db = std::fma(-xn, kSinPp3, y - t2);
  double a = std::fma(-xn, kSinPp4, t2);
  db += std::fma(-xn, kSinPp4, t2 - a);
  double da = db;
  if (n == 1 || n == 2) {
    a = -a;
    da = -da;
  }
  double* ps = sinx;
  double* pc = cosx;
  if (n & 1) {  // (std::swap is host-only)
    double* const tmp = ps;
    ps = pc;
    pc = tmp;
  }
  *ps = sincos_do_sin(a, da);
  const double xx = sincos_do_cos(a, da);
  *pc = (n & 2) ? -xx : xx;
}

// ---- tan (s_tan.c, FMA build) ------------------------------------------------------------------

// utan.tbl's xfg[i] for i = 0..185 (the table's rows 16..201): x_i near
// (i + 16) / 256, then tan(x_i) and cot(x_i) (the fourth column, unused by
// the double-precision path, is left out).
inline constexpr uint64_t kTanXfg[186][3] = {
    {0x3fb000001e519d60ull, 0x3fb0055796c4e240ull, 0x402ff554628127b7ull},
    {0x3fb100001b1a7010ull, 0x3fb10668aab892b7ull, 0x402e12c7be3fdf74ull},
    {0x3fb200002505e350ull, 0x3fb2079bff547824ull, 0x402c65c5de853633ull},
    {0x3fb2fffffcdc4252ull, 0x3fb308f35eb16c68ull, 0x402ae5dae56be74full},
    {0x3fb3ffffe3ff849full, 0x3fb40a71154999ccull, 0x40298c43046b7352ull},
    {0x3fb4ffffedc9590full, 0x3fb50c17429bdd80ull, 0x4028538491b5d674ull},
    {0x3fb6000000ee83f7ull, 0x3fb60de7da80cc21ull, 0x40273724ef21a2a7ull},
    {0x3fb6ffffeb05ea41ull, 0x3fb70fe4b8c51beaull, 0x40263370fae562ffull},
    {0x3fb7ffffdc0515f7ull, 0x3fb812101db54498ull, 0x402545530e7eab5cull},
    {0x3fb8ffffe384d7abull, 0x3fb9146c2a8d3727ull, 0x40246a33fd57f3fdull},
    {0x3fb9ffffe4832347ull, 0x3fba16fad50e1050ull, 0x40239fe2c5537a96ull},
    {0x3fbb0000274540e3ull, 0x3fbb19be7ae68517ull, 0x4022e4813637e946ull},
    {0x3fbbfffffebf2e9bull, 0x3fbc1cb88369cd19ull, 0x4022367617aef223ull},
    {0x3fbd000023529045ull, 0x3fbd1febc11d7ef7ull, 0x4021945fb8e43d4eull},
    {0x3fbdffffd872a829ull, 0x3fbe23598ee4d6b7ull, 0x4020fd0c76195d5full},
    {0x3fbeffffff323b84ull, 0x3fbf2704ec9073e5ull, 0x40206f713020200full},
    {0x3fc000000ce79195ull, 0x3fc01577bc30cc61ull, 0x401fd549d6564a88ull},
    {0x3fc07fffee40e918ull, 0x3fc0978d8279ac01ull, 0x401edbb59294bc03ull},
    {0x3fc100000cc091fdull, 0x3fc119c544dfb2f7ull, 0x401df0bb067d8e18ull},
    {0x3fc180000d9936a1ull, 0x3fc19c1fb9085a4bull, 0x401d131a71ce3629ull},
    {0x3fc1ffffed5f3188ull, 0x3fc21e9dee74bf2dull, 0x401c41b6ff0cd655ull},
    {0x3fc2800005f06a51ull, 0x3fc2a141550b313full, 0x401b7b921702e6d2ull},
    {0x3fc2fffffe3d339eull, 0x3fc3240aa75f76dfull, 0x401abfc8fcb6409dull},
    {0x3fc37fffed888d6full, 0x3fc3a6fb13cc5db7ull, 0x401a0d8f8ed5320dull},
    {0x3fc4000002ca050dull, 0x3fc42a13e25776bbull, 0x4019642dfa84c2bcull},
    {0x3fc47ffff2531f5cull, 0x3fc4ad55deb73404ull, 0x4018c2fef86e9035ull},
    {0x3fc5000013774992ull, 0x3fc530c27d0ee307ull, 0x4018296c370caf35ull},
    {0x3fc57fffedddcb2dull, 0x3fc5b45a5db4347dull, 0x401796ee52190c0eull},
    {0x3fc5fffff41949a0ull, 0x3fc6381f13bf986aull, 0x40170b092d2255fdull},
    {0x3fc67ffff834d3a1ull, 0x3fc6bc118ec85952ull, 0x4016854c62cf2268ull},
    {0x3fc6fffffd9106eaull, 0x3fc74032f298f6f7ull, 0x401605511f4f84a9ull},
    {0x3fc780000f649a4full, 0x3fc7c4846ca53abcull, 0x40158ab94809d175ull},
    {0x3fc7ffffef06bbd8ull, 0x3fc84906df7d76adull, 0x4015152edd2b30a6ull},
    {0x3fc88000021c6334ull, 0x3fc8cdbbd965f986ull, 0x4014a46251b74296ull},
    {0x3fc8fffff38d0756ull, 0x3fc952a428e173c7ull, 0x4014380b17b59ebdull},
    {0x3fc98000104efca1ull, 0x3fc9d7c14644d23cull, 0x4013cfe5cb1eabd5ull},
    {0x3fca000009417b30ull, 0x3fca5d14096d76aaull, 0x40136bb4b3723db0ull},
    {0x3fca7fffeb1c23ecull, 0x3fcae29dab60288dull, 0x40130b3e783071d7ull},
    {0x3fcafffffb171c13ull, 0x3fcb685fa221a96bull, 0x4012ae4dd8c0747dull},
    {0x3fcb80000aba44beull, 0x3fcbee5aecdf241full, 0x401254b1c6fad63bull},
    {0x3fcc0000113d2a3eull, 0x3fcc7490b3e92543ull, 0x4011fe3c9a62c035ull},
    {0x3fcc7ffff49e00ceull, 0x3fccfb020f59eab0ull, 0x4011aac3e956a631ull},
    {0x3fcd000005f611abull, 0x3fcd81b089e6844eull, 0x40115a1ff391268dull},
    {0x3fcd800014764cebull, 0x3fce089d27debf0dull, 0x40110c2bfbc84740ull},
    {0x3fce000014bcea76ull, 0x3fce8fc916dbc820ull, 0x4010c0c5a00ca48eull},
    {0x3fce7ffffd7995bdull, 0x3fcf173588b50424ull, 0x401077ccbe02169aull},
    {0x3fcf00000cc35436ull, 0x3fcf9ee3fd21a40bull, 0x401031231ee7ffe8ull},
    {0x3fcf800001d1da33ull, 0x3fd0136ab7dbe15cull, 0x400fd95977d559e5ull},
    {0x3fd00000060c13b2ull, 0x3fd05785aaad4f18ull, 0x400f549e2675d182ull},
    {0x3fd0400003885492ull, 0x3fd09bc3660542d7ull, 0x400ed3e2df3f5fecull},
    {0x3fd08000052f5a13ull, 0x3fd0e0249a195045ull, 0x400e56f8fa68f2c8ull},
    {0x3fd0c00002ba1af5ull, 0x3fd124a9e2e7f24bull, 0x400dddb4bffe633full},
    {0x3fd0fffff76642c1ull, 0x3fd16953e162ffe6ull, 0x400d67ed0311d5d5ull},
    {0x3fd14000033602f0ull, 0x3fd1ae235f49508eull, 0x400cf57ab8708266ull},
    {0x3fd17ffffefd1a13ull, 0x3fd1f318db2a9ba1ull, 0x400c86398d11009eull},
    {0x3fd1bffff718365dull, 0x3fd238350c41e3acull, 0x400c1a06e02be47cull},
    {0x3fd1ffffff001e00ull, 0x3fd27d78b2f6395eull, 0x400bb0c1f2fe9a85ull},
    {0x3fd23ffffe425a6aull, 0x3fd2c2e4618faabeull, 0x400b4a4c190b18dfull},
    {0x3fd28000059ec1dbull, 0x3fd30878d8583884ull, 0x400ae6880cd82bc2ull},
    {0x3fd2c000000dd081ull, 0x3fd34e36affdb6d8ull, 0x400a855a5270fc15ull},
    {0x3fd2fffffc1dcd2bull, 0x3fd3941ea95875bcull, 0x400a26a8aa9502b6ull},
    {0x3fd33ffff6c0d4a0ull, 0x3fd3da31739845f5ull, 0x4009ca5a4d2573a0ull},
    {0x3fd3800006b16793ull, 0x3fd4206fdbc088f0ull, 0x400970579344e33aull},
    {0x3fd3c00007358fa3ull, 0x3fd466da6f23311dull, 0x4009188a5aa612eaull},
    {0x3fd3fffffc3b18cfull, 0x3fd4ad71e9282e6bull, 0x4008c2dd641e643dull},
    {0x3fd44000000dd2a8ull, 0x3fd4f4371fa3f2d1ull, 0x40086f3c6072f821ull},
    {0x3fd47ffffbb43713ull, 0x3fd53b2ab3ac333cull, 0x40081d943da56692ull},
    {0x3fd4bffffb113bf4ull, 0x3fd5824d6e8ed9c2ull, 0x4007cdd2a8add00full},
    {0x3fd4fffff7f087c9ull, 0x3fd5c9a007446496ull, 0x40077fe6444588ebull},
    {0x3fd54000088b3814ull, 0x3fd61123564125f9ull, 0x400733be6281a765ull},
    {0x3fd57ffff7d55966ull, 0x3fd658d7e194a5d5ull, 0x4006e94b73b47d1full},
    {0x3fd5c00008bf2490ull, 0x3fd6a0beb775b28dull, 0x4006a07e15b6ec28ull},
    {0x3fd6000009fa853full, 0x3fd6e8d865a66cfdull, 0x400659481c701269ull},
    {0x3fd6400007595fcaull, 0x3fd73125c0556a7cull, 0x4006139bbaae9d02ull},
    {0x3fd68000031687daull, 0x3fd779a792e2cfd0ull, 0x4005cf6bcae0882bull},
    {0x3fd6bffff5c8cfe2ull, 0x3fd7c25e9fb452edull, 0x40058cabc561f1cdull},
    {0x3fd6fffff81df231ull, 0x3fd80b4bcfb4dab5ull, 0x40054b4f8d3ca5d3ull},
    {0x3fd73ffffa71385eull, 0x3fd8546fe007a9b6ull, 0x40050b4bb3b22176ull},
    {0x3fd78000024a9c2bull, 0x3fd89dcba7fcf5cfull, 0x4004cc953159cbe1ull},
    {0x3fd7c00002eb62b8ull, 0x3fd8e75fec0ba5cfull, 0x40048f218731eeeaull},
    {0x3fd80000054a52d1ull, 0x3fd9312d8bb822e9ull, 0x400452e69170a729ull},
    {0x3fd83ffff93a00a3ull, 0x3fd97b354bb9ad2aull, 0x400417daae924e7full},
    {0x3fd87ffffbdc91c1ull, 0x3fd9c5782771b601ull, 0x4003ddf478855799ull},
    {0x3fd8bffff6d215e6ull, 0x3fda0ff6e0ea4a0bull, 0x4003a52b189a0989ull},
    {0x3fd9000002f734efull, 0x3fda5ab2736bf579ull, 0x40036d75e9244ca6ull},
    {0x3fd9400004eef8b4ull, 0x3fdaa5ab9fb6e3d0ull, 0x400336ccc9089cb7ull},
    {0x3fd98000041ec76aull, 0x3fdaf0e35176c7e4ull, 0x40030127cb0b9506ull},
    {0x3fd9c00008044e47ull, 0x3fdb3c5a77071224ull, 0x4002cc7f50d75ec7ull},
    {0x3fda000001f8235bull, 0x3fdb8811e725782eull, 0x400298cc18fbfb37ull},
    {0x3fda3ffffb8c6f08ull, 0x3fdbd40a97b086f3ull, 0x40026607154de04bull},
    {0x3fda7ffffb3d63e1ull, 0x3fdc20457d9a3b8aull, 0x400234297e60bfbbull},
    {0x3fdabffff5f45c48ull, 0x3fdc6cc37b8d45e6ull, 0x4002032cdb1ace69ull},
    {0x3fdb00000508b34cull, 0x3fdcb985a27e8d37ull, 0x4001d30ad4459a2bull},
    {0x3fdb40000a84710cull, 0x3fdd068cc3e50155ull, 0x4001a3bd775034ddull},
    {0x3fdb7ffff692e9d8ull, 0x3fdd53d9c49d6627ull, 0x4001753efe18066aull},
    {0x3fdbc0000280f14dull, 0x3fdda16de4e81013ull, 0x40014789a38ea052ull},
    {0x3fdc0000001121d1ull, 0x3fddef49eac018f0ull, 0x40011a9820b8be0cull},
    {0x3fdc3ffffef662aaull, 0x3fde3d6eea0c7070ull, 0x4000ee6532f46ccdull},
    {0x3fdc800009845818ull, 0x3fde8bddf36a8b1bull, 0x4000c2ebcac73476ull},
    {0x3fdcbffffb0493bfull, 0x3fdeda97e0c60d10ull, 0x40009827251c7836ull},
    {0x3fdcfffffd52961full, 0x3fdf299defb3e44bull, 0x40006e1274e459f5ull},
    {0x3fdd3ffffe2319a4ull, 0x3fdf78f117139490ull, 0x400044a93e737e94ull},
    {0x3fdd7ffffa4de596ull, 0x3fdfc892638f49e8ull, 0x40001be7231057a5ull},
    {0x3fddbffffe729a69ull, 0x3fe00c417c6ab019ull, 0x3fffe78fbf612660ull},
    {0x3fde000009d66802ull, 0x3fe03461f6b883cfull, 0x3fff988ebc05a87cull},
    {0x3fde3ffffb211657ull, 0x3fe05cab191db8e8ull, 0x3fff4ac37bcfe6beull},
    {0x3fde80000a3f068aull, 0x3fe0851d95fb54f0ull, 0x3ffefe26144ca408ull},
    {0x3fdec00001adb060ull, 0x3fe0adb9dc7b54f9ull, 0x3ffeb2af5ebe52a7ull},
    {0x3fdeffffff5c0d01ull, 0x3fe0d68092550a8dull, 0x3ffe68580d71fdf0ull},
    {0x3fdf3ffff93d5fccull, 0x3fe0ff7245cb4374ull, 0x3ffe1f193cce5040ull},
    {0x3fdf7ffffa0dd18full, 0x3fe1288f944dd508ull, 0x3ffdd6ec298b874dull},
    {0x3fdfbffffd3a9f1aull, 0x3fe151d913750f3eull, 0x3ffd8fca5806a27eull},
    {0x3fdffffffc481400ull, 0x3fe17b4f598944caull, 0x3ffd49ad82532170ull},
    {0x3fe01fffff53786cull, 0x3fe1a4f307d83d47ull, 0x3ffd048f851bffebull},
    {0x3fe03ffffee301b7ull, 0x3fe1cec4b8a6a382ull, 0x3ffcc06a7c519db6ull},
    {0x3fe06000006e36bfull, 0x3fe1f8c5114eb8beull, 0x3ffc7d38a34d6786ull},
    {0x3fe07ffffd60aa43ull, 0x3fe222f4abeccecbull, 0x3ffc3af477342ac4ull},
    {0x3fe0a000037762e8ull, 0x3fe24d543f99efe8ull, 0x3ffbf99875f54fabull},
    {0x3fe0bfffff1c6921ull, 0x3fe277e4598e35d0ull, 0x3ffbb91f8addd186ull},
    {0x3fe0dfffff07154bull, 0x3fe2a2a5b6bc3986ull, 0x3ffb79848301646dull},
    {0x3fe1000002fcdda4ull, 0x3fe2cd9902a59f1eull, 0x3ffb3ac2705219bfull},
    {0x3fe1200001ce1140ull, 0x3fe2f8bedf0a67c2ull, 0x3ffafcd49ab8ae2aull},
    {0x3fe1400004d0f355ull, 0x3fe3241808fcc7bfull, 0x3ffabfb6497b9a36ull},
    {0x3fe1600000fb0c8aull, 0x3fe34fa52471618bull, 0x3ffa83630d26d117ull},
    {0x3fe18000026f10b3ull, 0x3fe37b66f7579056ull, 0x3ffa47d66b4cf4b1ull},
    {0x3fe19ffffd0978f8ull, 0x3fe3a75e290cc78cull, 0x3ffa0d0c36c21315ull},
    {0x3fe1bffffd94840bull, 0x3fe3d38b85b4e4a4ull, 0x3ff9d30032f2ecefull},
    {0x3fe1dffffbda1ea1ull, 0x3fe3ffefbf3cee2full, 0x3ff999ae6770fed8ull},
    {0x3fe1fffffc989533ull, 0x3fe42c8b9c27900cull, 0x3ff96112e0d9f1acull},
    {0x3fe22000012b8d26ull, 0x3fe4595fe11975caull, 0x3ff92929cdaa4e80ull},
    {0x3fe2400004f4d6afull, 0x3fe4866d4d224131ull, 0x3ff8f1ef815c34e8ull},
    {0x3fe25ffffcc07bdaull, 0x3fe4b3b498b7d010ull, 0x3ff8bb6073e7ffa1ull},
    {0x3fe28000042d9639ull, 0x3fe4e136b64540d1ull, 0x3ff88578f4374938ull},
    {0x3fe2a00003be29a0ull, 0x3fe50ef452bffd96ull, 0x3ff85035c0042c06ull},
    {0x3fe2bffffaa91f12ull, 0x3fe53cee3e2f4e0dull, 0x3ff81b938542df07ull},
    {0x3fe2dffffe884891ull, 0x3fe56b256c1a2470ull, 0x3ff7e78ee422ea70ull},
    {0x3fe2fffffe87152bull, 0x3fe5999a9beaaaa1ull, 0x3ff7b424d18fe9b3ull},
    {0x3fe31fffffc1a721ull, 0x3fe5c84eafe0e564ull, 0x3ff78152338db8d4ull},
    {0x3fe33fffff70a372ull, 0x3fe5f74282191d64ull, 0x3ff74f141122bcaeull},
    {0x3fe360000436e836ull, 0x3fe62676fde6ccffull, 0x3ff71d677644252cull},
    {0x3fe37ffffcbe9641ull, 0x3fe655ecee9ffdafull, 0x3ff6ec49a6fc0515ull},
    {0x3fe39fffffb6d6caull, 0x3fe685a55e67a1e1ull, 0x3ff6bbb7bc2ae969ull},
    {0x3fe3c00004934fecull, 0x3fe6b5a12cc07d75ull, 0x3ff68baf10b02ef8ull},
    {0x3fe3e00003f5cf7full, 0x3fe6e5e13e59def6ull, 0x3ff65c2d0e61500full},
    {0x3fe4000005280ad9ull, 0x3fe7166691ab4c3eull, 0x3ff62d2f19f01c90ull},
    {0x3fe42000049efb65ull, 0x3fe7473218af3b9dull, 0x3ff5feb2b86465e4ull},
    {0x3fe440000035ccb6ull, 0x3fe77844cb4ff1e5ull, 0x3ff5d0b57c455428ull},
    {0x3fe4600003346717ull, 0x3fe7a99fba258778ull, 0x3ff5a334f4392254ull},
    {0x3fe4800003002575ull, 0x3fe7db43d836768full, 0x3ff5762edcf97e0cull},
    {0x3fe4a000055bf381ull, 0x3fe80d3235edeefaull, 0x3ff549a0ea46e31full},
    {0x3fe4c00004ce10e3ull, 0x3fe83f6bd67dc1a8ull, 0x3ff51d88ed82bcc4ull},
    {0x3fe4e000016c60e1ull, 0x3fe871f1ca0aaf31ull, 0x3ff4f1e4bdacbf16ull},
    {0x3fe4ffffff966f0aull, 0x3fe8a4c52bff2daeull, 0x3ff4c6b23917657eull},
    {0x3fe520000076e6ebull, 0x3fe8d7e7175651e8ull, 0x3ff49bef4f459b05ull},
    {0x3fe5400003d12d3bull, 0x3fe90b58a976ed56ull, 0x3ff47199fdf24af4ull},
    {0x3fe55ffffce7fa8dull, 0x3fe93f1af03a3a09ull, 0x3ff447b05f13234bull},
    {0x3fe580000331b46aull, 0x3fe9732f38e83134ull, 0x3ff41e3068d8b41bull},
    {0x3fe59ffffc14848eull, 0x3fe9a7968471b489ull, 0x3ff3f5185de3aa73ull},
    {0x3fe5bffffb7cd395ull, 0x3fe9dc5224a8b955ull, 0x3ff3cc664f8fff15ull},
    {0x3fe5e000000dcc40ull, 0x3fea11634df5b93eull, 0x3ff3a41875853228ull},
    {0x3fe6000002efd2fcull, 0x3fea46cb30d16323ull, 0x3ff37c2d187962aeull},
    {0x3fe61ffffeb8088aull, 0x3fea7c8b053920c0ull, 0x3ff354a2891769a9ull},
    {0x3fe6400000f3ca06ull, 0x3feab2a428a1911aull, 0x3ff32d770a6f0a4aull},
    {0x3fe65ffffe9ec2f4ull, 0x3feae917d4ce7239ull, 0x3ff306a90751a948ull},
    {0x3fe6800003d43966ull, 0x3feb1fe7708b998aull, 0x3ff2e036d7a153c7ull},
    {0x3fe69ffffab67783ull, 0x3feb57142e575464ull, 0x3ff2ba1f05006cb6ull},
    {0x3fe6bffffcb65f89ull, 0x3feb8e9f981efd2full, 0x3ff2945fe948d9f7ull},
    {0x3fe6dffffc5609a9ull, 0x3febc68afaed6ff1ull, 0x3ff26ef81533411eull},
    {0x3fe6fffffc4eef86ull, 0x3febfed7c62205feull, 0x3ff249e60e70978cull},
    {0x3fe72000004d98b3ull, 0x3fec3787716968adull, 0x3ff2252861be7751ull},
    {0x3fe73ffffc155075ull, 0x3fec709b5ec6fd4eull, 0x3ff200bdb5d53311ull},
    {0x3fe760000498c203ull, 0x3fecaa15323d08c1ull, 0x3ff1dca493433f65ull},
    {0x3fe77fffff1e5636ull, 0x3fece3f64147c12cull, 0x3ff1b8dbbfe294a8ull},
    {0x3fe7a0000226d45aull, 0x3fed1e404120eb7full, 0x3ff19561d15f8278ull},
    {0x3fe7c0000250a5aaull, 0x3fed58f4b112a1e1ull, 0x3ff172358a59d565ull},
    {0x3fe7e0000482f82eull, 0x3fed94153576bdf0ull, 0x3ff14f55a22a1c5bull},
    {0x3fe800000205003eull, 0x3fedcfa364d69ff7ull, 0x3ff12cc0e37eb26full},
    {0x3fe81ffffbf99411ull, 0x3fee0ba0ebf98f51ull, 0x3ff10a7616ddd5d6ull},
    {0x3fe840000248e3a3ull, 0x3fee480f9bb7f565ull, 0x3ff0e873fb84e05cull},
    {0x3fe860000145c157ull, 0x3fee84f10a10b3abull, 0x3ff0c6b97cbd7b1eull},
    {0x3fe88000022631b9ull, 0x3feec2470be1f047ull, 0x3ff0a5456d0b3ee6ull},
    {0x3fe8a000045f7828ull, 0x3fef00136c45ba1cull, 0x3ff08416af2a0f09ull},
    {0x3fe8bfffffc686cfull, 0x3fef3e57f03c824bull, 0x3ff0632c33502220ull},
    {0x3fe8dffffd8644c6ull, 0x3fef7d168774261dull, 0x3ff04284dd5b3019ull},
    {0x3fe8fffffe4e7937ull, 0x3fefbc511a99a641ull, 0x3ff0221f9f69840bull},
    {0x3fe920000435251full, 0x3feffc099eb22390ull, 0x3ff001fb6f7c51e8ull},
};
// utan.h: the Taylor coefficients of tan near 0 (d3..d11), those of the
// correction polynomial next to a table point (e0, e1), the branch limits
// g1..g4 (gy2 = g2) and the three-part pi/2 of algorithm i.
inline constexpr double kTanD3 = 0x1.5555555555555p-2, kTanD5 = 0x1.11111111107c6p-3, kTanD7 = 0x1.ba1ba1cdb8745p-5,
                        kTanD9 = 0x1.664ed49cfc666p-6, kTanD11 = 0x1.2385a3cf2e4eap-7;
inline constexpr double kTanE0 = 0x1.5555555554dbdp-2, kTanE1 = 0x1.11112e0a6b45fp-3;
inline constexpr double kTanG1 = 0x1.b096cp-27, kTanG2 = 0x1.f212dp-5, kTanG3 = 0x1.92f1ap-1, kTanG4 = 25.0;
inline constexpr double kTanMp1 = 0x1.921fb58p0, kTanMp2 = -0x1.dde973cp-27, kTanMp3 = -0x1.cb3b399d747f2p-55;
inline constexpr double kTanHpinv = 0x1.45f306dc9c883p-1, kTanToint = 0x1.8p52;

// tan_poly_small: t2 = da + (a a2) (d3 + a2 (d5 + a2 (d7 + a2 (d9 + a2 d11)))), the
// Horner steps and the final "+ da" each one fused operation (__tan_fma).
inline double tan_small_tail(double a, double da) {
  const double a2 = a * a;
  double t = std::fma(a2, kTanD11, kTanD9);
  t = std::fma(a2, t, kTanD7);
  t = std::fma(a2, t, kTanD5);
  t = std::fma(a2, t, kTanD3);
  return std::fma(a * a2, t, da);
}

// The table step: z = (y - x_i) + dy next to table point i = (int)(256 y - 15.5)
// (fused), pz = z + (z z^2)(e0 + z^2 e1) (fused twice); returns pz and the
// row's tan (fi) and cot (gi).
inline double tan_table_pz(double y, double dy, bool has_dy, double* fi, double* gi) {
  const int i = static_cast<int>(std::fma(y, 256.0, -15.5));
  const double z = has_dy ? (y - u2d(kTanXfg[i][0])) + dy : y - u2d(kTanXfg[i][0]);
  const double z2 = z * z;
  *fi = u2d(kTanXfg[i][1]);
  *gi = u2d(kTanXfg[i][2]);
  return std::fma(z * z2, std::fma(z2, kTanE1, kTanE0), z);
}

// tan(x) for |x| <= 25 (and NaN/inf), as Debian 12's __tan_fma (glibc 2.36:
// IBM's utan without the multi-precision fallbacks, which 2.35 removed).
// The branches: |x| <= 1.259e-8: x; <= 0.0608: the odd Taylor polynomial;
// <= 0.787: the table; <= 25: reduction by pi/2 in three parts (n the
// parity of the multiple), then the polynomial or the table on the reduced
// a + da, tan for even n, -cot for odd (the polynomial's -cot through the
// double-length reciprocal, dla.h's EADD and DIV2 with fused EMULV). |x| > 25
// (algorithms ii and iii, Payne-Hanek) is not reproduced: NaN. The torch
// streams give pi (u - 1/2), |x| <= pi/2.
inline double glibc_tan(double x) {
  if ((hi_word(x) & 0x7ff00000u) == 0x7ff00000u) return x - x;
  const double w = std::fabs(x);
  if (w <= kTanG1) return x;
  if (w <= kTanG2) return tan_small_tail(x, x);  // x + (x x2) P(x2), fused as da = x
  if (w <= kTanG3) {
    double fi, gi;
    const double pz = tan_table_pz(w, 0.0, false, &fi, &gi);
    const double y = fi + (pz * (gi + fi)) / (gi - pz);
    return (x < 0.0 ? -1.0 : 1.0) * y;
  }
  if (w > kTanG4) return NAN;  // outside what the torch streams reach: not ported
  // algorithm i
  const double t = std::fma(x, kTanHpinv, kTanToint);
  const double xn = t - kTanToint;
  const double t1 = std::fma(-xn, kTanMp2, std::fma(-xn, kTanMp1, x));
  const bool odd = (lo_word(t) & 1u) != 0;
  const double a = std::fma(-xn, kTanMp3, t1);
  const double da = std::fma(-xn, kTanMp3, t1 - a);
  const double sy = a < 0.0 ? -1.0 : 1.0;
  const double ya = a < 0.0 ? -a : a, yya = a < 0.0 ? -da : da;
  if (ya <= kTanG2) {
    const double t2 = tan_small_tail(a, da);
    const double b = a + t2;
    if (!odd) return b;
    // -cot: EADD(a, t2, b, db), then DIV2(1, 0, b, db, c, dc): y = c + dc.
    const double db = std::fabs(a) > std::fabs(t2) ? (a - b) + t2 : (t2 - b) + a;
    const double c = 1.0 / b;
    const double u = c * b;
    const double uu = std::fma(c, b, -u);
    const double cc = std::fma(-db, c, ((1.0 - u) - uu) + 0.0) / b;
    const double z = c + cc;
    const double zz = (c - z) + cc;
    return -(zz + z);
  }
  double fi, gi;
  const double pz = tan_table_pz(ya, yya, true, &fi, &gi);
  if (odd) return -sy * (gi - (pz * (fi + gi)) / (fi + pz));  // -cot
  return sy * (fi + (pz * (gi + fi)) / (gi - pz));
}

}  // namespace xrng::torch_cpu::detail

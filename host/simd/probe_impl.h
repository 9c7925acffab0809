// The bodies of the probes declared in probe.h, compiled once per ISA: the
// kernels of kernels.h (run_groups, the very code a fill runs) and the lane
// forms of math.h, applied to caller-supplied words.
#pragma once

#include "kernels.h"
#include "probe.h"

namespace xrng::detail {
namespace {

// probe_avx2 / probe_avx512 / probe_neon (probe.h) of this ISA.
bool probe_impl(Probe which, const Plan& plan, const uint32_t* in, size_t n, void* out) {
  switch (which) {
    case Probe::radius32:
    case Probe::sincos32: {
      double* o = static_cast<double*>(out);
      for (size_t i = 0; i < n; i += N64) {
        alignas(64) uint32_t w[N64] = {};
        const size_t m = lmin<size_t>(N64, n - i);
        std::memcpy(w, in + i, m * sizeof(uint32_t));
        const U x = uof(__builtin_convertvector(loadu<vu32h>(w), vu64));
        alignas(64) double r[2 * N64];
        if (which == Probe::radius32) {
          storeu(r, math::box_muller_radius<32, D, U>(x).v[0]);
          std::memcpy(o + i, r, m * sizeof(double));
        } else {
          D c, sn;
          math::sincos_turns<32, D, U>(x, &c, &sn);
          storeu(r, shuffle<kInterleaveLo>(c.v[0], sn.v[0]));
          storeu(r + N64, shuffle<kInterleaveHi>(c.v[0], sn.v[0]));
          std::memcpy(o + 2 * i, r, 2 * m * sizeof(double));
        }
      }
      return true;
    }
    case Probe::uniform_f32:
      run_groups<Dist::uniform, DType::f32>(in, n, plan, static_cast<float*>(out));
      return true;
    case Probe::uniform_f16:
      run_groups<Dist::uniform, DType::f16>(in, n, plan, static_cast<uint16_t*>(out));
      return true;
    case Probe::uniform_bf16:
      run_groups<Dist::uniform, DType::bf16>(in, n, plan, static_cast<uint16_t*>(out));
      return true;
    case Probe::exponential_f32:
      run_groups<Dist::exponential, DType::f32>(in, n, plan, static_cast<float*>(out));
      return true;
    case Probe::cauchy_f32:
      run_groups<Dist::cauchy, DType::f32>(in, n, plan, static_cast<float*>(out));
      return true;
    case Probe::v2_radius:
    case Probe::v2_sincos:
    case Probe::v2_neg_log:
    case Probe::v2_tan:
    case Probe::v2_exp: {
      using F = FR<1>;
      using I = W32<1>;
      float* o = static_cast<float*>(out);
      for (size_t i = 0; i < n; i += N32) {
        alignas(64) uint32_t w[N32] = {};
        const size_t m = lmin<size_t>(N32, n - i);
        std::memcpy(w, in + i, m * sizeof(uint32_t));
        I x;
        x.v[0] = loadu<vu32>(w);
        alignas(64) float r[2 * N32];
        if (which == Probe::v2_sincos) {
          F c, sn;
          sincos_turns_v2<1>(x, &c, &sn);  // the normal kernels' form of math32::sincos_turns
          storeu(r, shuffle<kZipLo32>(c.v[0], sn.v[0]));
          storeu(r + N32, shuffle<kZipHi32>(c.v[0], sn.v[0]));
          std::memcpy(o + 2 * i, r, 2 * m * sizeof(float));
          continue;
        }
        F y;
        if (which == Probe::v2_radius) y = radius_v2<1>(x);  // the normal kernels' form of math32::radius
        if (which == Probe::v2_neg_log) y = math32::neg_log<F, I>(x);
        if (which == Probe::v2_tan) y = math32::tan_centered<F, I>(x);
        if (which == Probe::v2_exp) y = math32::exp_<F, I>(as_f32(x));
        storeu(r, y.v[0]);
        std::memcpy(o + i, r, m * sizeof(float));
      }
      return true;
    }
    case Probe::v2_exponential_f32:
      run_steps<Kernel<Dist::exponential, DType::f32, 2>, 1, 1>(in, n, plan, static_cast<float*>(out));
      return true;
    case Probe::v2_cauchy_f32:
      run_steps<Kernel<Dist::cauchy, DType::f32, 2>, 1, 1>(in, n, plan, static_cast<float*>(out));
      return true;
    case Probe::v2_normal_f32:
      run_steps<Kernel<Dist::normal, DType::f32, 2>, 2, 2>(in, n, plan, static_cast<float*>(out));
      return true;
    case Probe::v2_log_normal_f32:
      run_steps<Kernel<Dist::log_normal, DType::f32, 2>, 2, 2>(in, n, plan, static_cast<float*>(out));
      return true;
    case Probe::f32_to_f16:
    case Probe::f32_to_bf16: {
      uint16_t* o = static_cast<uint16_t*>(out);
      for (size_t i = 0; i < n; i += N32) {
        alignas(64) uint32_t w[N32] = {};
        const size_t m = lmin<size_t>(N32, n - i);
        std::memcpy(w, in + i, m * sizeof(uint32_t));
        const vf32 f = loadu<vf32>(w);
        alignas(64) uint16_t r[N32];
        storeu(r, which == Probe::f32_to_f16 ? f32_to_f16(f) : f32_to_bf16(f));
        std::memcpy(o + i, r, m * sizeof(uint16_t));
      }
      return true;
    }
  }
  return false;
}

}  // namespace
}  // namespace xrng::detail

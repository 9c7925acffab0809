// The reproducible mode's torch streams (issue 26): with
// reproducible(stream="torch-cpu-x86" | "torch-cpu-scalar" | "torch-cuda"),
// the mode's kernels (kernels.cpp) give the values torch's own generator of
// that kind gives, on any host and device (SPEC.md section 8.5).
//
// torch-cpu: the state IS torch's CPU generator (the default one, or the CPU
// torch.Generator passed as generator=): each draw reads its mt19937 and
// cached normals, runs xrng's reproduction of torch's CPU kernel
// (rng/torch_cpu.h, the normal through the chosen kernel) and writes the
// state back, so manual_seed, get/set_rng_state and fork_rng are torch's
// own. Tensors on other devices are filled on the host in torch's CPU order
// (memory order) and copied. A generator on another device: not reproduced
// (reported).
//
// torch-cuda: the state is a modelled CUDA generator (seed, philox offset)
// kept by the mode's stream records (streams.h): the seed is the torch
// generator's seed (the default CPU generator's for draws without one: a
// torch.manual_seed re-seeds it at offset 0, a restored state goes back to
// its offset), the offset advances as torch's CUDA generator's would on a
// GPU of the configured SM count (rng/torch_cuda.h).
//
// A call the stream does not reproduce throws NotReproduced: the kernel
// reports it (strict: raises before anything is drawn) and torch's own
// kernel draws it.
#pragma once

#include <ATen/core/stack.h>
#include <c10/util/FunctionRef.h>

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../mode.h"
#include "rng/torch_cpu.h"
#include "draws.h"
#include "table.h"

namespace xrng::torch_api::mode::detail {

enum TorchStream : int {
  kXrng = 0,
  kTorchCpuX86 = 1,
  kTorchCpuScalar = 2,
  kTorchCuda = 3,
  kTorchCpuArm = 4,
  kTorchCpuArmSve256 = 5,
  kTorchCpuX86Windows = 6,
  kTorchCpuX86Intel = 7,
  kTorchCpuX86IntelAvx512 = 8,
  kTorchCpuScalarIntel = 9,
  kTorchStreamLast = kTorchCpuScalarIntel
};

// Whether stream `t` is one of torch's CPU generator's (x86, scalar, arm, arm-sve256, x86-windows, x86-intel,
// x86-intel-avx512, scalar-intel) and its kernel.
inline bool is_torch_cpu(int t) { return t > kXrng && t <= kTorchStreamLast && t != kTorchCuda; }
inline xrng::torch_cpu::Kernel torch_cpu_kernel(int t) {
  return t == kTorchCpuScalar       ? xrng::torch_cpu::Kernel::scalar
         : t == kTorchCpuArm        ? xrng::torch_cpu::Kernel::arm
         : t == kTorchCpuArmSve256 ? xrng::torch_cpu::Kernel::arm_sve256
         : t == kTorchCpuX86Windows ? xrng::torch_cpu::Kernel::x86_windows
         : t == kTorchCpuX86Intel   ? xrng::torch_cpu::Kernel::x86_intel
         : t == kTorchCpuX86IntelAvx512 ? xrng::torch_cpu::Kernel::x86_intel_avx512
         : t == kTorchCpuScalarIntel    ? xrng::torch_cpu::Kernel::scalar_intel
                                        : xrng::torch_cpu::Kernel::x86;
}

struct NotReproduced : std::exception {
  std::string why;
  explicit NotReproduced(std::string w) : why(std::move(w)) {}
  const char* what() const noexcept override { return why.c_str(); }
};

// "torch-cpu-x86", "torch-cpu-scalar", "torch-cpu-arm", "torch-cpu-arm-sve256", "torch-cpu-x86-windows",
// "torch-cuda (132 SMs x 2048 threads)".
std::string torch_stream_name(const Config& c);

// The outputs of row `r`'s operator under a torch stream (`c`: the active
// entry's torch, sm_count and threads_per_sm, read by the kernel), or
// NotReproduced / NoDraw (draws.h: torch's own kernel runs, silently: a call
// with nothing to draw, or a composite whose inner draws reach these
// kernels). `checks(n0)`: torch's argument checks of the call (Kernel::torch_checks;
// n0 kProbeZeros: on stand-ins that hold zeros).
inline constexpr int kProbeZeros = -2;
Outputs torch_stream_run(const OpRow& r, const Config& c, c10::ArrayRef<c10::IValue> args,
                         const std::optional<at::Generator>& gen, const std::string& name,
                         c10::function_ref<void(int)> checks);

// The common call of a fill row (normal_, uniform_, exponential_,
// geometric_, log_normal_, cauchy_, bernoulli_.float: `d`, its scalars a
// and b) under a torch-cpu stream `s`, from the kernel's typed entry
// (Kernel::fill_typed, torch's checks of these arguments passed before): a
// contiguous, real CPU tensor with elements, outside a DTensor region,
// drawn from the CPU generator's state as torch_stream_run draws it (the
// same values and advance). Returns false, with nothing drawn or written,
// for anything else and wherever the draw refuses: the caller then takes
// the general path (torch_stream_run), which decides and reports.
bool torch_cpu_fill_fast(at::Tensor& self, Dist d, double a, double b, const std::optional<at::Generator>& gen,
                         TorchStream s);

// The same for random_ (`range`: 0 random_(), 1 random_(to), 2
// random_(from, to), 3 random_(from, None)): a contiguous CPU tensor of an
// integral or floating dtype, with elements, outside a DTensor region, drawn
// as torch_stream_run's random form draws it; false (nothing drawn) otherwise.
bool torch_cpu_random_fast(at::Tensor& self, int range, int64_t from, int64_t to,
                           const std::optional<at::Generator>& gen, TorchStream s);

}  // namespace xrng::torch_api::mode::detail

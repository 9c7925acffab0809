// The draws of torch's own generators (issue 26) that both their Python
// entry points (torch_cpu_ops.cpp, torch_cuda_ops.cpp: xrng.torch_cpu,
// xrng.torch_cuda) and the reproducible mode's torch streams
// (mode/torch_streams.cpp) call. No arithmetic here: every value comes from
// rng/torch_cpu.h and rng/torch_cuda.h.
#pragma once

#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "rng/detail/torch_random.h"
#include "rng/torch_cpu.h"

namespace xrng::torch_streams {

// The modulus of random_() without a range for dtype T (torch 2.15
// TransformationHelper.h uniform_int): 2^digits + 1 for the floating types,
// max + 1 for the integers, 2 for bool (its `w & 1`).
template <class T>
constexpr uint64_t random_modulus() {
  if constexpr (std::is_same_v<T, bool>)
    return 2;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1;
  else
    return (uint64_t{1} << std::numeric_limits<T>::digits) + 1;
}
// random_(from, None) (from > -2**63) into dtype dt: the base and range of
// torch's random_from_to kernel ([from, max] for the integers, [from moved
// up by update_from, 2^digits] for the floating types); throws
// std::invalid_argument (`who` names the call) where torch refuses
// (uint64, a `from` outside the dtype). Shared by both torch streams.
std::pair<int64_t, uint64_t> random_from_bounds(at::ScalarType dt, int64_t from, const char* who);

// torch CPU stream: fills contiguous CPU `out` with draw `kind` (uniform,
// normal, normal_each, exponential, geometric, log_normal, cauchy,
// randint, random (random_() without a range), random_from (random_(from,
// None), from = ilow; -2**63 the full 64-bit range), bernoulli, randperm) from `s`, advancing it as torch's CPU generator
// would (torch_cpu_ops.cpp documents the parameters). Throws
// std::invalid_argument before drawing for arguments it does not take.
enum class CpuKind { uniform, normal, normal_each, exponential, geometric, log_normal, cauchy, randint, random,
                     random_from, bernoulli, randperm };
// The kind of that name (std::invalid_argument for another), and its name.
CpuKind cpu_kind(const std::string& kind);

const char* cpu_kind_name(CpuKind kind);
// `r`: which torch releases' draws, where releases differ (rng/torch_cpu.h
// Release).
void cpu_draw(torch_cpu::State& s, CpuKind kind, torch_cpu::Kernel k, const at::Tensor& out, double a, double b,
              int64_t ilow, int64_t ihigh, torch_cpu::Release r = torch_cpu::Release::r2_13);
// Whether draw `kind` (first parameter a) of kernel k in release r is one
// of MKL's (torch 2.0 to 2.6's x86-64 wheels: the scalar-p bernoulli_ and,
// for a finite lambda, exponential_): its word is taken for no elements too,
// and a non-contiguous output gets its values in row-major order (torch
// draws into a contiguous tensor and copies).
inline bool cpu_mkl_draw(const std::string& kind, torch_cpu::Release r, torch_cpu::Kernel k, double a) {
  return (kind == "bernoulli" && torch_cpu::mkl_bernoulli(r, k)) ||
         (kind == "exponential" && torch_cpu::mkl_exponential(r, k) && !std::isinf(a));
}
inline void cpu_draw(torch_cpu::State& s, const std::string& kind, torch_cpu::Kernel k, const at::Tensor& out,
                     double a, double b, int64_t ilow, int64_t ihigh,
                     torch_cpu::Release r = torch_cpu::Release::r2_13) {
  cpu_draw(s, cpu_kind(kind), k, out, a, b, ilow, ihigh, r);
}
// A tensor-p bernoulli's p outside [0, 1] (ValueError from Python; the mode
// raises torch's own message for it).
struct BernoulliPOutOfRange : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
// bernoulli_(p) with a tensor p: contiguous CPU `out` and `p` of the same
// numel, laid out in torch's order (BernoulliPOutOfRange before the first word).
void cpu_bernoulli_tensor(torch_cpu::State& s, const at::Tensor& out, const at::Tensor& p);
// The checks of a torch CPU generator state passed from Python (torch's
// 5056-byte layout): std::invalid_argument otherwise. torch_cpu_ops.cpp.
void check_cpu_state(const at::Tensor& state);
// multinomial with replacement, n > 1: contiguous CPU [rows, k] floating
// weights, int64 [rows, n]; or [k] weights (one row), int64 [n].
at::Tensor cpu_multinomial(torch_cpu::State& s, const at::Tensor& weights, int64_t n);
// cpu_multinomial's rows into out[rows * n]: `w` the data of contiguous
// float32 or float64 [rows, k] CPU weights. Returns 0, or the code of the
// first bad row (torch_cpu::multinomial_check_row's) with nothing drawn.
// (Out of line: inlined into the Python entry's large function, its loops
// were compiled without vectors.)
int cpu_multinomial_rows(torch_cpu::State& s, const at::Tensor& w, int64_t rows, int64_t k, int64_t n, int64_t* out);
// torch's CPU tensor-parameter draws (torch._standard_gamma,
// torch._sample_dirichlet, torch.poisson, torch.binomial of CPU tensors):
// contiguous CPU parameters of a dtype torch's CPU kernel takes; a new
// tensor of torch's shape and dtype, drawn in torch's element order,
// advancing `s` as torch's CPU generator. std::invalid_argument before
// drawing for what torch refuses or xrng does not reproduce.
at::Tensor cpu_standard_gamma(torch_cpu::State& s, const at::Tensor& alpha);                   // torch_cpu_gamma_ops.cpp
at::Tensor cpu_dirichlet(torch_cpu::State& s, const at::Tensor& alpha);                        // torch_cpu_gamma_ops.cpp
at::Tensor cpu_poisson(torch_cpu::State& s, const at::Tensor& rate);                           // torch_cpu_poisson_ops.cpp
at::Tensor cpu_binomial(torch_cpu::State& s, const at::Tensor& count, const at::Tensor& prob);  // torch_cpu_poisson_ops.cpp
// torch's CPU rrelu_with_noise in training (_rrelu_with_noise_train): `x`
// contiguous CPU float32/float64/float16/bfloat16; `out` and `noise` contiguous
// CPU tensors of x's dtype and numel. Where x <= 0 (row-major order), r =
// uniform_real_distribution<double>(lower, upper) (2 words; lower and upper
// first rounded to the arithmetic type, float for the 16-bit types) in that
// type, out = x r, noise = r; elsewhere out = x, noise = 1. torch_cpu_ops.cpp.
void cpu_rrelu(torch_cpu::State& s, const at::Tensor& x, double lower, double upper, at::Tensor& out,
               at::Tensor& noise);

// torch CUDA stream: fills contiguous CPU `out` with draw `kind` (uniform,
// normal, exponential, log_normal, geometric, cauchy, bernoulli, randint,
// random, random_from (as cpu_draw's), randperm) from (seed, offset) on
// a GPU of sm_count SMs; returns the new philox offset.
uint64_t cuda_draw(uint64_t seed, uint64_t offset, const std::string& kind, uint32_t sm_count,
                   uint32_t threads_per_sm, const at::Tensor& out, double a, double b, int64_t ilow, int64_t ihigh);
// bernoulli_(p) with a tensor p: contiguous CPU `out` and `p` of the same
// numel (p expanded to out's shape, float64 for a float64 out, float32
// otherwise); every p checked to lie in [0, 1] before drawing. Returns the
// new philox offset.
uint64_t cuda_bernoulli_tensor(uint64_t seed, uint64_t offset, const at::Tensor& out, const at::Tensor& p);
// native_dropout of contiguous CPU `input` (the GPU tensor's values):
// (output, mask, new offset); `vec` is torch's get_vector_size choice.
std::tuple<at::Tensor, at::Tensor, uint64_t> cuda_dropout(uint64_t seed, uint64_t offset, uint32_t sm_count,
                                                          uint32_t threads_per_sm, const at::Tensor& input, double p,
                                                          uint32_t vec);

// multinomial(weights, n, replacement=True), n > 1 (torch's CUDA kernel,
// rng/torch_cuda_multinomial.h): contiguous CPU [rows, k] floating weights
// (the GPU tensor's values) into contiguous CPU int64 `out` of rows * n;
// returns the new philox offset. Throws std::invalid_argument for weights
// torch's kernel asserts on and xrng::torch_cuda::NotReproducedError for a
// one-row draw whose prefix sums depend on cub's scan order, both before
// drawing (the offset unchanged).
uint64_t cuda_multinomial(uint64_t seed, uint64_t offset, const at::Tensor& weights, int64_t n,
                          const at::Tensor& out);

}  // namespace xrng::torch_streams

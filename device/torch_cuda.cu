// xrng's CUDA kernels for the torch CUDA stream: see torch_cuda.h. The
// values come from rng/torch_cuda.h's XRNG_HD element functions; nothing
// here computes a value of its own but the stores (each the conversion the
// host bindings' static_cast<scalar_t> makes).
#include "torch_cuda.h"

#include <stdexcept>
#include <string>

#include "detail.cuh"

namespace xrng::cuda::torch_cuda {

namespace {

using namespace ops;

constexpr int kThreads = 256;

// ---- the kernel: one work item per (thread, curand4 call) of torch's launch -------------------
// Item g is thread g mod S's call g / S (S = L.threads()); its lanes write
// the elements tg::element_of names (the grid-stride loop of torch's
// distribution_elementwise_grid_stride_kernel), so each curand4 is computed
// once. `out` points at the piece's first element.
template <class Op>
__global__ void __launch_bounds__(kThreads) elementwise(Op op, uint64_t seed, uint64_t offset, tg::Launch L,
                                                        void* out) {
  const uint64_t items = L.threads() * L.rounds();
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t g = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < items; g += step)
    work_item(op, seed, offset, L, out, g);
}

unsigned blocks_for(uint64_t items) {
  const uint64_t b = (items + kThreads - 1) / kThreads;
  const uint64_t cap = static_cast<uint64_t>(detail::sm_count()) * 32;  // grid-stride beyond that
  return static_cast<unsigned>(b < cap ? (b == 0 ? 1 : b) : cap);
}

template <class Op>
void run(const Op& op, uint64_t seed, const tg::Piece& p, uint32_t esize, void* dev_out, cudaStream_t stream) {
  const tg::Launch& L = p.launch;
  void* out = static_cast<char*>(dev_out) + p.begin * esize;
  elementwise<Op><<<blocks_for(L.threads() * L.rounds()), kThreads, 0, stream>>>(op, seed, p.offset, L, out);
  detail::check(cudaGetLastError(), "torch_cuda kernel launch");
}

}  // namespace

void launch_piece(const Args& a, uint64_t seed, const tg::Piece& p, void* dev_out, cudaStream_t stream) {
  check_args(a);
  if (p.launch.unroll != unroll_of(a)) throw std::invalid_argument("torch_cuda launch_piece: the piece's unroll is not the draw's");
  if (p.launch.numel == 0) return;
  if (dev_out == nullptr) throw std::invalid_argument("torch_cuda draw: null output");
  const uint32_t es = out_size(a.out);
  with_op(a, [&](const auto& op) { run(op, seed, p, es, dev_out, stream); });
}

void draw(const Args& a, tg::State& s, tg::Device d, uint64_t n, void* dev_out, cudaStream_t stream) {
  check_args(a);
  if (n == 0) return;
  if (dev_out == nullptr) throw std::invalid_argument("torch_cuda draw: null output");
  tg::pieces(s, n, out_size(a.out), unroll_of(a), d,
             [&](const tg::Piece& p) { launch_piece(a, s.seed, p, dev_out, stream); });
}

// ---- bernoulli_(tensor p) --------------------------------------------------------------------
namespace {
template <Out O, class P>
__global__ void __launch_bounds__(kThreads) bernoulli_tensor_kernel(uint64_t seed, uint64_t offset, uint64_t n,
                                                                    const P* p, void* out) {
  const uint64_t threads = (n + 3) / 4;  // thread t: elements 4t .. 4t + 3, lanes 0 .. 3 of its call
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t t = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < threads; t += step) {
    bernoulli_tensor_item<O, P>(seed, offset, n, p, out, t);
  }
}
}  // namespace

void bernoulli_tensor(tg::State& s, uint64_t n, const void* dev_p, bool p_f64, Out out, void* dev_out,
                      cudaStream_t stream) {
  if (n > (1ull << 34)) throw std::invalid_argument("torch_cuda bernoulli: a tensor p above 2^34 elements is not reproduced");
  if (p_f64 != (out == Out::f64))
    throw std::invalid_argument("torch_cuda bernoulli: p must be float64 for a float64 out, float32 otherwise");
  const uint64_t off = tg::philox_cuda_state(s, 10);  // as tg::bernoulli_tensor, n == 0 included
  if (n == 0) return;
  if (dev_p == nullptr || dev_out == nullptr) throw std::invalid_argument("torch_cuda bernoulli: null buffer");
  const unsigned blocks = blocks_for((n + 3) / 4);
  with_out(out, [&]<Out O>() {
    if constexpr (O == Out::f64)
      bernoulli_tensor_kernel<O, double><<<blocks, kThreads, 0, stream>>>(s.seed, off, n, static_cast<const double*>(dev_p), dev_out);
    else
      bernoulli_tensor_kernel<O, float><<<blocks, kThreads, 0, stream>>>(s.seed, off, n, static_cast<const float*>(dev_p), dev_out);
  });
  detail::check(cudaGetLastError(), "torch_cuda bernoulli kernel launch");
}

// ---- dropout ---------------------------------------------------------------------------------
namespace {
// One element per GPU thread (the element's uniform is lane dropout_slot(i)
// of its call; a call shared by up to 4 elements is computed by each).
template <class T>
__global__ void __launch_bounds__(kThreads) dropout_kernel(uint64_t seed, uint64_t offset, tg::Launch L, uint32_t vec,
                                                           typename Storage<T>::acc pa, typename Storage<T>::acc scale,
                                                           const void* in, void* out, bool* mask) {
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.numel; i += step)
    dropout_element<T>(seed, offset, L, vec, pa, scale, in, out, mask, i);
}
template <class T>
void run_dropout(uint64_t seed, uint64_t off, const tg::Launch& L, uint32_t vec, double p, const void* in, void* out,
                 bool* mask, cudaStream_t stream) {
  using acc_t = typename Storage<T>::acc;
  const double p1m = 1.0 - p;
  const acc_t pa = static_cast<acc_t>(p1m);
  const acc_t scale = static_cast<acc_t>(1.0 / pa);
  dropout_kernel<T><<<blocks_for(L.numel), kThreads, 0, stream>>>(seed, off, L, vec, pa, scale, in, out, mask);
  detail::check(cudaGetLastError(), "torch_cuda dropout kernel launch");
}
}  // namespace

void dropout(tg::State& s, tg::Device d, uint64_t n, uint32_t vec, double p, Out t, const void* dev_in,
             void* dev_out, bool* dev_mask, cudaStream_t stream) {
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8) throw std::invalid_argument("torch_cuda dropout: vec must be 1, 2, 4 or 8");
  float_type(t);
  if (n == 0) return;
  if (dev_in == nullptr || dev_out == nullptr || dev_mask == nullptr)
    throw std::invalid_argument("torch_cuda dropout: null buffer");
  const tg::Launch L = tg::dropout_launch(n, d);
  const uint64_t off = tg::philox_cuda_state(s, L.counter_offset);
  switch (t) {
    case Out::f32: return run_dropout<float>(s.seed, off, L, vec, p, dev_in, dev_out, dev_mask, stream);
    case Out::f64: return run_dropout<double>(s.seed, off, L, vec, p, dev_in, dev_out, dev_mask, stream);
    case Out::f16: return run_dropout<Half>(s.seed, off, L, vec, p, dev_in, dev_out, dev_mask, stream);
    default: return run_dropout<BFloat16>(s.seed, off, L, vec, p, dev_in, dev_out, dev_mask, stream);
  }
}

}  // namespace xrng::cuda::torch_cuda

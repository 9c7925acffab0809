// Internal: the device paths of the LibTorch API. A Job says what to compute
// (which draw, at which key and offset); run() decides where: the host
// backend straight into CPU memory, the CUDA kernels into CUDA memory, or the
// host backend into staging buffers copied to any other device. Every path
// writes element i of the job to element i (row-major) of the tensor, and
// none does arithmetic on values.
#pragma once

#include <ATen/ATen.h>

#include "../xrng_torch.h"

namespace xrng::torch_api::detail {

// One draw, as the paths see it. Element i of the output is:
//   fill:        element i of the draw `plan` (element or permutation kind);
//   transform:   the transform draw `plan` (dropout) of input element i;
//   perm_shard:  element first + i of shard `rank` of `world` of the permutation.
struct Job {
  enum class Op { fill, transform, perm_shard };
  Op op = Op::fill;
  Plan plan;
  Key key;
  uint64_t offset = 0;
  at::Tensor input;                           // transform: same shape as the output, any device
  uint64_t rank = 0, world = 1, first = 0;    // perm_shard
  // A position in device memory (device_position below): the CUDA kernels
  // read [seed, subseq, offset, stream] from it when they run, so a captured
  // CUDA graph draws at what it holds on each replay; key and offset are
  // then unused. Undefined: the draw is at (key, offset).
  at::Tensor position;
};

// Whether a draw into `out` at the position tensor `position` reads the
// position on the device, when its kernel runs (device/position.h): a CUDA
// output, a position on the same GPU, and the CUDA kernels built. Then
// nothing reads the position on the host (no synchronisation, and a CUDA
// graph capture records the read, not the values).
bool device_position(const at::Tensor& position, const at::Tensor& out);
// Whether work on `out` would be recorded into a CUDA graph: a CUDA tensor
// while the current stream of its device is capturing. A draw from a
// generator whose state is on the host cannot be replayed (the capture
// records the position the host read once): the draw entries refuse it.
bool cuda_capturing(const at::Tensor& out);
// The refusal of such a draw (xrng::Error, one line) when cuda_capturing(out).
void check_not_capturing(const at::Tensor& out, const c10::Device& state);

// Advances the generator state `state` (a CUDA tensor, device_position)
// past `words` words of a draw planned for stream version `stream`, in a
// kernel on the current stream, and returns the state before (a new CUDA
// tensor). A state of another stream version, or one the words would
// exhaust, fails that kernel (a device-side error).
at::Tensor take_on_device(at::Tensor& state, int stream, uint64_t words);

// Writes the job's elements [0, out.numel()) into `out` (any device, any
// strides), computed in the `stage` type (detail::staging_type) and converted
// by a copy when that differs from out's type. The caller has validated the
// job (make_plan, check_counters); only device errors can occur here.
void run(at::Tensor& out, const Job& job, at::ScalarType stage, const RunOptions& opts);
// A fill that run() would hand whole to one host call (default run options,
// a contiguous CPU tensor of the stage type, more than none and fewer
// elements than a split across torch's threads needs): that call, made here
// without the Job; the same values. Returns false, doing nothing, for the others.
bool fill_small_host(at::Tensor& out, const Plan& plan, const Key& key, uint64_t offset, at::ScalarType stage,
                     const RunOptions& opts);

// Rejects tensors no path can write: undefined, not strided (sparse, mkldnn),
// or without memory (meta). `what` names the call in the message.
void check_writable(const at::Tensor& t, const char* what);
// check_writable without the memory check: the checks of a call that goes
// through the operators, whose Meta kernel serves meta tensors.
void check_strided(const at::Tensor& t, const char* what);

}  // namespace xrng::torch_api::detail

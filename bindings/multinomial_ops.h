// The operator xrng::categorical (multinomial_ops.cpp; torch.multinomial's
// draw): the C++ entry through the dispatcher.
#pragma once

#include <ATen/ATen.h>

namespace xrng::torch_api::ops {
// Categorical samples like torch.multinomial(weights, num_samples,
// replacement) at `position` ([seed, subseq, offset, stream], as ops.h):
// int64 [rows, num_samples] ([num_samples] for 1-d weights) on the weights'
// device, the same values on every device (SPEC.md section 10). Nothing is
// advanced: a caller with a generator takes 2 rows num_samples words (with
// replacement) or 2 rows k (without) first. Throws xrng::Error.
at::Tensor multinomial(const at::Tensor& weights, int64_t num_samples, bool replacement, const at::Tensor& position);
}  // namespace xrng::torch_api::ops

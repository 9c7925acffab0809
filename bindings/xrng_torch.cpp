// xrng for LibTorch: the public functions of xrng_torch.h. They validate a
// request (make_plan, the tensor's type and size, the generator's counter),
// describe it as a detail::Job and hand it to detail::run, which picks the
// device path. A draw from a Generator reserves its word range atomically
// first (Generator::reserve, so threads sharing a generator never draw the
// same words) and gives it back if the draw then fails.
#include "xrng_torch.h"

#include <string>
#include <vector>

#include "detail/dtypes.h"
#include "detail/paths.h"
#include "ops.h"

namespace xrng::torch_api {
namespace {

// Runs `draw` (a stateless draw at the given key and offset) on the word
// range reserved from `gen` for `count` elements of `plan`. The reservation is
// atomic (Generator::reserve): threads sharing gen get disjoint ranges. A
// draw that cannot be made (counter past 2^64) throws in reserve, before
// anything is written, leaving gen untouched; one that fails after (an
// allocation, a device error) gives its range back if no other draw has
// moved gen since.
template <class Draw>
void reserved(Generator& gen, const Plan& plan, uint64_t count, Draw&& draw) {
  const Generator::Range r = gen.reserve(plan, count, "Generator.draw");
  try {
    draw(r.key, r.offset);
  } catch (...) {
    gen.release(r);
    throw;
  }
}

at::TensorOptions defaults(at::TensorOptions opt, at::ScalarType dtype) {
  return opt.has_dtype() ? opt : opt.dtype(dtype);
}
at::TensorOptions like_options(const at::Tensor& like, at::TensorOptions opt) {
  at::TensorOptions o = like.options();
  if (opt.has_dtype()) o = o.dtype(opt.dtype());
  if (opt.has_device()) o = o.device(opt.device());
  return o;
}
std::vector<int64_t> checked_size(at::IntArrayRef size) {
  for (int64_t s : size)
    if (s < 0) throw Error("negative dimension " + std::to_string(s) + " in size " + c10::str(size));
  return size.vec();
}

// Whether a call may go through the operators: their schemas carry no run
// options, so a call that sets them (a forced path, a thread count) runs the
// kernel directly; the values are the same either way.
bool default_run(const RunOptions& run) { return run.path == Path::automatic && run.threads == 0; }

}  // namespace

// ---- generic entry points ------------------------------------------------------------------
// The stateless forms do the work; the Generator forms reserve the draw's
// word range (checking that the generator can advance, before anything is
// written) and draw the stateless form on it.
namespace {
// The checks of fill_ that do not depend on the position (made before a
// generator's range is reserved, so that a refused draw never moves it).
void check_fill(const at::Tensor& out, const Plan& plan) {
  detail::check_writable(out, "fill_");
  if (plan.kind == Kind::transform)
    throw Error(std::string("fill_: ") + dist_name(plan.dist) + " transforms an input tensor: use dropout_out");
  const at::ScalarType type = out.scalar_type();
  if (draw_dtype(plan.dist, type) != plan.dtype)
    throw Error(std::string("fill_: a ") + dist_name(plan.dist) + "/" + dtype_name(plan.dtype) +
                " draw cannot fill a " + detail::torch_name(type) + " tensor");
  detail::check_fits(plan, type);
  const uint64_t n = static_cast<uint64_t>(out.numel());
  if (plan.kind == Kind::permutation && n != plan.n)
    throw Error("fill_: a permutation of " + std::to_string(plan.n) + " fills a tensor of that many elements, not " +
                std::to_string(n));
}
}  // namespace

at::Tensor& fill_(at::Tensor& out, const Plan& plan, const Key& key, uint64_t offset, const RunOptions& run) {
  check_fill(out, plan);
  const uint64_t n = static_cast<uint64_t>(out.numel());
  const at::ScalarType type = out.scalar_type();
  check_counters(plan, offset, 0, n);
  const at::ScalarType stage = detail::staging_type(plan, type);
  if (detail::fill_small_host(out, plan, key, offset, stage, run)) return out;  // (a small CPU fill: no Job)
  detail::Job job;
  job.plan = plan;
  job.key = key;
  job.offset = offset;
  detail::run(out, job, stage, run);
  return out;
}
namespace {
// A position tensor that the CUDA kernels read (detail::device_position), contiguous.
at::Tensor device_position_words(const at::Tensor& position, const char* what) {
  if (position.scalar_type() != at::kLong || position.numel() != 4)
    throw Error(std::string(what) + ": position must be an int64 tensor of 4 elements [seed, subseq, offset, stream]");
  return position.contiguous();
}
}  // namespace

at::Tensor& draw_at_device(at::Tensor& out, Dist dist, const DrawParams& params, const at::Tensor& position) {
  const Plan plan = make_plan(dist, draw_dtype(dist, out.scalar_type()), params);
  check_fill(out, plan);
  check_counters(plan, 0, 0, static_cast<uint64_t>(out.numel()));  // the rest, at the position, in the kernel
  detail::Job job;
  job.plan = plan;
  job.position = device_position_words(position, dist_name(dist));
  detail::run(out, job, detail::staging_type(plan, out.scalar_type()), {});
  return out;
}

at::Tensor& fill_(at::Tensor& out, const Plan& plan, Generator& gen, const RunOptions& run) {
  check_fill(out, plan);
  reserved(gen, plan, static_cast<uint64_t>(out.defined() ? out.numel() : 0),
           [&](const Key& key, uint64_t offset) { fill_(out, plan, key, offset, run); });
  return out;
}

at::Tensor& draw_direct(at::Tensor& out, Dist dist, const DrawParams& params, const Key& key, uint64_t offset,
                        const RunOptions& run, int stream) {
  detail::check_writable(out, dist_name(dist));
  return fill_(out, make_plan(dist, draw_dtype(dist, out.scalar_type()), params, stream), key, offset, run);
}
// Through the operator xrng::draw_ (ops.cpp) unless run options are set.
at::Tensor& draw_(at::Tensor& out, Dist dist, const DrawParams& params, const Key& key, uint64_t offset,
                  const RunOptions& run, int stream) {
  if (!default_run(run)) return draw_direct(out, dist, params, key, offset, run, stream);
  detail::check_strided(out, dist_name(dist));
  std::vector<double> reals;
  std::vector<int64_t> ints;
  split_params(dist, params, reals, ints);
  return ops::draw_(out, dist_name(dist), reals, ints, position_tensor(key, offset, stream));
}
at::Tensor& draw_(at::Tensor& out, Dist dist, const DrawParams& params, Generator& gen, const RunOptions& run) {
  detail::check_strided(out, dist_name(dist));
  const int stream = gen.stream();
  reserved(gen, make_plan(dist, draw_dtype(dist, out.scalar_type()), params, stream),
           static_cast<uint64_t>(out.numel()),
           [&](const Key& key, uint64_t offset) { draw_(out, dist, params, key, offset, run, stream); });
  return out;
}

namespace {
Plan dropout_plan(const at::Tensor& out, const at::Tensor& in, double p, int stream = kStreamVersion) {
  detail::check_strided(out, "dropout");
  detail::check_strided(in, "dropout");
  if (!out.sizes().equals(in.sizes()) || out.scalar_type() != in.scalar_type() || out.device() != in.device())
    throw Error("dropout: output and input differ in shape, dtype or device");
  return make_plan(Dist::dropout, draw_dtype(Dist::dropout, in.scalar_type()), DrawParams::probability(p), stream);
}
}  // namespace

at::Tensor& dropout_direct(at::Tensor& out, const at::Tensor& in, double p, const Key& key, uint64_t offset,
                           const RunOptions& run) {
  detail::check_writable(out, "dropout");
  detail::check_writable(in, "dropout");
  detail::Job job;
  job.op = detail::Job::Op::transform;
  job.plan = dropout_plan(out, in, p);
  check_counters(job.plan, offset, 0, static_cast<uint64_t>(in.numel()));
  job.key = key;
  job.offset = offset;
  job.input = in;
  detail::run(out, job, out.scalar_type(), run);
  return out;
}
at::Tensor& dropout_at_device(at::Tensor& out, const at::Tensor& in, double p, const at::Tensor& position) {
  detail::check_writable(out, "dropout");
  detail::check_writable(in, "dropout");
  detail::Job job;
  job.op = detail::Job::Op::transform;
  job.plan = dropout_plan(out, in, p);
  check_counters(job.plan, 0, 0, static_cast<uint64_t>(in.numel()));
  job.position = device_position_words(position, "dropout");
  job.input = in;
  detail::run(out, job, out.scalar_type(), {});
  return out;
}
at::Tensor& dropout_out(at::Tensor& out, const at::Tensor& in, double p, const Key& key, uint64_t offset,
                        const RunOptions& run) {
  return dropout_direct(out, in, p, key, offset, run);
}
at::Tensor& dropout_out(at::Tensor& out, const at::Tensor& in, double p, Generator& gen, const RunOptions& run) {
  reserved(gen, dropout_plan(out, in, p, gen.stream()), static_cast<uint64_t>(in.numel()),
           [&](const Key& key, uint64_t offset) { dropout_out(out, in, p, key, offset, run); });
  return out;
}

at::Tensor& perm_shard_out(at::Tensor& out, uint64_t n, const Key& key, uint64_t offset, uint64_t rank,
                           uint64_t world, uint64_t start, const RunOptions& run) {
  return perm_shard_direct(out, n, key, offset, rank, world, start, run);
}
at::Tensor& perm_shard_direct(at::Tensor& out, uint64_t n, const Key& key, uint64_t offset, uint64_t rank,
                              uint64_t world, uint64_t start, const RunOptions& run) {
  detail::check_writable(out, "perm_shard");
  detail::Job job;
  job.op = detail::Job::Op::perm_shard;
  job.plan = make_plan(Dist::perm, draw_dtype(Dist::perm, out.scalar_type()), DrawParams::perm_size(n));
  job.key = key;
  job.offset = offset;
  job.rank = rank;
  job.world = world;
  job.first = start;
  // rank, world and the element range are checked by the backend's
  // perm_shard before it writes anything.
  detail::run(out, job, out.scalar_type(), run);
  return out;
}

at::Tensor& perm_shard_at_device(at::Tensor& out, uint64_t n, const at::Tensor& position, uint64_t rank,
                                 uint64_t world, uint64_t start) {
  detail::check_writable(out, "perm_shard");
  detail::Job job;
  job.op = detail::Job::Op::perm_shard;
  job.plan = make_plan(Dist::perm, draw_dtype(Dist::perm, out.scalar_type()), DrawParams::perm_size(n));
  job.position = device_position_words(position, "perm_shard");
  job.rank = rank;
  job.world = world;
  job.first = start;
  detail::run(out, job, out.scalar_type(), {});
  return out;
}

// ---- factories ----------------------------------------------------------------------------
at::Tensor rand(at::IntArrayRef size, Generator& gen, at::TensorOptions opt, double low, double high,
                const RunOptions& run) {
  at::Tensor t = at::empty(checked_size(size), defaults(opt, at::kFloat));
  return uniform_(t, gen, low, high, run);
}
at::Tensor randn(at::IntArrayRef size, Generator& gen, at::TensorOptions opt, double mean, double std,
                 const RunOptions& run) {
  at::Tensor t = at::empty(checked_size(size), defaults(opt, at::kFloat));
  return normal_(t, gen, mean, std, run);
}
at::Tensor randint(int64_t low, int64_t high, at::IntArrayRef size, Generator& gen, at::TensorOptions opt,
                   const RunOptions& run) {
  at::Tensor t = at::empty(checked_size(size), defaults(opt, at::kLong));
  return randint_(t, low, high, gen, run);
}
at::Tensor bernoulli(at::IntArrayRef size, double p, Generator& gen, at::TensorOptions opt, const RunOptions& run) {
  at::Tensor t = at::empty(checked_size(size), defaults(opt, at::kBool));
  return bernoulli_(t, p, gen, run);
}
at::Tensor randperm(int64_t n, Generator& gen, at::TensorOptions opt, const RunOptions& run) {
  if (n < 1) throw Error("randperm: n must be >= 1 (got " + std::to_string(n) + ")");
  at::Tensor t = at::empty({n}, defaults(opt, at::kLong));
  return draw_(t, Dist::perm, DrawParams::perm_size(static_cast<uint64_t>(n)), gen, run);
}
at::Tensor dropout(const at::Tensor& in, double p, Generator& gen, const RunOptions& run) {
  detail::check_strided(in, "dropout");
  if (!default_run(run)) {
    at::Tensor out = at::empty(in.sizes(), in.options());
    return dropout_out(out, in, p, gen, run);
  }
  // Through the operator xrng::dropout: differentiable (the backward
  // regenerates the mask from the position).
  const int stream = gen.stream();
  at::Tensor out;
  reserved(gen, dropout_plan(in, in, p, stream), static_cast<uint64_t>(in.numel()),
           [&](const Key& key, uint64_t offset) { out = ops::dropout(in, p, position_tensor(key, offset, stream)); });
  return out;
}

at::Tensor rand_like(const at::Tensor& like, Generator& gen, at::TensorOptions opt, double low, double high,
                     const RunOptions& run) {
  detail::check_writable(like, "rand_like");
  return rand(like.sizes(), gen, like_options(like, opt), low, high, run);
}
at::Tensor randn_like(const at::Tensor& like, Generator& gen, at::TensorOptions opt, double mean, double std,
                      const RunOptions& run) {
  detail::check_writable(like, "randn_like");
  return randn(like.sizes(), gen, like_options(like, opt), mean, std, run);
}
at::Tensor randint_like(const at::Tensor& like, int64_t low, int64_t high, Generator& gen, at::TensorOptions opt,
                        const RunOptions& run) {
  detail::check_writable(like, "randint_like");
  return randint(low, high, like.sizes(), gen, like_options(like, opt), run);
}
at::Tensor bernoulli_like(const at::Tensor& like, double p, Generator& gen, at::TensorOptions opt,
                          const RunOptions& run) {
  detail::check_writable(like, "bernoulli_like");
  return bernoulli(like.sizes(), p, gen, like_options(like, opt), run);
}

// ---- in-place fills: each one line of draw_ -------------------------------------------------
at::Tensor& uniform_(at::Tensor& t, Generator& gen, double low, double high, const RunOptions& run) {
  return draw_(t, Dist::uniform, DrawParams::range(low, high), gen, run);
}
at::Tensor& normal_(at::Tensor& t, Generator& gen, double mean, double std, const RunOptions& run) {
  return draw_(t, Dist::normal, DrawParams::moments(mean, std), gen, run);
}
at::Tensor& randint_(at::Tensor& t, int64_t low, int64_t high, Generator& gen, const RunOptions& run) {
  return draw_(t, Dist::randint, DrawParams::int_range(low, high), gen, run);
}
at::Tensor& bernoulli_(at::Tensor& t, double p, Generator& gen, const RunOptions& run) {
  return draw_(t, Dist::bernoulli, DrawParams::probability(p), gen, run);
}
at::Tensor& bits_(at::Tensor& t, Generator& gen, const RunOptions& run) {
  return draw_(t, Dist::bits, DrawParams{}, gen, run);
}
at::Tensor& exponential_(at::Tensor& t, Generator& gen, double rate, const RunOptions& run) {
  return draw_(t, Dist::exponential, DrawParams::with_rate(rate), gen, run);
}
at::Tensor& geometric_(at::Tensor& t, double p, Generator& gen, const RunOptions& run) {
  return draw_(t, Dist::geometric, DrawParams::probability(p), gen, run);
}
at::Tensor& log_normal_(at::Tensor& t, Generator& gen, double mean, double std, const RunOptions& run) {
  return draw_(t, Dist::log_normal, DrawParams::moments(mean, std), gen, run);
}
at::Tensor& cauchy_(at::Tensor& t, Generator& gen, double median, double sigma, const RunOptions& run) {
  return draw_(t, Dist::cauchy, DrawParams::location_scale(median, sigma), gen, run);
}
at::Tensor& dropout_(at::Tensor& t, double p, Generator& gen, const RunOptions& run) {
  return dropout_out(t, t, p, gen, run);
}

}  // namespace xrng::torch_api

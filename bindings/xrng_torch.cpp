// xrng for LibTorch: the public functions of xrng_torch.h. They validate a
// request (make_plan, the tensor's type and size, the generator's counter),
// describe it as a detail::Job and hand it to detail::run, which picks the
// device path; the generator advances only after the values are written.
#include "xrng_torch.h"

#include <string>
#include <vector>

#include "detail/dtypes.h"
#include "detail/paths.h"
#include "ops.h"

namespace xrng::torch_api {
namespace {

// Advances a copy of `gen` first: a draw that cannot be made (counter past
// 2^64) throws here, before anything is written, and leaves gen untouched.
Generator advanced(const Generator& gen, const Plan& plan, uint64_t count) {
  Generator next = gen;
  next.skip(plan, count);
  return next;
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
// The stateless forms do the work; the Generator forms check that the draw
// can advance the generator (before anything is written), draw at its
// position and then advance it.
at::Tensor& fill_(at::Tensor& out, const Plan& plan, const Key& key, uint64_t offset, const RunOptions& run) {
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
  check_counters(plan, offset, 0, n);
  detail::Job job;
  job.plan = plan;
  job.key = key;
  job.offset = offset;
  detail::run(out, job, detail::staging_type(plan, type), run);
  return out;
}
at::Tensor& fill_(at::Tensor& out, const Plan& plan, Generator& gen, const RunOptions& run) {
  const Generator next = advanced(gen, plan, static_cast<uint64_t>(out.defined() ? out.numel() : 0));
  fill_(out, plan, gen.key(), gen.offset(), run);
  gen = next;
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
  const Generator next =
      advanced(gen, gen.plan(dist, draw_dtype(dist, out.scalar_type()), params), static_cast<uint64_t>(out.numel()));
  draw_(out, dist, params, gen.key(), gen.offset(), run, gen.stream());
  gen = next;
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
at::Tensor& dropout_out(at::Tensor& out, const at::Tensor& in, double p, const Key& key, uint64_t offset,
                        const RunOptions& run) {
  return dropout_direct(out, in, p, key, offset, run);
}
at::Tensor& dropout_out(at::Tensor& out, const at::Tensor& in, double p, Generator& gen, const RunOptions& run) {
  const Generator next = advanced(gen, dropout_plan(out, in, p, gen.stream()), static_cast<uint64_t>(in.numel()));
  dropout_out(out, in, p, gen.key(), gen.offset(), run);
  gen = next;
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
  const Generator next = advanced(gen, dropout_plan(in, in, p, gen.stream()), static_cast<uint64_t>(in.numel()));
  at::Tensor out = ops::dropout(in, p, position_tensor(gen.key(), gen.offset(), gen.stream()));
  gen = next;
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

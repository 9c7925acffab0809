// xrng: print, fingerprint and verify xrng streams from the command line.
//
//   xrng gen --dist D [--dtype T] [--seed S] [--subseq Q] [--offset W] [--epoch E]
//            [--start I] --count N [--<param> V ...] [--rank R --world W] [--inverse]
//            [--shape D0,D1,... [--block-start S0,S1,...] [--block-size Z0,Z1,...]]
//            [--stream 1|2] [--backend B] [--threads T] [--format F]
//   xrng fingerprint <same arguments>
//   xrng verify [--quick]
//   xrng version
//   xrng [COMMAND] --help | -h
// --stream is the stream version (SPEC.md section 7), 2 (the newest) by default.
//
// Draws are computed in chunks of kChunkBytes whatever --count, so a draw of
// any length runs in bounded memory; between chunks the CLI reports progress
// on stderr when it is a terminal (after the first second) and stops cleanly
// on SIGINT / SIGTERM (exit status 128 + the signal).
//
// The distributions, their dtypes and parameters, the --<param> flags and the
// usage text all come from the registry (rng/registry.h: kDists, kRows,
// kParams): a distribution or parameter added there is available here with no
// edit. Every failure is one line on stderr and a non-zero exit; nothing here
// crashes on bad input.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/xrng.h"
#include "host/torch_cpu.h"
#include "rng/torch_cuda.h"
#include "sha256.h"
#include "verify.h"
#if defined(XRNG_HAVE_CUDA)
#include "device/xrng_cuda_host.h"
#endif

namespace {

using xrng::Error;
using xrng::Param;

// ---- parameters as flags ------------------------------------------------------------------
// Every XRNG_PARAMS entry is a flag --<name>. Two rules the registry cannot
// say are kept here:
//  * aliases: randint's bounds were --low/--high before the registry named its
//    integer bounds ilow/ihigh; --low/--high still set them for a distribution
//    that reads ilow/ihigh and not low/high, so existing command lines work;
//  * required: parameters whose DrawParams default is only a placeholder (a
//    probability, randint's upper bound, a permutation's size); the CLI asks
//    for them rather than drawing with p = 0.5 or failing on an empty range.
struct Alias {
  Param flag;    // the flag --<name of flag> ...
  Param target;  // ... sets this parameter where the distribution reads it and not `flag`
};
constexpr Alias kAliases[] = {{Param::low, Param::ilow}, {Param::high, Param::ihigh}};
constexpr Param kRequired[] = {Param::p, Param::ihigh, Param::n};

const xrng::ParamInfo& param_info(Param p) { return xrng::kParams[static_cast<unsigned>(p)]; }
std::string flag_of(Param p) { return std::string("--") + param_info(p).name; }
bool is_required(Param p) { return std::find(std::begin(kRequired), std::end(kRequired), p) != std::end(kRequired); }

// The flags that set parameter p of a distribution: --p, then its aliases.
std::string flags_of(Param p) {
  std::string s = flag_of(p);
  for (const Alias& a : kAliases)
    if (a.target == p) {
      s += '|';
      s += flag_of(a.flag);
    }
  return s;
}
// The parameter flag `f` sets for distribution d, or nullopt if d reads none.
std::optional<Param> resolve_flag(xrng::Dist d, Param f) {
  if (xrng::dist_has_param(d, f)) return f;
  for (const Alias& a : kAliases)
    if (a.flag == f && xrng::dist_has_param(d, a.target)) return a.target;
  return std::nullopt;
}
// "--low, --high" / "no parameters": what distribution d reads, for messages.
std::string params_of(xrng::Dist d) {
  std::string s;
  for (const xrng::ParamInfo& p : xrng::kParams)
    if (xrng::dist_has_param(d, p.id)) s += (s.empty() ? "" : ", ") + flags_of(p.id);
  return s.empty() ? "no parameters" : s;
}
// A parameter's DrawParams default, as text.
std::string default_of(Param p) {
  const xrng::DrawParams q;
  char b[64];
  switch (param_info(p).kind) {
    case xrng::ParamKind::real: std::snprintf(b, sizeof b, "%g", q.real(p)); break;
    case xrng::ParamKind::integer: std::snprintf(b, sizeof b, "%" PRId64, q.integer(p)); break;
    case xrng::ParamKind::count: std::snprintf(b, sizeof b, "%" PRIu64, q.count(p)); break;
  }
  return b;
}
const char* kind_word(xrng::ParamKind k) {
  switch (k) {
    case xrng::ParamKind::real: return "real";
    case xrng::ParamKind::integer: return "integer";
    case xrng::ParamKind::count: return "count";
  }
  return "?";
}

// ---- usage, from the registry -------------------------------------------------------------
// Appends s to u as a column: padded with spaces to `width`, then one space.
void column(std::string& u, const std::string& s, size_t width) {
  u += s;
  u.append(s.size() < width ? width - s.size() : 0, ' ');
  u += ' ';
}

// The synopsis of each command; `xrng --help` shows them all.
const char kGenSynopsis[] =
    "  xrng gen --dist D [--dtype T] [--seed S] [--subseq Q] [--offset W] [--epoch E] [--start I] --count N\n"
    "           [--<param> V ...] [--rank R --world W] [--inverse] [--stream {1,2}]\n"
    "           [--shape D0,D1,... [--block-start S0,S1,...] [--block-size Z0,Z1,...]]\n"
    "           [--backend {cpu-scalar,cpu-simd,auto,cuda}] [--threads T] [--format {text,hex,bin,null}]\n";
const char kFingerprintSynopsis[] = "  xrng fingerprint <the arguments of gen>   one line: SHA-256 of the bin bytes\n";
const char kVerifySynopsis[] =
    "  xrng verify [--quick]                     golden vectors + every backend against the scalar reference\n";
const char kVersionSynopsis[] = "  xrng version                              version, stream version, SIMD instruction set\n";

// What gen and fingerprint share: their flags, defaults, and the registry's
// distributions and parameters.
std::string draw_help() {
  std::string u =
      "Numbers accept decimal or 0x-hex. --epoch E means --seed 123456789+E. --count is required, except with\n"
      "--shape (below) and for --dist perm: the rest of the permutation (n - start), or with --rank/--world the\n"
      "rest of the shard (ceil(n / world) - start elements: DistributedSampler's length).\n"
      "--stream V: the stream version (SPEC.md section 7), 1 or 2, default " +
      std::to_string(xrng::kStreamVersion) + "; 1 gives the values of the releases before stream 2.\n"
      "--stream torch-cpu-KERNEL[@REL], KERNEL x86 | scalar | arm | arm-sve256 | x86-windows | x86-intel |\n"
      "x86-intel-avx512 | scalar-intel: torch's CPU\n"
      "generator (SPEC.md \"torch CPU streams\"): the values\n"
      "of torch.manual_seed(S); torch.randn(N) (--dist normal, --mean/--std), torch.rand(N) / uniform_ (--dist\n"
      "uniform, --low/--high), exponential_ (--lambda|--rate), cauchy_ (--median/--sigma), log_normal_\n"
      "(--mean/--std), geometric_ (--p; also i64), bernoulli_ (--p; also i64, i32, u8 for bool) in f32, f64, f16 or\n"
      "bf16; torch.randint(--low, --high, (N,)) (i64 default, i32) and torch.randperm(--n) (--dist perm or randperm,\n"
      "i64), on an x86 CPU running torch's AVX2 or default kernel or on an AArch64 CPU (arm: SPEC.md 14.8), or\n"
      "torch's Windows wheels' AVX2 kernel (x86-windows: SPEC.md 14.9), or the AVX2 kernel on an Intel CPU\n"
      "without or with AVX-512 (x86-intel, x86-intel-avx512: x86 but MKL's exponential_ logarithm, 2.0 to 2.6,\n"
      "SPEC.md 14.7), or the default kernel on an Intel CPU without AVX2 (scalar-intel: scalar but MKL's\n"
      "exponential_ logarithm, 2.0 to 2.6,\n"
      "SPEC.md 14.7); besides\n"
      "those only --seed, --count, --dtype, --format.\n"
      "@REL (MAJOR.MINOR[.PATCH], 1.13 on): that torch release's values where releases differ (16-bit uniforms and\n"
      "normals up to 2.12, the scalar kernel's unfused normal before 2.13, 2.0 to 2.6's MKL bernoulli_ and\n"
      "exponential_, randint's one word below 2^32 before 2.7; SPEC.md 14.7), e.g. torch-cpu-x86@2.4.\n"
      "--stream torch-cuda --sm-count N [--threads-per-sm T (default 2048)]: torch's CUDA generator (SPEC.md section\n"
      "15): torch.cuda.manual_seed(S); torch.rand(N) / uniform_(--low, --high) (f32, f64, f16, bf16), torch.randn(N),\n"
      "exponential_(--lambda|--rate), cauchy_(--median, --sigma), log_normal_(--mean, --std), geometric_(--p) or\n"
      "bernoulli_(--p) (models, unmeasured), torch.randint(--low, --high, (N,)) and torch.randperm(--n) (i64) on a\n"
      "GPU of N SMs (H100 SXM 132, A100 108, L4 58 with T 1536, T4 40 with T 1024).\n"
      "--shape D0,D1,...: draw over a global tensor of that shape (row-major global element indices) and\n"
      "print the elements of its block --block-start S0,S1,... (default 0,...) of --block-size Z0,Z1,...\n"
      "(default: to the end of each dimension), row-major over the block: the same values as those elements\n"
      "of the full draw (--count prod(shape)), so the blocks of any sharding put together are the full draw.\n"
      "Replaces --start/--count; --shape '' is a 0-d tensor. A permutation's n must be prod(shape).\n"
      "--threads T: 0 (all) to " + std::to_string(xrng::kMaxThreads) +
      ", default 1; neither it nor --backend ever changes a value.\n"
      "Long draws show their progress on stderr when stderr is a terminal (not when stdout is the same terminal\n"
      "and values are printed there); Ctrl-C (SIGINT) or SIGTERM stops a draw between chunks, exit status\n"
      "128 + the signal (130, 143).\n"
      "\n"
      "distributions (--dist D), their dtypes (--dtype T; * = default) and parameters (* = required):\n";
  // One line per distribution; the columns are as wide as their widest entry.
  struct Line {
    const xrng::DistInfo* d;
    std::string dtypes, params;
  };
  std::vector<Line> lines;
  size_t w_name = 0, w_dtypes = 0, w_params = 0;
  for (const xrng::DistInfo& d : xrng::kDists) {
    Line l{&d, {}, {}};
    for (xrng::DType t : xrng::dist_dtypes(d.id)) {
      if (!l.dtypes.empty()) l.dtypes += ' ';
      l.dtypes += xrng::dtype_name(t);
      if (t == d.default_dtype) l.dtypes += '*';
    }
    for (const xrng::ParamInfo& p : xrng::kParams) {
      if (!xrng::dist_has_param(d.id, p.id)) continue;
      if (!l.params.empty()) l.params += ' ';
      l.params += flags_of(p.id);
      if (is_required(p.id)) l.params += '*';
    }
    w_name = std::max(w_name, std::strlen(d.name));
    w_dtypes = std::max(w_dtypes, l.dtypes.size());
    w_params = std::max(w_params, l.params.size());
    lines.push_back(l);
  }
  const std::string indent(2 + w_name + 1 + w_dtypes + 1, ' ');  // under the parameters column
  for (const Line& l : lines) {
    u += "  ";
    column(u, l.d->name, w_name);
    column(u, l.dtypes, w_dtypes);
    column(u, l.params, w_params);
    u += l.d->doc;
    u += '\n';
    if (l.d->kind == xrng::Kind::permutation)
      u += indent + "--rank R --world W: shard R of W; --inverse: the positions of values\n";
    if (l.d->kind == xrng::Kind::transform)
      u += indent + "transforms an input: the C++ (xrng::transform) and Python APIs only, not the CLI\n";
  }
  u += "\nparameters (--<param> V):\n";
  for (const xrng::ParamInfo& p : xrng::kParams) {
    u += "  ";
    column(u, flag_of(p.id), 10);
    column(u, kind_word(p.kind), 8);
    u += p.doc;
    if (!is_required(p.id)) u += " (default " + default_of(p.id) + ")";
    u += '\n';
  }
  u += "Real location and scale parameters (--low --high --mean --std --median --sigma) must be finite in the\n"
       "output dtype (f16: |x| <= 65504); values of a draw beyond the dtype's range round to +-inf.\n";
  return u;
}

// `xrng --help`: every command, then what gen and fingerprint take.
std::string usage() {
  return std::string("usage:\n") + kGenSynopsis + kFingerprintSynopsis + kVerifySynopsis + kVersionSynopsis +
         "  xrng COMMAND --help                       the usage of one command\n\n" + draw_help();
}

// `xrng COMMAND --help`, or "" for an unknown command.
std::string command_usage(const std::string& cmd) {
  if (cmd == "gen")
    return std::string("usage:\n") + kGenSynopsis +
           "Prints elements [start, start + count) of a draw (with --shape: the block's elements), one per line\n"
           "(text: round-trippable decimals; hex: the bits), as raw little-endian bytes (bin) or not at all (null).\n\n" + draw_help();
  if (cmd == "fingerprint")
    return std::string("usage:\n") + kFingerprintSynopsis +
           "Takes gen's arguments except --format and prints one line: the SHA-256 of the bytes gen --format bin\n"
           "prints, then the draw. Two machines agree when their lines agree.\n\n" + draw_help();
  if (cmd == "verify")
    return std::string("usage:\n") + kVerifySynopsis +
           "Checks every golden vector (tests/data/golden_v1.txt, built in) on every backend of this build and\n"
           "prints one row per registry row, then a block of a 3-d global tensor per row (fill_block) against the\n"
           "block's slice of the full draw; exit status 1 if any backend differs. --quick: fewer elements.\n";
  if (cmd == "version") return std::string("usage:\n") + kVersionSynopsis;
  return "";
}

// ---- strict number parsing ----------------------------------------------------------
uint64_t parse_u64(const std::string& flag, const std::string& s) {
  if (s.empty() || s[0] == '-' || s[0] == '+' || std::isspace(static_cast<unsigned char>(s[0])))
    throw Error(flag + ": expected a non-negative integer, got '" + s + "'");
  errno = 0;
  char* end = nullptr;
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const unsigned long long v = std::strtoull(hex ? s.c_str() + 2 : s.c_str(), &end, hex ? 16 : 10);
  if (errno == ERANGE) throw Error(flag + ": '" + s + "' overflows 64 bits");
  if (*end != '\0' || end == (hex ? s.c_str() + 2 : s.c_str()))
    throw Error(flag + ": expected a non-negative integer, got '" + s + "'");
  return v;
}
int64_t parse_i64(const std::string& flag, const std::string& s) {
  const bool neg = !s.empty() && s[0] == '-';
  const uint64_t mag = parse_u64(flag, neg ? s.substr(1) : s);
  if (neg) {
    if (mag > (1ull << 63)) throw Error(flag + ": '" + s + "' is below -2^63");
    return mag == (1ull << 63) ? INT64_MIN : -static_cast<int64_t>(mag);
  }
  if (mag > static_cast<uint64_t>(INT64_MAX)) throw Error(flag + ": '" + s + "' exceeds 2^63-1");
  return static_cast<int64_t>(mag);
}
double parse_f64(const std::string& flag, const std::string& s) {
  if (s.empty()) throw Error(flag + ": expected a number");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || end == s.c_str()) throw Error(flag + ": expected a number, got '" + s + "'");
  if (errno == ERANGE && std::fabs(v) > 1.0) throw Error(flag + ": '" + s + "' overflows double");
  return v;
}

// ---- a request -------------------------------------------------------------------------
struct Request {
  xrng::Plan plan;
  xrng::Key key;
  uint64_t offset = 0, start = 0, count = 0;
  bool shard = false, inverse = false;
  bool block = false;       // --shape: the block `tensor_block` of a global tensor
  xrng::TensorBlock tensor_block;
  uint64_t rank = 0, world = 1;
  std::string backend = "auto";
  int threads = 1;
  std::string format = "text";
  std::string describe;
};

// The flags of gen / fingerprint that are not parameters.
const char* const kFlags[] = {"--dist",  "--dtype", "--seed",    "--subseq",  "--offset", "--epoch", "--start",
                              "--count", "--rank",  "--world",   "--backend", "--threads", "--format",
                              "--stream", "--shape", "--block-start", "--block-size"};

// "4,6" -> {4, 6}; "" -> {} (a 0-d tensor).
std::vector<uint64_t> parse_dims(const std::string& flag, const std::string& s) {
  std::vector<uint64_t> v;
  if (s.empty()) return v;
  for (size_t p = 0;;) {
    const size_t q = s.find(',', p);
    v.push_back(parse_u64(flag, s.substr(p, q == std::string::npos ? std::string::npos : q - p)));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return v;
}

Request parse_request(const std::vector<std::string>& args, bool allow_format) {
  std::map<std::string, std::string> kv;
  bool inverse = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--inverse") {
      inverse = true;
      continue;
    }
    bool known = false;
    for (const char* f : kFlags) known = known || a == f;
    for (const xrng::ParamInfo& p : xrng::kParams) known = known || a == flag_of(p.id);
    if (!known) throw Error("unknown argument '" + a + "' (see xrng --help)");
    if (i + 1 >= args.size()) throw Error(a + " needs a value");
    if (kv.count(a)) throw Error(a + " given twice");
    kv[a] = args[++i];
  }
  // The value of flag f, or nullptr when it was not given.
  auto get = [&](const std::string& f) -> const std::string* {
    auto it = kv.find(f);
    return it == kv.end() ? nullptr : &it->second;
  };
  if (!get("--dist")) throw Error("--dist is required");
  Request r;
  const xrng::Dist dist = xrng::parse_dist(*get("--dist"));
  const xrng::Kind kind = xrng::dist_kind(dist);
  if (kind == xrng::Kind::transform)
    throw Error(std::string("--dist ") + xrng::dist_name(dist) +
                " transforms an input tensor: use the C++ (xrng::transform) or Python API");
  const xrng::DType dtype = get("--dtype") ? xrng::parse_dtype(*get("--dtype")) : xrng::default_dtype(dist);

  if (get("--seed") && get("--epoch")) throw Error("give --seed or --epoch, not both");
  uint64_t seed = get("--seed") ? parse_u64("--seed", *get("--seed")) : 0;
  if (get("--epoch")) seed = xrng::epoch_seed(parse_u64("--epoch", *get("--epoch")));
  const uint64_t subseq = get("--subseq") ? parse_u64("--subseq", *get("--subseq")) : 0;
  r.key = xrng::Key(seed, subseq);
  r.offset = get("--offset") ? parse_u64("--offset", *get("--offset")) : 0;
  r.start = get("--start") ? parse_u64("--start", *get("--start")) : 0;

  // Parameters: every --<param> flag given must be one the distribution reads
  // (directly or through an alias), at most once per parameter.
  xrng::DrawParams q;
  uint32_t set = 0;  // param_bit() of the parameters given
  for (const xrng::ParamInfo& f : xrng::kParams) {
    const std::string flag = flag_of(f.id);
    if (!get(flag)) continue;
    const std::optional<Param> target = resolve_flag(dist, f.id);
    if (!target)
      throw Error(flag + " does not apply to --dist " + xrng::dist_name(dist) + " (it reads " + params_of(dist) + ")");
    if (set & xrng::param_bit(*target))
      throw Error(flags_of(*target) + ": give one of them, not both");
    set |= xrng::param_bit(*target);
    const std::string& v = *get(flag);
    switch (param_info(*target).kind) {
      case xrng::ParamKind::real: q.set_real(*target, parse_f64(flag, v)); break;
      case xrng::ParamKind::integer: q.set_integer(*target, parse_i64(flag, v)); break;
      case xrng::ParamKind::count: q.set_count(*target, parse_u64(flag, v)); break;
    }
  }
  for (Param p : kRequired)
    if (xrng::dist_has_param(dist, p) && !(set & xrng::param_bit(p)))
      throw Error(std::string("--dist ") + xrng::dist_name(dist) + " needs " + flags_of(p));
  int stream = xrng::kStreamVersion;
  if (const std::string* v = get("--stream")) {
    const uint64_t n = parse_u64("--stream", *v);
    if (n < static_cast<uint64_t>(xrng::kOldestStreamVersion) || n > static_cast<uint64_t>(xrng::kStreamVersion))
      throw Error("--stream: stream version " + *v + " does not exist (" + std::to_string(xrng::kOldestStreamVersion) +
                  ".." + std::to_string(xrng::kStreamVersion) + ")");
    stream = static_cast<int>(n);
  }
  r.plan = xrng::make_plan(dist, dtype, q, stream);

  const bool perm = kind == xrng::Kind::permutation;
  for (const char* f : {"--rank", "--world"})
    if (get(f) && !perm)
      throw Error(std::string(f) + " applies to permutation draws only (--dist " + xrng::dist_name(dist) +
                  " is not one)");
  if (inverse && !perm)
    throw Error(std::string("--inverse applies to permutation draws only (--dist ") + xrng::dist_name(dist) +
                " is not one)");
  if (get("--rank") || get("--world")) {
    if (!get("--rank") || !get("--world")) throw Error("--rank and --world go together");
    if (inverse) throw Error("--inverse and --rank/--world do not go together");
    r.shard = true;
    r.rank = parse_u64("--rank", *get("--rank"));
    r.world = parse_u64("--world", *get("--world"));
    if (r.world == 0 || r.rank >= r.world) throw Error("need 0 <= --rank < --world");
  }
  r.inverse = inverse;
  if (get("--block-start") || get("--block-size")) {
    if (!get("--shape")) throw Error(std::string(get("--block-start") ? "--block-start" : "--block-size") +
                                     " needs --shape (the global tensor's shape)");
  }
  if (get("--shape")) {
    for (const char* f : {"--start", "--count", "--rank", "--world"})
      if (get(f))
        throw Error(std::string(f) + " does not go with --shape (a block is chosen by --block-start/--block-size)");
    if (inverse) throw Error("--inverse does not go with --shape");
    xrng::TensorBlock& b = r.tensor_block;
    b.shape = parse_dims("--shape", *get("--shape"));
    b.start = get("--block-start") ? parse_dims("--block-start", *get("--block-start"))
                                   : std::vector<uint64_t>(b.shape.size(), 0);
    if (b.start.size() != b.shape.size())
      throw Error("--block-start has " + std::to_string(b.start.size()) + " entries, --shape " +
                  std::to_string(b.shape.size()) + " (one per dimension)");
    if (get("--block-size")) {
      b.size = parse_dims("--block-size", *get("--block-size"));
      if (b.size.size() != b.shape.size())
        throw Error("--block-size has " + std::to_string(b.size.size()) + " entries, --shape " +
                    std::to_string(b.shape.size()) + " (one per dimension)");
    } else {
      for (size_t d = 0; d < b.shape.size(); ++d) {
        if (b.start[d] > b.shape[d])
          throw Error("--block-start: dimension " + std::to_string(d) + ": start " + std::to_string(b.start[d]) +
                      " exceeds the global extent " + std::to_string(b.shape[d]));
        b.size.push_back(b.shape[d] - b.start[d]);
      }
    }
    r.block = true;
    r.count = xrng::check_block(r.plan, r.offset, b, 0, xrng::BlockLayout::make(b).count).count;
  } else if (get("--count")) {
    r.count = parse_u64("--count", *get("--count"));
  } else if (perm) {
    // The rest of the permutation, or of the shard: a shard has ceil(n / world)
    // elements (DistributedSampler's length; Python's perm_shard default).
    const uint64_t length = r.shard ? r.plan.n / r.world + (r.plan.n % r.world != 0 ? 1 : 0) : r.plan.n;
    if (r.start > length)
      throw Error("--start " + std::to_string(r.start) + " exceeds the " + (r.shard ? "shard's" : "permutation's") +
                  " length " + std::to_string(length));
    r.count = length - r.start;
  } else {
    throw Error("--count is required");
  }
  if (r.shard) {
    xrng::check_counters(r.plan, r.offset, 0, 0);
  } else if (!r.block) {
    xrng::check_counters(r.plan, r.offset, r.start, r.count);
  }
  r.backend = get("--backend") ? *get("--backend") : "auto";
  if (r.backend != "cpu-scalar" && r.backend != "cpu-simd" && r.backend != "auto" && r.backend != "cuda")
    throw Error("unknown backend '" + r.backend + "' (cpu-scalar, cpu-simd, auto, cuda)");
#if !defined(XRNG_HAVE_CUDA)
  if (r.backend == "cuda") throw Error("backend cuda: this xrng was built without CUDA");
#else
  if (r.backend == "cuda" && !xrng::cuda::available()) throw Error("backend cuda: no CUDA device is available");
#endif
  if (get("--threads")) {
    const uint64_t t = parse_u64("--threads", *get("--threads"));
    xrng::check_threads(static_cast<long long>(std::min<uint64_t>(t, INT64_MAX)), "--threads");
    r.threads = static_cast<int>(t);
  }
  if (get("--format")) {
    if (!allow_format) throw Error("--format does not apply to fingerprint");
    r.format = *get("--format");
    if (r.format != "text" && r.format != "hex" && r.format != "bin" && r.format != "null")
      throw Error("unknown format '" + r.format + "' (text, hex, bin, null)");
  }
  char d[512];
  std::snprintf(d, sizeof d, "%s %s stream=%d seed=%" PRIu64 " subseq=%" PRIu64 " offset=%" PRIu64 " start=%" PRIu64
                " count=%" PRIu64,
                xrng::dist_name(dist), xrng::dtype_name(dtype), int(r.plan.stream), seed, subseq, r.offset, r.start,
                r.count);
  r.describe = d;
  if (r.block) {
    r.describe += xrng::detail::block_tokens(r.tensor_block);
  }
  return r;
}

// Computes elements [start + b, start + b + m) of the request into out.
void compute(const Request& r, uint64_t b, uint64_t m, void* out) {
  xrng::FillOptions opt;
  opt.threads = r.threads;
  opt.backend = r.backend == "cpu-scalar" ? xrng::Backend::scalar
                : r.backend == "cpu-simd" ? xrng::Backend::simd
                                          : xrng::Backend::automatic;
#if defined(XRNG_HAVE_CUDA)
  if (r.backend == "cuda") {
    if (r.block)
      xrng::cuda::fill_block_to_host(r.plan, r.key, r.offset, r.tensor_block, r.start + b, m, out);
    else if (r.shard)
      xrng::cuda::perm_shard_to_host(r.plan, r.key, r.offset, r.rank, r.world, r.start + b, m, out);
    else if (r.inverse)
      xrng::cuda::perm_inverse_to_host(r.plan, r.key, r.offset, r.start + b, m, out);
    else
      xrng::cuda::fill_to_host(r.plan, r.key, r.offset, r.start + b, m, out);
    return;
  }
#endif
  if (r.block)
    xrng::fill_block(r.plan, r.key, r.offset, r.tensor_block, r.start + b, m, out, opt);
  else if (r.shard)
    xrng::perm_shard(r.plan, r.key, r.offset, r.rank, r.world, r.start + b, m, out, opt);
  else if (r.inverse)
    xrng::perm_inverse(r.plan, r.key, r.offset, r.start + b, m, out, opt);
  else
    xrng::fill(r.plan, r.key, r.offset, r.start + b, m, out, opt);
}

// Appends element i of p (dtype t) to s as one line: text (round-trippable
// decimals) or hex (the bits).
void append_text(std::string& s, xrng::DType t, const void* p, uint64_t i) {
  using xrng::DType;
  char b[64];
  switch (t) {
    case DType::u32: std::snprintf(b, sizeof b, "%" PRIu32 "\n", static_cast<const uint32_t*>(p)[i]); break;
    case DType::u64: std::snprintf(b, sizeof b, "%" PRIu64 "\n", static_cast<const uint64_t*>(p)[i]); break;
    case DType::i32: std::snprintf(b, sizeof b, "%" PRId32 "\n", static_cast<const int32_t*>(p)[i]); break;
    case DType::i64: std::snprintf(b, sizeof b, "%" PRId64 "\n", static_cast<const int64_t*>(p)[i]); break;
    case DType::u8: std::snprintf(b, sizeof b, "%u\n", static_cast<const uint8_t*>(p)[i]); break;
    case DType::f32: std::snprintf(b, sizeof b, "%.9g\n", static_cast<double>(static_cast<const float*>(p)[i])); break;
    case DType::f64: std::snprintf(b, sizeof b, "%.17g\n", static_cast<const double*>(p)[i]); break;
    case DType::f16:
      std::snprintf(b, sizeof b, "%.9g\n",
                    static_cast<double>(xrng::math::f16_bits_to_f32(static_cast<const uint16_t*>(p)[i])));
      break;
    case DType::bf16:
      std::snprintf(b, sizeof b, "%.9g\n",
                    static_cast<double>(xrng::math::bf16_bits_to_f32(static_cast<const uint16_t*>(p)[i])));
      break;
  }
  s += b;
}
void append_hex(std::string& s, xrng::DType t, const void* p, uint64_t i) {
  char b[32];
  switch (xrng::dtype_size(t)) {
    case 1: std::snprintf(b, sizeof b, "%02x\n", static_cast<const uint8_t*>(p)[i]); break;
    case 2: std::snprintf(b, sizeof b, "%04x\n", static_cast<const uint16_t*>(p)[i]); break;
    case 4: std::snprintf(b, sizeof b, "%08" PRIx32 "\n", static_cast<const uint32_t*>(p)[i]); break;
    default: std::snprintf(b, sizeof b, "%016" PRIx64 "\n", static_cast<const uint64_t*>(p)[i]); break;
  }
  s += b;
}

// ---- long draws: chunks, progress, signals ---------------------------------------------------
// A draw is computed in chunks of at most kChunkBytes, whatever --count: the
// memory is bounded, and between chunks (a few milliseconds each) the CLI can
// report progress and notice a signal. Values never depend on the chunking.
constexpr uint64_t kChunkBytes = uint64_t{4} << 20;

// The signal that asked a draw to stop (SIGINT, SIGTERM), or 0.
volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_stop_signal(int sig) { g_signal = sig; }

// A draw stopped by a signal at a chunk boundary: the first `done` of `total`
// elements were computed (and, for gen, written).
struct Interrupted {
  int sig;
  uint64_t done, total;
};

// SIGINT and SIGTERM set g_signal instead of killing the process, for the
// lifetime of this object. No SA_RESTART: a write blocked on a full pipe
// returns (EINTR), so the draw stops even when nobody reads its output.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// "1:02:03", "3d 04:05:06", "2.1e+03 years".
std::string duration(double s) {
  char b[64];
  if (!(s < 1e300)) return "?";
  if (s >= 365.25 * 86400) {
    std::snprintf(b, sizeof b, "%.3g years", s / (365.25 * 86400));
    return b;
  }
  const uint64_t t = static_cast<uint64_t>(s + 0.5);
  if (t >= 86400)
    std::snprintf(b, sizeof b, "%" PRIu64 "d %02u:%02u:%02u", t / 86400, static_cast<unsigned>(t / 3600 % 24),
                  static_cast<unsigned>(t / 60 % 60), static_cast<unsigned>(t % 60));
  else
    std::snprintf(b, sizeof b, "%u:%02u:%02u", static_cast<unsigned>(t / 3600), static_cast<unsigned>(t / 60 % 60),
                  static_cast<unsigned>(t % 60));
  return b;
}

// One status line on stderr, rewritten in place ("\r", erase to the end of
// the line): percent, elements done, rate, ETA. Shown only when stderr is a
// terminal, once the draw has run for kDelay, at most every kEvery; cleared
// when the draw ends. Not shown when the values go to the same terminal as
// the status line (they would interleave; the values are the progress then).
class Progress {
 public:
  static constexpr std::chrono::milliseconds kDelay{1000}, kEvery{250};

  Progress(uint64_t total, bool values_to_stdout)
      : total_(total),
        on_(total > 0 && isatty(STDERR_FILENO) == 1 && !(values_to_stdout && same_terminal())),
        start_(Clock::now()) {}
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void update(uint64_t done) {
    if (!on_) return;
    const Clock::time_point now = Clock::now();
    if (now - start_ < kDelay || (shown_ && now - last_ < kEvery)) return;
    last_ = now;
    shown_ = true;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double rate = static_cast<double>(done) / secs;
    const double left = static_cast<double>(total_ - done);
    char b[256];
    std::snprintf(b, sizeof b, "\r\033[Kxrng: %5.1f%%  %" PRIu64 " / %" PRIu64 " elements  %.3g elements/s  ETA %s",
                  100.0 * static_cast<double>(done) / static_cast<double>(total_), done, total_, rate,
                  rate > 0 ? duration(left / rate).c_str() : "?");
    std::fputs(b, stderr);
    std::fflush(stderr);
  }
  void clear() {
    if (!shown_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static bool same_terminal() {
    if (isatty(STDOUT_FILENO) != 1) return false;
    const char* a = ttyname(STDOUT_FILENO);
    const std::string out = a ? a : "";
    const char* e = ttyname(STDERR_FILENO);
    return out.empty() || (e != nullptr && out == e);
  }
  uint64_t total_;
  bool on_;
  bool shown_ = false;
  Clock::time_point start_, last_;
};

// Streams the request in chunks, calling sink(bytes, n_elems) for each;
// throws Interrupted when a SIGINT or SIGTERM arrives (checked after every
// chunk, and by the sink when a write fails).
template <class Sink>
void run_chunks(const Request& r, bool values_to_stdout, Sink sink) {
  const uint64_t esz = static_cast<uint64_t>(xrng::dtype_size(r.plan.dtype));
  const uint64_t chunk = std::max<uint64_t>(1, std::min<uint64_t>(r.count, kChunkBytes / esz));
  std::unique_ptr<unsigned char[]> buf(new unsigned char[chunk * esz]);
  StopSignals stop;
  Progress progress(r.count, values_to_stdout);
  for (uint64_t b = 0; b < r.count; b += chunk) {
    const uint64_t m = std::min(chunk, r.count - b);
    compute(r, b, m, buf.get());
    if (g_signal != 0) throw Interrupted{g_signal, b, r.count};
    sink(buf.get(), m);
    if (g_signal != 0) throw Interrupted{g_signal, b + m, r.count};
    progress.update(b + m);
  }
}

// Writes n bytes to stdout with write(2), not stdio: a write that a signal
// interrupts (EINTR, or a partial write to a full pipe) stops the draw
// instead of being retried, so a reader that stopped reading cannot keep the
// process blocked. `done` / `total`: elements, for the Interrupted report.
void write_out(const void* data, size_t n, uint64_t done, uint64_t total) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    // A signal that came while the chunk was computed or formatted (text
    // under a sanitizer takes seconds) interrupted no write: without this
    // check the next write would block on a full pipe for good.
    if (g_signal != 0) throw Interrupted{g_signal, done, total};
    const ssize_t w = ::write(STDOUT_FILENO, p, n);
    if (g_signal != 0) throw Interrupted{g_signal, done, total};
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("write to stdout failed: ") + std::strerror(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}


// ---- torch's CPU generator (--stream torch-cpu-<kernel>: torch_cpu::kernel_named's names) ---
// The values of `torch.manual_seed(S); torch.randn(N)` (--dist normal,
// f32 or f64, --mean/--std), `torch.rand(N)` / `uniform_(low, high)`
// (--dist uniform, --low/--high), `exponential_(lambda)` (--dist
// exponential, --lambda) or `cauchy_(median, sigma)` (--dist cauchy,
// --median/--sigma) on a CPU running torch's x86 (AVX2) or default
// kernels (rng/torch_cpu.h). A sequential stream: it is drawn whole, so
// --count is bounded.

// The torch stream named by the value of --stream, or nullopt for an xrng version.
// torch-cuda (rng/torch_cuda.h) gives torch.manual_seed(S); torch.rand(N) /
// torch.randn(N) on a CUDA GPU of --sm-count SMs (--threads-per-sm, default 2048).
// torch-cpu-x86@REL / torch-cpu-scalar@REL / torch-cpu-arm@REL: torch release REL's values where
// releases differ (xrng::torch_cpu::release_of, SPEC.md 14.7).
struct TorchStream {
  bool cuda = false;
  xrng::torch_cpu::Kernel kernel = xrng::torch_cpu::Kernel::x86;
  xrng::torch_cpu::Release release = xrng::torch_cpu::Release::r2_13;
};
std::optional<TorchStream> torch_stream(const std::vector<std::string>& args) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] != "--stream") continue;
    const std::string& v = args[i + 1];
    const size_t at = v.find('@');
    const std::string name = v.substr(0, at);
    TorchStream t{false};  // torch-cpu-<kernel name> (torch_cpu::kernel_named)
    if (name.rfind("torch-cpu-", 0) != 0 || !xrng::torch_cpu::kernel_named(name.c_str() + 10, t.kernel)) {
      if (v == "torch-cuda") return TorchStream{true, xrng::torch_cpu::Kernel::x86};
      if (at != std::string::npos && name == "torch-cuda") throw Error("--stream torch-cuda takes no @release");
      continue;
    }
    if (at != std::string::npos) {
      try {
        t.release = xrng::torch_cpu::release_of(v.substr(at + 1));
      } catch (const std::invalid_argument& e) {
        throw Error(std::string("--stream ") + v + ": " + e.what());
      }
    }
    return t;
  }
  return std::nullopt;
}

struct TorchRequest {
  std::vector<unsigned char> bytes;
  xrng::DType dtype = xrng::DType::f32;
  uint64_t count = 0;
  std::string describe;
  std::string format = "text";
};

// --sm-count (required) and --threads-per-sm (default 2048) of --stream torch-cuda.
xrng::torch_cuda::Device torch_cuda_device(std::map<std::string, std::string>& kv) {
  if (!kv.count("--sm-count")) throw Error("--sm-count is required for --stream torch-cuda");
  const uint64_t sm = parse_u64("--sm-count", kv["--sm-count"]);
  const uint64_t tps = kv.count("--threads-per-sm") ? parse_u64("--threads-per-sm", kv["--threads-per-sm"]) : 2048;
  if (sm < 1 || sm > 65535) throw Error("--sm-count must be in [1, 65535]");
  if (tps < 256 || tps > 4096) throw Error("--threads-per-sm must be in [256, 4096]");
  return xrng::torch_cuda::Device{static_cast<uint32_t>(sm), static_cast<uint32_t>(tps)};
}

// --stream torch-cuda: the values of torch.cuda.manual_seed(S); torch.randn(N) (--mean/--std),
// torch.rand(N) / uniform_(low, high), exponential_(lambda) or cauchy_(median, sigma) on a GPU of --sm-count SMs
// (rng/torch_cuda.h; SPEC.md section 15: the normal, exponential and cauchy are models, unmeasured).
TorchRequest torch_cuda_request(std::map<std::string, std::string>& kv, const std::string& dist, TorchRequest& r) {
  namespace tg = xrng::torch_cuda;
  const xrng::torch_cuda::Device d = torch_cuda_device(kv);
  tg::Type t;
  switch (r.dtype) {
    case xrng::DType::f32: t = tg::Type::f32; break;
    case xrng::DType::f64: t = tg::Type::f64; break;
    case xrng::DType::f16: t = tg::Type::f16; break;
    case xrng::DType::bf16: t = tg::Type::bf16; break;
    default: throw Error("--dtype " + kv["--dtype"] + ": torch-cuda gives f32, f64, f16 or bf16");
  }
  const uint64_t seed = kv.count("--seed") ? parse_u64("--seed", kv["--seed"]) : 0;
  r.count = parse_u64("--count", kv["--count"]);
  if (r.count > (1ull << 30)) throw Error("--count: at most 2^30 elements for a torch stream");
  const std::map<std::string, std::vector<const char*>> params = {
      {"normal", {"--mean", "--std"}}, {"uniform", {"--low", "--high"}}, {"exponential", {"--lambda"}},
      {"cauchy", {"--median", "--sigma"}}};
  for (const char* a : {"--mean", "--std", "--low", "--high", "--lambda", "--median", "--sigma"}) {
    bool ok = false;
    for (const char* b : params.at(dist)) ok = ok || std::string(a) == b;
    if (kv.count(a) && !ok) throw Error(std::string(a) + " does not apply to --dist " + dist);
  }
  // Read as double, as torch's Python arguments are: tg::randn rounds mean and std to float for the
  // dtypes where torch's kernel does (f32, f16, bf16) and keeps them double for f64.
  auto num = [&](const char* a, double dflt) { return kv.count(a) ? parse_f64(a, kv[a]) : dflt; };
  const double mean = num("--mean", 0.0), stdv = num("--std", 1.0);
  const double low = num("--low", 0.0), high = num("--high", 1.0), lambda = num("--lambda", 1.0);
  const double median = num("--median", 0.0), sigma = num("--sigma", 1.0);
  if (dist == "cauchy" && !(sigma > 0.0)) throw Error("--sigma must be > 0");
  if (dist == "uniform" && !(low <= high && std::isfinite(low) && std::isfinite(high)))
    throw Error("--low/--high: need finite low <= high");
  if (dist == "exponential" && !(lambda > 0.0)) throw Error("--lambda must be > 0");
  if (kv.count("--format")) {
    r.format = kv["--format"];
    if (r.format != "text" && r.format != "hex" && r.format != "bin" && r.format != "null")
      throw Error("unknown format '" + r.format + "' (text, hex, bin, null)");
  }
  tg::State st{seed, 0};
  r.bytes.resize(r.count * static_cast<uint64_t>(xrng::dtype_size(r.dtype)));
  if (dist == "normal")
    tg::randn(st, d, r.count, t, mean, stdv, r.bytes.data());
  else if (dist == "exponential")
    tg::exponential(st, d, r.count, t, lambda, r.bytes.data());
  else if (dist == "cauchy")
    tg::cauchy(st, d, r.count, t, median, sigma, r.bytes.data());
  else if (low == 0.0 && high == 1.0)
    tg::rand(st, d, r.count, t, r.bytes.data());
  else
    tg::uniform(st, d, r.count, t, low, high, r.bytes.data());
  r.describe = dist + " " + xrng::dtype_name(r.dtype) + " stream=torch-cuda sm_count=" + std::to_string(d.sm_count) +
               " threads_per_sm=" + std::to_string(d.threads_per_sm) + " seed=" + std::to_string(seed) +
               " count=" + std::to_string(r.count);
  if (dist == "exponential") r.describe += " lambda=" + (kv.count("--lambda") ? kv["--lambda"] : std::string("1"));
  for (const char* a : {"--mean", "--std", "--low", "--high", "--median", "--sigma"})
    if (kv.count(a)) r.describe += std::string(" ") + (a + 2) + "=" + kv[a];
  return r;
}

// The --dist values a torch stream gives ("|"-separated).
const char* torch_dists(bool cuda) {
  return cuda ? "normal|uniform|exponential|cauchy|log_normal|geometric|bernoulli|randint|perm"
              : "normal|uniform|exponential|cauchy|log_normal|geometric|bernoulli|randint|perm";
}

// randint (--low/--high, integers), bernoulli (--p), geometric (--p), log_normal (--mean/--std) and
// perm (--n) on a torch stream: the whole draws of host/torch_cpu.h and rng/torch_cuda.h.
TorchRequest torch_discrete_request(std::map<std::string, std::string>& kv, const std::string& dist, TorchStream ts,
                                    TorchRequest& r) {
  const uint64_t seed = kv.count("--seed") ? parse_u64("--seed", kv["--seed"]) : 0;
  r.count = parse_u64("--count", kv["--count"]);
  if (r.count > (1ull << 30)) throw Error("--count: a torch stream is drawn whole, at most 2^30 elements");
  if (kv.count("--format")) {
    r.format = kv["--format"];
    if (r.format != "text" && r.format != "hex" && r.format != "bin" && r.format != "null")
      throw Error("unknown format '" + r.format + "' (text, hex, bin, null)");
  }
  auto num = [&](const char* a, double dflt) { return kv.count(a) ? parse_f64(a, kv[a]) : dflt; };
  const double p = num("--p", 0.5), mean = num("--mean", 0.0), stdv = num("--std", 1.0);
  const int64_t low = kv.count("--low") ? parse_i64("--low", kv["--low"]) : 0;
  const int64_t high = kv.count("--high") ? parse_i64("--high", kv["--high"]) : 0;
  const bool is_float = r.dtype == xrng::DType::f32 || r.dtype == xrng::DType::f64 || r.dtype == xrng::DType::f16 ||
                        r.dtype == xrng::DType::bf16;
  r.bytes.resize(r.count * static_cast<uint64_t>(xrng::dtype_size(r.dtype)));
  const auto n = static_cast<int64_t>(r.count);
  std::string where;
  try {
    if (ts.cuda) {
      namespace tg = xrng::torch_cuda;
      const xrng::torch_cuda::Device d = torch_cuda_device(kv);
      const bool ints = dist == "randint" || dist == "perm";
      if (ints && r.dtype != xrng::DType::i64)
        throw Error("--dtype " + kv["--dtype"] + ": torch-cuda gives i64 for --dist " + dist);
      if (!ints && !is_float)
        throw Error("--dtype " + kv["--dtype"] + ": torch-cuda gives f32, f64, f16 or bf16 for --dist " + dist);
      const tg::Type t = r.dtype == xrng::DType::f32   ? tg::Type::f32
                         : r.dtype == xrng::DType::f64 ? tg::Type::f64
                         : r.dtype == xrng::DType::f16 ? tg::Type::f16
                                                       : tg::Type::bf16;
      tg::State st{seed, 0};
      auto* i64 = reinterpret_cast<int64_t*>(r.bytes.data());
      if (dist == "perm") {
        tg::randperm(st, d, r.count, [&](uint64_t i, uint32_t v) { i64[i] = v; });
      } else if (dist == "randint") {
        tg::randint(st, d, r.count, low, high, i64);
      } else if (r.count > 0) {
        if (dist == "log_normal") tg::log_normal(st, d, r.count, t, mean, stdv, r.bytes.data());
        else if (dist == "geometric") tg::geometric(st, d, r.count, t, p, r.bytes.data());
        else tg::bernoulli(st, d, r.count, t, p, r.bytes.data());
      }
      where = "torch-cuda sm_count=" + std::to_string(d.sm_count) + " threads_per_sm=" + std::to_string(d.threads_per_sm);
    } else {
      namespace tc = xrng::torch_cpu;
      tc::State st(seed);
      if (dist == "randint") {
        tc::randint(st, n, low, high, r.dtype, r.bytes.data(), ts.release);
      } else if (dist == "perm") {
        if (r.dtype != xrng::DType::i64) throw Error("--dtype " + kv["--dtype"] + ": a torch randperm is i64");
        tc::randperm(st, n, reinterpret_cast<int64_t*>(r.bytes.data()));
      } else if (dist == "bernoulli") {
        tc::bernoulli(st, n, p, r.dtype, r.bytes.data(), ts.release, ts.kernel);
      } else if (dist == "geometric") {
        tc::geometric(st, n, p, r.dtype, r.bytes.data());
      } else {
        tc::log_normal(st, n, mean, stdv, ts.kernel, r.dtype, r.bytes.data(), ts.release);
      }
      where = kv["--stream"];
    }
  } catch (const Error&) {
    throw;  // the CLI's own messages, already worded
  } catch (const std::invalid_argument& e) {  // the draws' "torch_cpu geometric: p must ..." -> "--dist geometric: p must ..."
    std::string m = e.what();
    const size_t colon = m.find(": ");
    throw Error("--dist " + dist + ": " + (colon == std::string::npos ? m : m.substr(colon + 2)));
  }
  r.describe = dist + " " + xrng::dtype_name(r.dtype) + " stream=" + where + " seed=" + std::to_string(seed) +
               " count=" + std::to_string(r.count);
  for (const char* a : {"--mean", "--std", "--low", "--high", "--p", "--n"})
    if (kv.count(a)) r.describe += std::string(" ") + (a + 2) + "=" + kv[a];
  return r;
}

TorchRequest torch_request(const std::vector<std::string>& args, TorchStream ts, bool allow_format) {
  const xrng::torch_cpu::Kernel k = ts.kernel;
  std::map<std::string, std::string> kv;
  for (size_t i = 0; i < args.size(); i += 2) {
    const std::string& a = args[i];
    const bool cuda_arg = ts.cuda && (a == "--sm-count" || a == "--threads-per-sm");
    if (!cuda_arg && a != "--stream" && a != "--dist" && a != "--dtype" && a != "--seed" && a != "--count" &&
        a != "--format" && a != "--mean" && a != "--std" && a != "--low" && a != "--high" && a != "--lambda" &&
        a != "--rate" && a != "--median" && a != "--sigma" && a != "--p" && a != "--n")
      throw Error("unknown argument '" + a + "' for a torch stream (--dist " + std::string(torch_dists(ts.cuda)) +
                  ", --dtype, --seed, --count, --mean, --std, --low, --high, --lambda|--rate, --median, --sigma, "
                  "--p, --n" +
                  std::string(ts.cuda ? ", --sm-count, --threads-per-sm" : "") + (allow_format ? ", --format)" : ")"));
    if (i + 1 >= args.size()) throw Error(a + " needs a value");
    const std::string key = a == "--rate" ? "--lambda" : a;  // --rate: xrng's own exponential's name for lambda
    if (kv.count(key)) throw Error(a + " given twice (or with its alias)");
    kv[key] = args[i + 1];
  }
  if (!kv.count("--dist")) throw Error(std::string("--dist is required (") + torch_dists(ts.cuda) + " for this stream)");
  std::string dist = kv["--dist"];
  if (dist == "randperm") dist = "perm";
  {
    const std::string ok = std::string("|") + torch_dists(ts.cuda) + "|";
    if (ok.find("|" + dist + "|") == std::string::npos)
      throw Error("--dist " + dist + ": this torch stream gives " + torch_dists(ts.cuda));
  }
  if (dist == "perm") {
    if (!kv.count("--n")) throw Error("--n is required for --dist perm");
    if (!kv.count("--count")) kv["--count"] = kv["--n"];
    else if (kv["--count"] != kv["--n"]) throw Error("--count: a torch randperm is drawn whole: --count must be --n");
  }
  if (!kv.count("--count")) throw Error("--count is required");
  if ((dist == "bernoulli" || dist == "geometric") && !kv.count("--p")) throw Error("--p is required for --dist " + dist);
  if (dist == "randint" && !kv.count("--high")) throw Error("--high is required for --dist randint");
  TorchRequest r;
  const bool int_default = dist == "randint" || dist == "perm";
  r.dtype = kv.count("--dtype") ? xrng::parse_dtype(kv["--dtype"]) : int_default ? xrng::DType::i64 : xrng::DType::f32;
  {
    // which parameter flags each distribution reads
    const std::map<std::string, std::vector<std::string>> params = {
        {"normal", {"--mean", "--std"}},   {"uniform", {"--low", "--high"}},   {"exponential", {"--lambda"}},
        {"cauchy", {"--median", "--sigma"}}, {"randint", {"--low", "--high"}}, {"bernoulli", {"--p"}},
        {"geometric", {"--p"}},            {"log_normal", {"--mean", "--std"}}, {"perm", {"--n"}}};
    for (const char* a : {"--mean", "--std", "--low", "--high", "--lambda", "--median", "--sigma", "--p", "--n"})
      if (kv.count(a) && std::find(params.at(dist).begin(), params.at(dist).end(), a) == params.at(dist).end())
        throw Error(std::string(a) + " does not apply to --dist " + dist);
  }
  if (dist == "randint" || dist == "bernoulli" || dist == "geometric" || dist == "log_normal" || dist == "perm") {
    if (!allow_format && kv.count("--format")) throw Error("--format does not apply to fingerprint");
    return torch_discrete_request(kv, dist, ts, r);
  }
  if (ts.cuda) {
    if (!allow_format && kv.count("--format")) throw Error("--format does not apply to fingerprint");
    return torch_cuda_request(kv, dist, r);
  }
  if (r.dtype != xrng::DType::f32 && r.dtype != xrng::DType::f64 && r.dtype != xrng::DType::f16 &&
      r.dtype != xrng::DType::bf16)
    throw Error("--dtype " + kv["--dtype"] + ": torch CPU streams give f32, f64, f16 or bf16 for --dist " + dist);
  const uint64_t seed = kv.count("--seed") ? parse_u64("--seed", kv["--seed"]) : 0;
  r.count = parse_u64("--count", kv["--count"]);
  if (r.count > (1ull << 30)) throw Error("--count: a torch stream is drawn whole, at most 2^30 elements");
  auto allowed = [&](std::initializer_list<const char*> names) {
    for (const char* a : {"--mean", "--std", "--low", "--high", "--lambda", "--median", "--sigma"}) {
      bool ok = false;
      for (const char* b : names) ok = ok || std::string(a) == b;
      if (kv.count(a) && !ok) throw Error(std::string(a) + " does not apply to --dist " + dist);
    }
  };
  auto num = [&](const char* a, double dflt) { return kv.count(a) ? parse_f64(a, kv[a]) : dflt; };
  const double mean = num("--mean", 0.0), stdv = num("--std", 1.0);
  const double low = num("--low", 0.0), high = num("--high", 1.0), lambda = num("--lambda", 1.0);
  if (dist == "normal") allowed({"--mean", "--std"});
  if (dist == "uniform") allowed({"--low", "--high"});
  if (dist == "exponential") allowed({"--lambda"});
  if (dist == "cauchy") allowed({"--median", "--sigma"});
  const double median = num("--median", 0.0), sigma = num("--sigma", 1.0);
  if (dist == "cauchy" && !(sigma > 0.0)) throw Error("--sigma must be > 0");
  if (kv.count("--format")) {
    if (!allow_format) throw Error("--format does not apply to fingerprint");
    r.format = kv["--format"];
    if (r.format != "text" && r.format != "hex" && r.format != "bin" && r.format != "null")
      throw Error("unknown format '" + r.format + "' (text, hex, bin, null)");
  }
  xrng::torch_cpu::State st(seed);
  r.bytes.resize(r.count * static_cast<uint64_t>(xrng::dtype_size(r.dtype)));
  const auto n = static_cast<int64_t>(r.count);
  if (dist == "normal")
    xrng::torch_cpu::randn(st, n, mean, stdv, k, r.dtype, r.bytes.data(), true, ts.release);
  else if (dist == "exponential")
    xrng::torch_cpu::exponential(st, n, lambda, r.dtype, r.bytes.data(), ts.release, ts.kernel);
  else if (dist == "cauchy")
    xrng::torch_cpu::cauchy(st, n, median, sigma, k, r.dtype, r.bytes.data(), ts.release);
  else if (low == 0.0 && high == 1.0)
    xrng::torch_cpu::rand(st, n, r.dtype, r.bytes.data(), ts.release);
  else
    xrng::torch_cpu::uniform(st, n, low, high, k, r.dtype, r.bytes.data(), ts.release);
  r.describe = dist + " " + xrng::dtype_name(r.dtype) + " stream=" + kv["--stream"] + " seed=" + std::to_string(seed) +
               " count=" + std::to_string(r.count);
  for (const char* a : {"--mean", "--std", "--low", "--high", "--lambda", "--median", "--sigma"})
    if (kv.count(a)) r.describe += std::string(" ") + (a + 2) + "=" + kv[a];
  return r;
}

int cmd_gen(const std::vector<std::string>& args) {
  if (const auto k = torch_stream(args)) {
    const TorchRequest r = torch_request(args, *k, true);
    if (r.format == "bin") {
      write_out(r.bytes.data(), r.bytes.size(), 0, r.count);
    } else if (r.format != "null") {
      std::string text;
      for (uint64_t i = 0; i < r.count; ++i) (r.format == "hex" ? append_hex : append_text)(text, r.dtype, r.bytes.data(), i);
      write_out(text.data(), text.size(), 0, r.count);
    }
    return 0;
  }
  const Request r = parse_request(args, true);
  const xrng::DType t = r.plan.dtype;
  const uint64_t esz = static_cast<uint64_t>(xrng::dtype_size(t));
  uint64_t written = 0;
  std::string text;
  run_chunks(r, r.format != "null", [&](const unsigned char* p, uint64_t m) {
    if (r.format == "null") return;
    if (r.format == "bin") {
      write_out(p, m * esz, written, r.count);
    } else {
      text.clear();
      for (uint64_t i = 0; i < m; ++i) (r.format == "hex" ? append_hex : append_text)(text, t, p, i);
      write_out(text.data(), text.size(), written, r.count);
    }
    written += m;
  });
  return 0;
}

int cmd_fingerprint(const std::vector<std::string>& args) {
  if (const auto k = torch_stream(args)) {
    const TorchRequest r = torch_request(args, *k, false);
    xrng::tools::Sha256 h;
    h.update(r.bytes.data(), r.bytes.size());
    std::printf("%s  %s\n", h.hex().c_str(), r.describe.c_str());
    return 0;
  }
  const Request r = parse_request(args, false);
  xrng::tools::Sha256 h;
  const uint64_t esz = static_cast<uint64_t>(xrng::dtype_size(r.plan.dtype));
  run_chunks(r, false, [&](const unsigned char* p, uint64_t m) { h.update(p, m * esz); });
  std::printf("%s  %s\n", h.hex().c_str(), r.describe.c_str());
  return 0;
}

bool asks_help(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // No command: the usage on stderr, status 2 (a usage error). Asked for: stdout, status 0.
  if (args.empty()) {
    std::fputs(usage().c_str(), stderr);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h" || (args[0] == "help" && args.size() == 1)) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  // `xrng help COMMAND` and `xrng COMMAND ... --help|-h`: that command's usage.
  if ((args[0] == "help" && args.size() == 2) || asks_help(args)) {
    const std::string cmd = args[0] == "help" ? args[1] : args[0];
    const std::string u = command_usage(cmd);
    if (u.empty()) {
      std::fprintf(stderr, "xrng: error: unknown command '%s' (gen, fingerprint, verify, version)\n", cmd.c_str());
      return 1;
    }
    std::fputs(u.c_str(), stdout);
    return 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "gen") return cmd_gen(args);
    if (cmd == "fingerprint") return cmd_fingerprint(args);
    if (cmd == "verify") return xrng::tools::cmd_verify(args);
    if (cmd == "version") {
      if (!args.empty()) throw Error("version takes no arguments (got '" + args[0] + "')");
      // The ISA in use and the architecture the binary was built for.
#if defined(__x86_64__) || defined(_M_X64)
      const char* arch = "x86-64";
#elif defined(__aarch64__) || defined(_M_ARM64)
      const char* arch = "aarch64";
#else
      const char* arch = "no vector backend for this architecture";
#endif
      std::printf("xrng %s, stream v%d (default; --stream %d..%d), simd %s (%s)\n", XRNG_VERSION_STRING,
                  xrng::kStreamVersion, xrng::kOldestStreamVersion, xrng::kStreamVersion, xrng::simd_isa(), arch);
      return 0;
    }
    throw Error("unknown command '" + cmd + "' (gen, fingerprint, verify, version; xrng --help)");
  } catch (const Interrupted& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "xrng: interrupted by %s after %" PRIu64 " of %" PRIu64 " elements\n",
                 e.sig == SIGINT ? "SIGINT" : e.sig == SIGTERM ? "SIGTERM" : "a signal", e.done, e.total);
    return 128 + e.sig;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "xrng: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrng: error: %s\n", e.what());
    return 1;
  }
}

// xrng: print, fingerprint and verify xrng streams from the command line.
//
//   xrng gen --dist D [--dtype T] [--seed S] [--subseq Q] [--offset W] [--epoch E]
//            [--start I] --count N [--low L --high H] [--mean M --std D] [--p P] [--n N]
//            [--rank R --world W] [--inverse] [--backend B] [--threads T] [--format F]
//   xrng fingerprint <same arguments>
//   xrng verify [--quick]
//
// Every failure is one line on stderr and a non-zero exit; nothing here
// crashes on bad input.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/xrng.h"
#include "sha256.h"
#include "verify.h"
#if defined(XRNG_HAVE_CUDA)
#include "device/xrng_cuda_host.h"
#endif

namespace {

using xrng::Error;

const char* kUsage =
    "usage:\n"
    "  xrng gen --dist {bits,uniform,normal,bernoulli,randint,perm} [--dtype {u32,u64,f32,f64,f16,bf16,i32,i64,u8}]\n"
    "           [--seed S] [--subseq Q] [--offset W] [--epoch E] [--start I] --count N\n"
    "           [--low L --high H] [--mean M --std D] [--p P] [--n N] [--rank R --world W] [--inverse]\n"
    "           [--backend {cpu-scalar,cpu-simd,auto,cuda}] [--threads T] [--format {text,hex,bin,null}]\n"
    "  xrng fingerprint <the arguments of gen>   one line: SHA-256 of the bin bytes\n"
    "  xrng verify [--quick]                     golden vectors + every backend against the scalar reference\n"
    "  xrng version\n"
    "Numbers accept decimal or 0x-hex. --epoch E means --seed 123456789+E.\n";

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
  uint64_t rank = 0, world = 1;
  std::string backend = "auto";
  int threads = 1;
  std::string format = "text";
  std::string describe;
};

Request parse_request(const std::vector<std::string>& args, bool allow_format) {
  std::map<std::string, std::string> kv;
  bool inverse = false;
  static const char* kFlags[] = {"--dist", "--dtype", "--seed",   "--subseq", "--offset", "--epoch",  "--start",
                                 "--count", "--low",  "--high",   "--mean",   "--std",    "--p",      "--n",
                                 "--rank",  "--world", "--backend", "--threads", "--format"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--inverse") {
      inverse = true;
      continue;
    }
    bool known = false;
    for (const char* f : kFlags) known = known || a == f;
    if (!known) throw Error("unknown argument '" + a + "' (see xrng --help)");
    if (i + 1 >= args.size()) throw Error(a + " needs a value");
    if (kv.count(a)) throw Error(a + " given twice");
    kv[a] = args[++i];
  }
  auto get = [&](const char* f) -> std::optional<std::string> {
    auto it = kv.find(f);
    if (it == kv.end()) return std::nullopt;
    return it->second;
  };
  if (!get("--dist")) throw Error("--dist is required");
  Request r;
  const xrng::Dist dist = xrng::parse_dist(*get("--dist"));
  if (dist == xrng::Dist::dropout) throw Error("--dist dropout needs an input tensor: use the C++ or Python API");
  const xrng::DType dtype = get("--dtype") ? xrng::parse_dtype(*get("--dtype")) : xrng::default_dtype(dist);

  if (get("--seed") && get("--epoch")) throw Error("give --seed or --epoch, not both");
  uint64_t seed = get("--seed") ? parse_u64("--seed", *get("--seed")) : 0;
  if (get("--epoch")) seed = xrng::epoch_seed(parse_u64("--epoch", *get("--epoch")));
  const uint64_t subseq = get("--subseq") ? parse_u64("--subseq", *get("--subseq")) : 0;
  r.key = xrng::Key(seed, subseq);
  r.offset = get("--offset") ? parse_u64("--offset", *get("--offset")) : 0;
  r.start = get("--start") ? parse_u64("--start", *get("--start")) : 0;

  xrng::DrawParams q;
  using xrng::Dist;
  auto only_for = [&](const char* flag, bool ok) {
    if (get(flag) && !ok) throw Error(std::string(flag) + " does not apply to --dist " + xrng::dist_name(dist));
  };
  only_for("--low", dist == Dist::uniform || dist == Dist::randint);
  only_for("--high", dist == Dist::uniform || dist == Dist::randint);
  only_for("--mean", dist == Dist::normal);
  only_for("--std", dist == Dist::normal);
  only_for("--p", dist == Dist::bernoulli);
  only_for("--n", dist == Dist::perm);
  only_for("--rank", dist == Dist::perm);
  only_for("--world", dist == Dist::perm);
  if (inverse && dist != Dist::perm) throw Error("--inverse applies to --dist perm only");
  if (dist == Dist::uniform) {
    if (get("--low")) q.low = parse_f64("--low", *get("--low"));
    if (get("--high")) q.high = parse_f64("--high", *get("--high"));
  }
  if (dist == Dist::normal) {
    if (get("--mean")) q.mean = parse_f64("--mean", *get("--mean"));
    if (get("--std")) q.std = parse_f64("--std", *get("--std"));
  }
  if (dist == Dist::bernoulli) {
    if (!get("--p")) throw Error("--dist bernoulli needs --p");
    q.p = parse_f64("--p", *get("--p"));
  }
  if (dist == Dist::randint) {
    if (!get("--high")) throw Error("--dist randint needs --high (and optionally --low, default 0)");
    q.ilow = get("--low") ? parse_i64("--low", *get("--low")) : 0;
    q.ihigh = parse_i64("--high", *get("--high"));
  }
  if (dist == Dist::perm) {
    if (!get("--n")) throw Error("--dist perm needs --n");
    q.n = parse_u64("--n", *get("--n"));
  }
  r.plan = xrng::make_plan(dist, dtype, q);

  if (dist == Dist::perm && (get("--rank") || get("--world"))) {
    if (!get("--rank") || !get("--world")) throw Error("--rank and --world go together");
    if (inverse) throw Error("--inverse and --rank/--world do not go together");
    r.shard = true;
    r.rank = parse_u64("--rank", *get("--rank"));
    r.world = parse_u64("--world", *get("--world"));
    if (r.world == 0 || r.rank >= r.world) throw Error("need 0 <= --rank < --world");
  }
  r.inverse = inverse;
  if (get("--count")) {
    r.count = parse_u64("--count", *get("--count"));
  } else if (dist == Dist::perm && !r.shard) {
    if (r.start > q.n) throw Error("--start exceeds --n");
    r.count = q.n - r.start;
  } else {
    throw Error("--count is required");
  }
  if (r.shard) {
    xrng::check_counters(r.plan, r.offset, 0, 0);
  } else {
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
    if (t > 1024) throw Error("--threads must be 0 (all) to 1024");
    r.threads = static_cast<int>(t);
  }
  if (get("--format")) {
    if (!allow_format) throw Error("--format does not apply to fingerprint");
    r.format = *get("--format");
    if (r.format != "text" && r.format != "hex" && r.format != "bin" && r.format != "null")
      throw Error("unknown format '" + r.format + "' (text, hex, bin, null)");
  }
  char d[512];
  std::snprintf(d, sizeof d, "%s %s seed=%" PRIu64 " subseq=%" PRIu64 " offset=%" PRIu64 " start=%" PRIu64
                " count=%" PRIu64,
                xrng::dist_name(dist), xrng::dtype_name(dtype), seed, subseq, r.offset, r.start, r.count);
  r.describe = d;
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
    if (r.shard)
      xrng::cuda::perm_shard_to_host(r.plan, r.key, r.offset, r.rank, r.world, r.start + b, m, out);
    else if (r.inverse)
      throw Error("--inverse with --backend cuda is not available from the CLI");
    else
      xrng::cuda::fill_to_host(r.plan, r.key, r.offset, r.start + b, m, out);
    return;
  }
#endif
  if (r.shard)
    xrng::perm_shard(r.plan, r.key, r.offset, r.rank, r.world, r.start + b, m, out, opt);
  else if (r.inverse)
    xrng::perm_inverse(r.plan, r.key, r.offset, r.start + b, m, out, opt);
  else
    xrng::fill(r.plan, r.key, r.offset, r.start + b, m, out, opt);
}

void print_text(FILE* f, xrng::DType t, const void* p, uint64_t i) {
  using xrng::DType;
  switch (t) {
    case DType::u32: std::fprintf(f, "%" PRIu32 "\n", static_cast<const uint32_t*>(p)[i]); break;
    case DType::u64: std::fprintf(f, "%" PRIu64 "\n", static_cast<const uint64_t*>(p)[i]); break;
    case DType::i32: std::fprintf(f, "%" PRId32 "\n", static_cast<const int32_t*>(p)[i]); break;
    case DType::i64: std::fprintf(f, "%" PRId64 "\n", static_cast<const int64_t*>(p)[i]); break;
    case DType::u8: std::fprintf(f, "%u\n", static_cast<const uint8_t*>(p)[i]); break;
    case DType::f32: std::fprintf(f, "%.9g\n", static_cast<double>(static_cast<const float*>(p)[i])); break;
    case DType::f64: std::fprintf(f, "%.17g\n", static_cast<const double*>(p)[i]); break;
    case DType::f16:
      std::fprintf(f, "%.9g\n", static_cast<double>(xrng::math::f16_bits_to_f32(static_cast<const uint16_t*>(p)[i])));
      break;
    case DType::bf16:
      std::fprintf(f, "%.9g\n", static_cast<double>(xrng::math::bf16_bits_to_f32(static_cast<const uint16_t*>(p)[i])));
      break;
  }
}
void print_hex(FILE* f, xrng::DType t, const void* p, uint64_t i) {
  switch (xrng::dtype_size(t)) {
    case 1: std::fprintf(f, "%02x\n", static_cast<const uint8_t*>(p)[i]); break;
    case 2: std::fprintf(f, "%04x\n", static_cast<const uint16_t*>(p)[i]); break;
    case 4: std::fprintf(f, "%08" PRIx32 "\n", static_cast<const uint32_t*>(p)[i]); break;
    default: std::fprintf(f, "%016" PRIx64 "\n", static_cast<const uint64_t*>(p)[i]); break;
  }
}

// Streams the request in chunks (results do not depend on chunking), calling sink(bytes, n_elems).
template <class Sink>
void run_chunks(const Request& r, Sink sink) {
  const uint64_t esz = static_cast<uint64_t>(xrng::dtype_size(r.plan.dtype));
  const uint64_t chunk = std::min<uint64_t>(r.count, (64ull << 20) / esz);
  std::unique_ptr<unsigned char[]> buf(new unsigned char[std::max<uint64_t>(chunk, 1) * esz]);
  for (uint64_t b = 0; b < r.count; b += chunk) {
    const uint64_t m = std::min(chunk, r.count - b);
    compute(r, b, m, buf.get());
    sink(buf.get(), m);
  }
}

int cmd_gen(const std::vector<std::string>& args) {
  const Request r = parse_request(args, true);
  const xrng::DType t = r.plan.dtype;
  const uint64_t esz = static_cast<uint64_t>(xrng::dtype_size(t));
  run_chunks(r, [&](const unsigned char* p, uint64_t m) {
    if (r.format == "null") return;
    if (r.format == "bin") {
      if (std::fwrite(p, esz, m, stdout) != m) throw Error("write to stdout failed");
      return;
    }
    for (uint64_t i = 0; i < m; ++i) (r.format == "hex" ? print_hex : print_text)(stdout, t, p, i);
  });
  if (std::fflush(stdout) != 0) throw Error("write to stdout failed");
  return 0;
}

int cmd_fingerprint(const std::vector<std::string>& args) {
  const Request r = parse_request(args, false);
  xrng::tools::Sha256 h;
  const uint64_t esz = static_cast<uint64_t>(xrng::dtype_size(r.plan.dtype));
  run_chunks(r, [&](const unsigned char* p, uint64_t m) { h.update(p, m * esz); });
  std::printf("%s  %s\n", h.hex().c_str(), r.describe.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "gen") return cmd_gen(args);
    if (cmd == "fingerprint") return cmd_fingerprint(args);
    if (cmd == "verify") return xrng::tools::cmd_verify(args);
    if (cmd == "version") {
      std::printf("xrng %s, stream v%d, simd %s\n", XRNG_VERSION_STRING, xrng::kStreamVersion, xrng::simd_isa());
      return 0;
    }
    throw Error("unknown command '" + cmd + "' (gen, fingerprint, verify, version)");
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "xrng: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrng: error: %s\n", e.what());
    return 1;
  }
}

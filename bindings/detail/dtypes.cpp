// torch scalar types <-> xrng dtypes (see dtypes.h). No arithmetic on values.
#include "dtypes.h"

#include <array>
#include <cctype>
#include <iterator>
#include <string>

#include "../xrng_torch.h"

namespace xrng::torch_api {

at::ScalarType scalar_type_of(DType t) {
  switch (t) {
#define XRNG_X(name, type, size) \
  case DType::name:              \
    return detail::TorchType<DType::name>::value;
    XRNG_DTYPES(XRNG_X)
#undef XRNG_X
  }
  throw Error("scalar_type_of: not an xrng dtype");
}

namespace detail {

std::string torch_name(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return "torch.float32";
    case at::kDouble: return "torch.float64";
    case at::kHalf: return "torch.float16";
    case at::kBFloat16: return "torch.bfloat16";
    case at::kByte: return "torch.uint8";
    case at::kChar: return "torch.int8";
    case at::kShort: return "torch.int16";
    case at::kInt: return "torch.int32";
    case at::kLong: return "torch.int64";
    case at::kUInt16: return "torch.uint16";
    case at::kUInt32: return "torch.uint32";
    case at::kUInt64: return "torch.uint64";
    case at::kBool: return "torch.bool";
    case at::kComplexHalf: return "torch.complex32";
    case at::kComplexFloat: return "torch.complex64";
    case at::kComplexDouble: return "torch.complex128";
    default: break;
  }
  // the float8 types and others: torch.<c10 name in lower case> (torch.float8_e4m3fn, ...)
  std::string s = c10::toString(t);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "torch." + s;
}

namespace {

// int16, int8, uint8, uint16: integer tensors narrower than the i32 draw.
bool narrow_integer(at::ScalarType t) {
  return at::isIntegralType(t, /*includeBool=*/false) && c10::elementSize(t) < 4;
}

// Distributions whose values are bounded by their own integer parameters
// (XRNG_PARAMS "ilow" / "ihigh": every value lies in [ilow, ihigh)); only
// those may be converted into a narrower integer tensor, after check_fits.
// Others (geometric: unbounded; perm: indices of a size) refuse such tensors
// rather than wrap silently.
bool bounded_by_integer_params(Dist d) { return dist_has_param(d, Param::ilow) && dist_has_param(d, Param::ihigh); }

}  // namespace

std::optional<DType> stored_dtype(at::ScalarType t) {
  if (t == at::kBool) return DType::u8;  // masks: one 0/1 byte per element
  for (DType d : kAllDTypes)
    if (scalar_type_of(d) == t) return d;
  return std::nullopt;
}

at::ScalarType staging_type(const Plan& plan, at::ScalarType out) {
  if (dtype_size(plan.dtype) == static_cast<int>(c10::elementSize(out))) return out;
  return scalar_type_of(plan.dtype);
}

void check_fits(const Plan& plan, at::ScalarType out) {
  if (!narrow_integer(out) || !bounded_by_integer_params(plan.dist)) return;
  const int bits = 8 * static_cast<int>(c10::elementSize(out));
  const bool is_signed = at::isSignedType(out);
  const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  // make_plan prepared [ilow, ihigh) as (low, range) in Plan::randint.
  const int64_t first = plan.randint.low;
  const int64_t last = static_cast<int64_t>(static_cast<uint64_t>(first) + (plan.randint.range - 1));
  if (first < lo || last > hi)
    throw Error(std::string(dist_name(plan.dist)) + ": range [" + std::to_string(first) + ", " +
                std::to_string(last) + "] does not fit " + torch_name(out));
}

}  // namespace detail

namespace {
// The row dtype a tensor of type t takes for dist, if any (draw_dtype without its error).
std::optional<DType> row_dtype(Dist dist, at::ScalarType t) {
  const std::optional<DType> exact = detail::stored_dtype(t);
  if (exact && dtype_supported(dist, *exact)) return *exact;
  if (detail::narrow_integer(t) && detail::bounded_by_integer_params(dist) && dtype_supported(dist, DType::i32))
    return DType::i32;
  return std::nullopt;
}
constexpr size_t kScalarTypes = static_cast<size_t>(at::ScalarType::NumOptions);
constexpr size_t kDistCount = std::size(kDists);
}  // namespace

DType draw_dtype(Dist dist, at::ScalarType t) {
  // row_dtype of every (dist, type), computed once: a draw asks several times, and
  // each answer is a scan of the registry's rows (a measurable part of a small draw)
  static const auto memo = [] {
    std::array<std::array<int16_t, kScalarTypes>, kDistCount> m{};
    for (size_t d = 0; d < kDistCount; ++d)
      for (size_t i = 0; i < kScalarTypes; ++i) {
        const std::optional<DType> r = row_dtype(static_cast<Dist>(d), static_cast<at::ScalarType>(i));
        m[d][i] = r ? static_cast<int16_t>(*r) : int16_t{-1};
      }
    return m;
  }();
  const size_t d = static_cast<size_t>(dist), i = static_cast<size_t>(t);
  if (d < kDistCount && i < kScalarTypes && memo[d][i] >= 0) return static_cast<DType>(memo[d][i]);
  if (const std::optional<DType> r = row_dtype(dist, t)) return *r;
  std::string all;
  for (DType d : dist_dtypes(dist)) all += (all.empty() ? "" : ", ") + detail::torch_name(scalar_type_of(d));
  if (dtype_supported(dist, DType::u8)) all += ", torch.bool";
  if (detail::bounded_by_integer_params(dist)) all += ", torch.int16, torch.int8, torch.uint8 (converted)";
  throw Error(std::string("dtype ") + detail::torch_name(t) + " is not available for distribution " + dist_name(dist) +
              " (" + all + ")");
}

}  // namespace xrng::torch_api

// Internal: torch scalar types <-> xrng dtypes, and how a draw lands in a
// tensor of another type. Everything is derived from the registry
// (rng/registry.h): the dtype table (XRNG_DTYPES) and the rows (XRNG_ROWS)
// decide which tensor types a distribution can fill; there is no
// per-distribution table here.
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <string>

#include "../../rng/plan.h"

namespace xrng::torch_api::detail {

// The torch type each xrng dtype is stored as: one specialisation per
// XRNG_DTYPES entry. A dtype added to the registry without one here fails to
// compile (scalar_type_of's switch is generated from the table).
template <DType T>
struct TorchType;
template <> struct TorchType<DType::u32> { static constexpr at::ScalarType value = at::kUInt32; };
template <> struct TorchType<DType::u64> { static constexpr at::ScalarType value = at::kUInt64; };
template <> struct TorchType<DType::f32> { static constexpr at::ScalarType value = at::kFloat; };
template <> struct TorchType<DType::f64> { static constexpr at::ScalarType value = at::kDouble; };
template <> struct TorchType<DType::f16> { static constexpr at::ScalarType value = at::kHalf; };
template <> struct TorchType<DType::bf16> { static constexpr at::ScalarType value = at::kBFloat16; };
template <> struct TorchType<DType::i32> { static constexpr at::ScalarType value = at::kInt; };
template <> struct TorchType<DType::i64> { static constexpr at::ScalarType value = at::kLong; };
template <> struct TorchType<DType::u8> { static constexpr at::ScalarType value = at::kByte; };

// The xrng dtype stored exactly as `t` (same bits, same size); bool tensors
// hold u8 masks (0/1 bytes). nullopt for types with no xrng counterpart.
std::optional<DType> stored_dtype(at::ScalarType t);

// The type the values are drawn into before they land in a tensor of type
// `out`: `out` itself when the draw writes it directly (the same element
// size), else the draw's own type, converted by a copy.
at::ScalarType staging_type(const Plan& plan, at::ScalarType out);

// The name Python users know a torch type by: "torch.float32", "torch.int64"
// (not c10's "Float", "Long"); every message of this library uses it.
std::string torch_name(at::ScalarType t);

// Throws xrng::Error when a draw converted into the narrower integer type
// `out` could produce a value `out` cannot hold (see draw_dtype).
void check_fits(const Plan& plan, at::ScalarType out);

}  // namespace xrng::torch_api::detail

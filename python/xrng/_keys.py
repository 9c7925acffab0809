"""torch.func._random keys as xrng positions, and back.

torch's experimental stateless API (``torch.func._random``, torch 2.15) holds
a Philox4x32-10 key in a uint64 tensor ``[seed, offset]``, ``offset`` counting
128-bit Philox blocks (4 words), and draws its raw bits from the cuRAND
layout that xrng's stream is: word ``w`` of ``bits(key([seed, b]), dtype=
torch.uint32)`` is word ``4 * b + w`` of xrng's stream (seed, subseq 0). So a
key is the xrng position ``[seed, 0, 4 * b, stream]`` and an xrng position
with subseq 0 and a word offset divisible by 4 is a key:

* :func:`position_from_key` (tensor operations only, so under
  ``torch.compile`` / ``torch.export`` the key stays a graph input, and a
  CUDA key gives a CUDA position): the position a draw takes as
  ``generator=`` (the draws start at the key's first word and advance a fresh
  state, never the key);
* :func:`key_from_position`: the key of a Generator or a position.

What is the same and what is not (measured: tests/python/test_keys.py):
raw 32-bit words are equal element for element; torch's uint64 bits put the
first word in the high half (xrng: the low half); torch's float32 ``normal``
uses the same words in the same Box-Muller layout as xrng's ``randn`` with
other arithmetic (about a third of the values are bit-equal, the rest differ
in the last bits); its float32 ``uniform`` takes the same word per element
but its low 24 bits (xrng: the high 24), its float64 ``uniform`` the low 53
bits of its uint64, and its float64 normal uses the words otherwise: none of
these are equal.

A key whose offset is 2**62 blocks or more starts at word 2**64 or later of
subsequence 0, past the last word an xrng position addresses (xrng's offsets,
as cuRAND's, are 64-bit word counts): refused (``ValueError`` eagerly, a
``RuntimeError`` from the check when a traced program runs). Keys made by
``split`` / ``fold_in`` have uniformly random offsets, so about three in four
of them are such keys.
"""
from __future__ import annotations

from typing import Optional, Union

import torch

#: The first key offset (in 4-word Philox blocks) xrng cannot address: word 2**64.
KEY_OFFSET_LIMIT = 1 << 62


def _check_key(key) -> None:
    if not isinstance(key, torch.Tensor):
        raise TypeError(f"key must be a torch.func._random key (a tensor), got {type(key).__name__}")
    if key.dtype != torch.uint64 or tuple(key.shape) != (2,):
        raise ValueError(f"key must be a uint64 tensor of shape (2,) [seed, offset] (torch.func._random.key), got "
                         f"{key.dtype} of shape {tuple(key.shape)}; a batch of keys is converted one key at a time")


def position_from_key(key: torch.Tensor, *, stream: Optional[int] = None) -> torch.Tensor:
    """The xrng position of a ``torch.func._random`` key: the int64 tensor
    ``[seed, 0, 4 * offset, stream]`` on the key's device.

    Pass it as ``generator=`` to any xrng draw: the draw starts at the key's
    first word (``xrng.bits_(t, generator=position_from_key(k))`` equals
    ``torch.func._random.bits_(k, t)`` for uint32 ``t``) and advances the
    returned tensor, not the key, so further draws from it continue the
    stream. Made of tensor operations: in compiled and exported code the key
    is an input of the graph (a new key needs no recompilation), never a
    constant. ``stream``: the xrng stream version of the draws (default the
    newest; a key has none, and raw bits are the same in every version).

    Raises ``ValueError`` for a key that is not one (uint64, shape (2,)) and,
    eagerly, for an offset of 2**62 blocks or more (word 2**64, past xrng's
    word range); traced code checks the offset when it runs
    (``torch._assert_async``: a ``RuntimeError`` on the CPU, a device-side
    assertion on CUDA).
    """
    from . import _check_stream, _traced, stream_version
    _check_key(key)
    st = stream_version if stream is None else _check_stream(stream)
    k = key.view(torch.int64)  # the same bits; positions store u64 values by their bit pattern
    if _traced():
        # offset < 2**62 as u64 <=> its int64 view shifted right by 62 is 0
        torch._assert_async(k[1].bitwise_right_shift(62) == 0,
                            "xrng.position_from_key: the key's offset is 2**62 blocks or more, past word 2**64 "
                            "of the stream, which xrng cannot address")
    else:
        off = key.tolist()[1]  # (Tensor.item() of a uint64 past 2**63 overflows)
        if off >= KEY_OFFSET_LIMIT:
            raise ValueError(f"xrng.position_from_key: the key's offset {off} is 2**62 blocks or more: it starts "
                             f"at word {4 * off} of the stream, past word 2**64 - 1, the last an xrng position "
                             f"addresses")
    return torch.stack([k[0], torch.zeros_like(k[0]), k[1] * 4, torch.full_like(k[0], st)])


def key_from_position(position: Union["Generator", torch.Tensor, tuple], *,  # noqa: F821
                      device: Union[str, torch.device, None] = None) -> torch.Tensor:
    """The ``torch.func._random`` key (uint64 ``[seed, offset // 4]``) that
    starts where ``position`` does: an :class:`xrng.Generator` (its current
    offset), a position or state tensor ``[seed, subseq, offset, stream]``, or
    ``(seed, subseq, offset)``. Eager only (it reads the values).

    A key has no subsequence and starts on a 4-word block, so ``subseq`` must
    be 0 and ``offset`` a multiple of 4 (``ValueError`` otherwise; a
    Generator whose draws consumed a number of words that is not a multiple
    of 4 is between blocks)."""
    from . import Generator, _u, _u64
    if isinstance(position, Generator):
        seed, subseq, offset = position.seed, position.subseq, position.offset
    elif isinstance(position, torch.Tensor):
        if position.dtype != torch.int64 or position.numel() != 4:
            raise ValueError("position must be an int64 tensor of 4 elements [seed, subseq, offset, stream]")
        seed, subseq, offset = (_u(v) for v in position.tolist()[:3])
    elif isinstance(position, tuple) and len(position) == 3:
        seed, subseq, offset = (_u64(v, n) for v, n in zip(position, ("seed", "subseq", "offset")))
    else:
        raise TypeError(f"position must be an xrng.Generator, a position tensor or (seed, subseq, offset), got "
                        f"{type(position).__name__}")
    if subseq != 0:
        raise ValueError(f"key_from_position: subseq {subseq}: a torch.func._random key addresses subsequence 0 only")
    if offset % 4:
        raise ValueError(f"key_from_position: offset {offset} is not a multiple of 4: a key starts on a 4-word "
                         f"Philox block")
    return torch.tensor([seed, offset // 4], dtype=torch.uint64, device=device)

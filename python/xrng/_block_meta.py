"""Fake (shape-only) kernels of xrng's block operators (bindings/block_ops.cpp):
``draw_block_`` fills the shard ``out`` of a global tensor in place (returns nothing), and
``dropout_block`` returns a tensor shaped like its input. The C++ fragment
names this module (``m.set_python_module("xrng._block_meta")``);
``import xrng.distributed`` imports it.
"""
import torch


@torch.library.register_fake("xrng::draw_block_")
def _draw_block_(out, dist, reals, ints, position, global_shape, block_start):
    return None


@torch.library.register_fake("xrng::dropout_block")
def _dropout_block(input, p, position, global_shape, block_start):
    return torch.empty(input.shape, dtype=input.dtype, device=input.device)

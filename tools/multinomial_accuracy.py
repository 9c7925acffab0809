"""Measures xrng.multinomial (SPEC.md section 10) against exact arithmetic:

* with replacement: every sample against the exact selection min{i : u W < S_i}
  (u the sample's 52-bit variate, W and S_i the exact rational sums of the
  weights), over random weight vectors of five kinds (uniform, wide dynamic
  range, sparse with dominant categories, float32 softmax-like, rows anywhere
  in the binary64 range, subnormal ones included);
* without replacement: each row's order against the race with E = -ln u in
  50 decimal digits (the ordering xrng would give with an exact log).

Usage: python tools/multinomial_accuracy.py [vectors] [samples per vector]
Prints the counts; tests/python/test_multinomial.py runs a smaller corpus.
"""
import decimal
import random
import sys
from fractions import Fraction

import torch

import xrng


def words64(n, seed, offset):
    t = xrng.bits_(torch.empty(n, dtype=torch.uint64), seed=seed, offset=offset)
    return [int(v) % 2**64 for v in t.view(torch.int64).tolist()]


def weights(rng, k):
    kind = rng.randrange(5)
    if kind == 0:
        w = [rng.random() for _ in range(k)]
    elif kind == 1:
        w = [rng.random() * 2.0 ** rng.randint(-60, 60) for _ in range(k)]
    elif kind == 2:
        w = [rng.choice([0.0, 1e-9, 1.0, 1e6]) * rng.random() for _ in range(k)]
    elif kind == 3:
        w = [float(torch.tensor(rng.gauss(0, 3)).exp().float()) for _ in range(k)]
    else:  # the whole binary64 range, subnormals included (tiny rows take the scaled path)
        top = rng.choice([-1074, -1000, -300, 0, 900])
        w = [rng.random() * 2.0 ** rng.randint(top - 60, top) if rng.random() < 0.9 else 0.0 for _ in range(k)]
    if sum(w) == 0:
        w[rng.randrange(k)] = 1.0
    return w


def main():
    vectors = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    ns = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    rng = random.Random(2026)
    samples = differ = 0
    worst = Fraction(0)
    for t in range(vectors):
        k = rng.randint(1, 200)
        w = weights(rng, k)
        got = xrng.multinomial(torch.tensor(w, dtype=torch.float64), ns, True, seed=t).tolist()
        S, acc = [], Fraction(0)
        for x in w:
            acc += Fraction(x)
            S.append(acc)
        W = S[-1]
        for j, v in enumerate(words64(ns, t, 0)):
            x = Fraction(2 * (v >> 12) + 1, 2**53) * W
            lo, hi = 0, k - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if x < S[mid]:
                    hi = mid
                else:
                    lo = mid + 1
            samples += 1
            if got[j] != lo:
                differ += 1
                a, b = sorted((got[j], lo))
                worst = max(worst, min(abs(x - S[i]) for i in range(a, b + 1)) / W)
    print(f"with replacement: {samples} samples of {vectors} weight vectors (k in [1, 200]): "
          f"{differ} differ from the exact rational selection"
          + (f" (largest distance to a boundary {float(worst):.3g} of the sum)" if differ else ""))

    ctx = decimal.Context(prec=50)
    rows = differ_rows = 0
    for t in range(vectors // 2):
        k = rng.randint(2, 100)
        w = weights(rng, k)
        got = xrng.multinomial(torch.tensor(w, dtype=torch.float64), k, False, seed=10**6 + t).tolist()
        E = [-(ctx.divide(decimal.Decimal(2 * (v >> 12) + 1), decimal.Decimal(2**53))).ln(ctx)
             for v in words64(k, 10**6 + t, 0)]
        pos = sorted((i for i in range(k) if w[i] > 0), key=lambda i: (E[i] / decimal.Decimal(w[i]), i))
        rows += 1
        differ_rows += got != pos + [i for i in range(k) if w[i] == 0]
    print(f"without replacement: {rows} full orderings (k in [2, 100]): {differ_rows} differ from the race "
          "with 50-digit -ln u")


if __name__ == "__main__":
    main()

#!/bin/sh
# Puts PyTorch's test files of the torch suite into pytorch_tests/ (not
# committed: README.md). Usage:
#   get_pytorch_tests.sh PYTORCH_CHECKOUT   copy them from a git checkout of pytorch/pytorch
#   get_pytorch_tests.sh                    download them from GitHub (needs the network)
# REF (default the commit the expected-failure list was made for) picks the version.
set -eu
REF=${REF:-3c5a825f3c0f706c9d75e18307ccaf220524ecd1}
DIR=$(cd "$(dirname "$0")" && pwd)/pytorch_tests
mkdir -p "$DIR"
for f in test/distributions/test_distributions.py test/nn/test_dropout.py test/nn/test_init.py test/test_tensor_creation_ops.py; do
  if [ $# -ge 1 ]; then
    git -C "$1" show "$REF:$f" > "$DIR/$(basename "$f")"
  else
    curl -fsSL "https://raw.githubusercontent.com/pytorch/pytorch/$REF/$f" -o "$DIR/$(basename "$f")"
  fi
done
echo "PyTorch $REF test files in $DIR"

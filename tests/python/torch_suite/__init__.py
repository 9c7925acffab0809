"""PyTorch's own test files under the reproducible mode (README.md). A package, so
that its conftest does not take the module name `conftest` from tests/python/conftest.py."""

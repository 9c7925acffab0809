"""The PyTorch test files of this suite are the ones its expected-failure list
was made for (README.md): each file's SHA-256 is checked. Without the files
(they are not committed: README.md) this is one skip that says how to get them."""
import hashlib
import importlib.util
import pathlib

import pytest

SUITE = pathlib.Path(__file__).resolve().parent / "pytorch_tests"
# pytorch/pytorch at 3c5a825f3c0f706c9d75e18307ccaf220524ecd1 (README.md)
SHA256 = {
    "test_distributions.py": "7fd305bf70162321b9b4fbde6dc6b367daba50f2d7bad9b1ba2e7c00b745d9db",
    "test_dropout.py": "0ffc5d038864f03ee10ecaa4cea0f0123fe07c1a4a051257976da30d920e9b3f",
    "test_init.py": "b864a892c6b0935a8888eed85c0c0f04301539a582c1a0f28cbb83441a80638e",
    "test_tensor_creation_ops.py": "ed18017924d939e2c83cf666f031e69e07430244794e300e79ff9ef12836a966",
}


@pytest.mark.parametrize("name", sorted(SHA256))
def test_pytorch_test_file(name):
    path = SUITE / name
    if not path.is_file():
        pytest.skip(f"{path} absent: run tests/python/torch_suite/get_pytorch_tests.sh (README.md)")
    if importlib.util.find_spec("expecttest") is None:
        pytest.skip("torch.testing._internal needs the `expecttest` package: the torch suite does not run here")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == SHA256[name], (
        f"{name} is not the file the expected-failure list was made for (sha256 {digest}); "
        "update expected_failures.py and SHA256 together")

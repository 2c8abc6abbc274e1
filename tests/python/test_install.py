"""`cmake --install` puts an importable sluice package where Debian's
interpreter looks, and the build tree's package is the one under test."""

import os
import site
import subprocess
import sys

import pytest

import sluice


def test_the_build_tree_package_is_under_test():
    build = os.environ.get("SLUICE_BUILD_DIR")
    if not build:
        pytest.skip("SLUICE_BUILD_DIR is not set (ctest sets it)")
    assert os.path.realpath(sluice.__file__).startswith(os.path.realpath(build))


def test_install_into_a_prefix_is_importable(tmp_path):
    build = os.environ.get("SLUICE_BUILD_DIR")
    install_dir = os.environ.get("SLUICE_PYTHON_INSTALL_DIR")
    if not build or not install_dir:
        pytest.skip("SLUICE_BUILD_DIR is not set (ctest sets it)")
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", build, "--prefix", str(prefix)], check=True, capture_output=True, timeout=120)
    packages = prefix / install_dir
    assert (packages / "sluice" / "__init__.py").exists()
    assert (prefix / "bin" / "sluice").exists()
    env = dict(os.environ, PYTHONPATH=str(packages))
    code = "import sluice; print(sluice.__file__); print(sum(int(v) for v in sluice.Dataset.range(5)))"
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True, timeout=60)
    path, total = out.stdout.split()
    assert path.startswith(str(packages)) and total == "10"


def test_the_default_prefix_is_on_debians_path():
    install_dir = os.environ.get("SLUICE_PYTHON_INSTALL_DIR")
    if not install_dir:
        pytest.skip("SLUICE_PYTHON_INSTALL_DIR is not set (ctest sets it)")
    assert os.path.join("/usr/local", install_dir) in site.getsitepackages()

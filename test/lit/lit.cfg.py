# lit configuration for gilt's FileCheck tests.
#
# configure writes lit.site.cfg.py (paths and features of one build) into
# the build directory's test/lit and that file loads this one, so run lit on
# the build directory: `make check-lit`, or
# `python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv BUILD/test/lit`.

import os
import re
import subprocess
import sys

import lit.formats

if not hasattr(config, "gilt_obj_root"):
    lit_config.fatal("run configure, then run lit on the build directory's test/lit")

config.name = "gilt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".gilt", ".test"]
config.excludes = ["Inputs", "Output", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.join(config.gilt_src_root, "test", "lit")
config.test_exec_root = os.path.join(config.gilt_obj_root, "test", "lit")


def tool(name, path):
    """Replace NAME where it stands as a command, never inside a word, a path
    or an option: `gopt %s` yes; `--gopt-x`, `x/gopt`, `gopt.c` no."""
    pattern = r"(?<![\w/.=-])" + re.escape(name) + r"(?![\w/.-])"
    config.substitutions.append((pattern, path))


tool("gopt", os.path.join(config.gilt_tools_dir, "gopt"))
tool("gjit", os.path.join(config.gilt_tools_dir, "gjit"))
tool("onnx-info", os.path.join(config.gilt_tools_dir, "onnx-info"))
tool("FileCheck", config.filecheck)
tool("not", config.not_tool)
config.substitutions.append(("%gilt_src", config.gilt_src_root))
config.substitutions.append(("%gilt_bin", config.gilt_tools_dir))
# The Python running lit, for tests that read JSON a tool wrote.
config.substitutions.append(("%python", sys.executable))
if config.onnx_testdata:
    config.substitutions.append(("%onnx_testdata", config.onnx_testdata))
if config.ptxas:
    config.substitutions.append(("%ptxas", config.ptxas))
# The project's reference models (see ../shared/models/README.md), beside
# the source tree; tests of them say `REQUIRES: shared-models`.
shared_models = os.path.join(os.path.dirname(config.gilt_src_root), "shared", "models")
if os.path.isdir(shared_models):
    config.substitutions.append(("%shared_models", shared_models))
    config.available_features.add("shared-models")

# The fake CUDA driver of the unit tests (test/unit/fake_cuda/), which
# `make check-lit` builds: gjit --device=cuda runs a model's host code on
# it through GILT_CUDA_LIBRARY, on machines with no GPU.
fake_cuda = os.path.join(config.gilt_obj_root, "test", "unit", "libfakecuda.so")
if os.path.exists(fake_cuda):
    config.substitutions.append(("%fake_cuda", fake_cuda))
    config.available_features.add("fake-cuda")

# Our tools first, then LLVM's (FileCheck, not, count, llvm-symbolizer).
config.environment["PATH"] = os.pathsep.join(
    [config.gilt_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
)

# Features for REQUIRES: and UNSUPPORTED: lines.
if config.ptxas:
    config.available_features.add("ptxas")
# CUDA's libdevice, where gpu-module-to-binary looks for it.
cuda_path = os.environ.get("CUDA_PATH")
if cuda_path:
    config.environment["CUDA_PATH"] = cuda_path
libdevice_places = [os.path.join(p, "nvvm", "libdevice") for p in (cuda_path, "/usr/local/cuda") if p]
libdevice_places.append("/usr/lib/nvidia-cuda-toolkit/libdevice")
if any(os.path.exists(os.path.join(p, "libdevice.10.bc")) for p in libdevice_places):
    config.available_features.add("libdevice")
if config.onnx_testdata:
    config.available_features.add("onnx-testdata")
if config.gilt_debug:
    config.available_features.add("debug")
if "address" in config.sanitizers:
    config.available_features.add("asan")
if "undefined" in config.sanitizers:
    config.available_features.add("ubsan")
if config.sanitizers:
    symbolizer = os.path.join(config.llvm_tools_dir, "llvm-symbolizer")
    if os.path.exists(symbolizer):
        config.environment["ASAN_SYMBOLIZER_PATH"] = symbolizer
    config.environment.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")


def have_cuda_gpu():
    """True when the CUDA driver loads and sees a device. Asked in a child
    process so this one never initializes CUDA before lit forks workers."""
    probe = (
        "import ctypes, sys\n"
        "try:\n"
        "    cuda = ctypes.CDLL('libcuda.so.1')\n"
        "except OSError:\n"
        "    sys.exit(1)\n"
        "n = ctypes.c_int(0)\n"
        "ok = cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(n)) == 0\n"
        "sys.exit(0 if ok and n.value > 0 else 1)\n"
    )
    try:
        return subprocess.run([sys.executable, "-c", probe], timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def have_cuda_driver():
    """True when libcuda.so.1 loads (an NVIDIA driver is installed), GPU or
    not: tests of gjit's error without a driver are UNSUPPORTED then."""
    probe = "import ctypes\nctypes.CDLL('libcuda.so.1')\n"
    try:
        return subprocess.run([sys.executable, "-c", probe], timeout=60,
                              stderr=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


if have_cuda_driver():
    config.available_features.add("cuda-driver")
if have_cuda_gpu():
    config.available_features.add("cuda")

#!/bin/sh
# gpu_bundle.sh - packs what bench/gpu_check.sh needs on a GPU machine
# that has no build tools and none of gilt's libraries (a lent machine
# with CUDA and PyTorch, say): run here, after `make`, then carry OUT_DIR
# there beside a checkout.
#
#   sh bench/gpu_bundle.sh OUT_DIR [MODEL ...]
#
# OUT_DIR gets gjit.xz and onnx-info (stripped; xz takes gjit's 47 MB to
# 13), lib/ with the shared libraries a machine without gilt's
# dependencies lacks (libprotobuf-c, libffi), cuda/nvvm/libdevice/ with
# CUDA's libdevice.10.bc where this machine has it (the kernels' math
# links it; a machine with PyTorch's CUDA alone has none), onnx-data.tar.xz (the ONNX
# backend suite of Debian's libonnx-testdata, 6 MB) and models.tar (the
# named folders of ../shared/models, each without its raw .bin copies;
# default: all but ResNet-18, whose 45 MB gpu_vs_torch.py replaces by
# exporting torchvision's there).
set -eu

out=${1:?usage: sh bench/gpu_bundle.sh OUT_DIR [MODEL ...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
models=$root/../shared/models
[ $# -gt 0 ] || set -- mlp lenet squeezenet mobilenet_v2 encoder
data=/usr/share/libonnx-testdata/data

mkdir -p "$out/lib"
strip -o "$out/gjit" "$root/bin/gjit"
xz -T0 -6 -f "$out/gjit"
strip -o "$out/onnx-info" "$root/bin/onnx-info"
for lib in libprotobuf-c.so.1 libffi.so.8; do
	path=$(ldd "$root/bin/gjit" | awk -v l="$lib" '$1 == l { print $3 }')
	[ -n "$path" ] && cp -L "$path" "$out/lib/"
done
for cuda in "${CUDA_PATH:-}" /usr/local/cuda; do
	libdevice=$cuda/nvvm/libdevice/libdevice.10.bc
	if [ -n "$cuda" ] && [ -f "$libdevice" ]; then
		mkdir -p "$out/cuda/nvvm/libdevice"
		cp "$libdevice" "$out/cuda/nvvm/libdevice/"
		break
	fi
done
if [ -d "$data/node" ]; then
	tar cf - -C "$(dirname "$data")" "$(basename "$data")" | xz -T0 -6 >"$out/onnx-data.tar.xz"
fi
(cd "$models" && tar cf "$out/models.tar" --exclude='*.bin' "$@")
du -sh "$out"/* | sed 's/^/gpu_bundle: /'

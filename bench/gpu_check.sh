#!/bin/bash
# gpu_check.sh - the GPU issue's checks on an NVIDIA machine, from a
# checkout and a bundle of bench/gpu_bundle.sh, in one command: the shared
# models and the ONNX backend suite through `gjit --device=cuda` against
# their references, then bench/gpu_vs_torch.py (gilt beside PyTorch on
# the same GPU). Everything it finds goes to OUT_DIR: summary.txt (one
# line per step, written as it goes), run-cuda-xfail.txt (the suite's
# failures, what `make update-onnx-run-cuda-xfail` writes, when it
# finished), suite-progress.tsv (each test's outcome as it came), gpu.json
# (the table's numbers) and logs.tgz.
#
#   bash bench/gpu_check.sh BUNDLE OUT_DIR [STEP ...]
#
# Steps, in this order: info models suite torch (default: all four);
# `torch` takes --max-autotune when MAX_AUTOTUNE=1. Each has a time limit
# (SUITE_LIMIT, 400 s by default, for the suite), so that a machine lent
# for minutes returns what was done.
set -u

bundle=$(cd "${1:?usage: bash bench/gpu_check.sh BUNDLE OUT_DIR [STEP ...]}" && pwd)
out=${2:?usage: bash bench/gpu_check.sh BUNDLE OUT_DIR [STEP ...]}
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp/gilt-gpu-check}
mkdir -p "$work/logs"
steps=" ${*:-info models suite torch} "
start=$(date +%s)
log() { echo "== [$(($(date +%s) - start))s] $*" | tee -a "$out/summary.txt"; }

[ -x "$work/gjit" ] || xz -dc "$bundle/gjit.xz" >"$work/gjit"
chmod +x "$work/gjit"
cp "$bundle/onnx-info" "$work/" && chmod +x "$work/onnx-info"
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The bundle's libdevice where the machine's CUDA has none of its own.
if [ ! -f "${CUDA_PATH:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc" ] &&
	[ -f "$bundle/cuda/nvvm/libdevice/libdevice.10.bc" ]; then
	export CUDA_PATH=$bundle/cuda
fi
gjit=$work/gjit
if [ ! -d "$work/models" ] && [ -f "$bundle/models.tar" ]; then
	mkdir -p "$work/models" && tar xf "$bundle/models.tar" -C "$work/models"
fi
if [ ! -d "$work/data" ] && [ -f "$bundle/onnx-data.tar.xz" ]; then
	xz -dc "$bundle/onnx-data.tar.xz" | tar xf - -C "$work"
fi

case $steps in *" info "*)
	nvidia-smi -L 2>&1 | tee -a "$out/summary.txt"
	"$gjit" --version 2>&1 | head -1 | tee -a "$out/summary.txt"
	"$gjit" "$root/examples/classify.gilt" --device=cuda --input="1x4xf32=1 2 3 4" 2>&1 |
		tail -2 | tee -a "$out/summary.txt"
esac

case $steps in *" models "*)
	for m in "$work"/models/*; do
		n=$(basename "$m")
		timeout 120 "$gjit" "$m/model.onnx" --device=cuda \
			--input=@"$m/test_data_set_0/input_0.pb" \
			--expected-output=@"$m/test_data_set_0/output_0.pb" --tolerance-l2=1e-4 \
			--benchmark=10 >"$work/logs/$n.log" 2>&1
		log "$n rc=$? $(grep -E 'compile |median' "$work/logs/$n.log" | tr -s ' ' | tr '\n' ' ')" \
			"$(grep -m1 error "$work/logs/$n.log" | cut -c1-300)"
	done
esac

case $steps in *" suite "*)
	log "suite start"
	progress=$out/suite-progress.tsv
	(cd "$root" && PROGRESS=$progress JOBS=${JOBS:-$(nproc)} TIMEOUT=60 \
		timeout "${SUITE_LIMIT:-400}" sh test/onnx/run_suite.sh --update \
		--device=cuda "$gjit" "$work/onnx-info" "$work/data" \
		"$out/run-cuda-xfail.txt" >"$work/logs/suite.log" 2>&1)
	log "suite rc=$? $(tail -1 "$work/logs/suite.log")" \
		"(as it went: $(grep -c '	pass' "$progress") passed," \
		"$(grep -c '	fail' "$progress") failed)"
esac

case $steps in *" torch "*)
	flags=
	[ "${MAX_AUTOTUNE:-0}" = 1 ] && flags=--max-autotune
	# shellcheck disable=SC2086
	python3 "$root/bench/gpu_vs_torch.py" --gjit "$gjit" --models "$work/models" \
		--work "$work/tv" --json "$out/gpu.json" $flags >"$work/logs/torch.log" 2>&1
	log "gpu_vs_torch rc=$?"
	grep -v '^ *$' "$work/logs/torch.log" | tail -30 >>"$out/summary.txt"
esac

log done
tar czf "$out/logs.tgz" -C "$work" logs

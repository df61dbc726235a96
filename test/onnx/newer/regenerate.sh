#!/bin/sh
# regenerate.sh - rewrites the cases under node/ from the cases_*.py files:
# models and inputs (gen.py), ONNX Runtime's outputs (refs.js), then the
# outputs as .pb (gen.py --outputs). Needs /usr/bin/python3 with Debian's
# python3-onnx and python3-numpy, and onnxruntime-node 1.30.0:
#
#   mkdir -p /tmp/ort && (cd /tmp/ort && npm install --ignore-scripts onnxruntime-node@1.30.0)
#   ORT_NODE=/tmp/ort/node_modules/onnxruntime-node sh test/onnx/newer/regenerate.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gilt-onnx-newer.XXXXXX")
trap 'rm -rf "$work"' EXIT
GILT_ONNX_WORK=$work /usr/bin/python3 "$here/gen.py"
node "$here/refs.js" "$here" "$work"
GILT_ONNX_WORK=$work /usr/bin/python3 "$here/gen.py" --outputs
echo "regenerate.sh: $(ls "$here/node" | wc -l) cases in $here/node"

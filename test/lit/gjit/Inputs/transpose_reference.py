"""transpose_reference.py SHAPE PERM OUT_DIR - writes OUT_DIR/x.npy, a
float32 tensor of SHAPE (e.g. 37x5x50) whose element i (in row-major order)
is i, and OUT_DIR/y.npy, its transpose by PERM (e.g. 1,2,0) computed here
by index arithmetic: the reference transpose-tiled.test compares gjit with.
Plain Python, no numpy; the values are integers, exact in float32."""

import os
import struct
import sys


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join("%d, " % d for d in shape))
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def strides_of(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= d
    return strides


def main():
    shape = [int(d) for d in sys.argv[1].split("x")]
    perm = [int(p) for p in sys.argv[2].split(",")]
    out = sys.argv[3]
    count = 1
    for d in shape:
        count *= d
    write_npy(os.path.join(out, "x.npy"), shape, [float(i) for i in range(count)])
    in_strides = strides_of(shape)
    out_shape = [shape[p] for p in perm]
    y = []
    index = [0] * len(out_shape)
    for _ in range(count):
        y.append(float(sum(index[i] * in_strides[perm[i]]
                           for i in range(len(perm)))))
        for d in reversed(range(len(index))):  # the next index, row-major
            index[d] += 1
            if index[d] < out_shape[d]:
                break
            index[d] = 0
    write_npy(os.path.join(out, "y.npy"), out_shape, y)


if __name__ == "__main__":
    main()

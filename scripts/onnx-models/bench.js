// Times one inference of each model of frontend/onnx/testdata/models.json
// with onnxruntime-node (min and median wall time of the runs after 3
// warm-ups, and the process's CPU time per run, user + system, as
// go test -bench RealModels ./frontend/onnx reports in cpu-ms/op). Run:
//   dir=$(scripts/onnx-models/fetch.sh)
//   NODE_PATH=$dir/node_modules node scripts/onnx-models/bench.js $dir THREADS
const ort = require('onnxruntime-node');
const path = require('path');
const fs = require('fs');

const dir = process.argv[2];
const threads = Number(process.argv[3] || 1);
const cases = JSON.parse(fs.readFileSync(path.join(__dirname, '../../frontend/onnx/testdata/models.json')));

function input(shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = ((i * 7919) % 1000) / 500 - 1;
  return new ort.Tensor('float32', x, shape);
}

async function main() {
  for (const m of cases) {
    const s = await ort.InferenceSession.create(path.join(dir, 'node_modules', m.file), {intraOpNumThreads: threads, interOpNumThreads: 1});
    const feeds = {[s.inputNames[0]]: input(m.input)};
    for (let i = 0; i < 3; i++) await s.run(feeds);
    const times = [];
    const until = Date.now() + 2000;
    const cpu0 = process.cpuUsage();
    while (times.length < 5 || (Date.now() < until && times.length < 200)) {
      const t0 = process.hrtime.bigint();
      await s.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1e3 / times.length;
    times.sort((a, b) => a - b);
    console.log(`${m.name}\tthreads ${threads}\tmin ${times[0].toFixed(3)} ms\tmedian ${times[times.length >> 1].toFixed(3)} ms\tcpu ${cpuMs.toFixed(3)} ms/run\truns ${times.length}`);
  }
}
main().catch(e => { console.error(e); process.exit(1); });

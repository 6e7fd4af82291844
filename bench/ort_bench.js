// ONNX Runtime (npm onnxruntime-node) on the same ONNX file and input as
// etch: prints session creation and median latency over N runs after
// warm-up. Usage: node ort_bench.js model.onnx input.npy runs threads
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

function readNpy(path) {
  const bytes = fs.readFileSync(path);
  const major = bytes[6];
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', start, start + headerLength);
  if (!header.includes("'<f4'")) throw new Error(`${path}: only float32 inputs`);
  const shape = header.match(/\(([^)]*)\)/)[1].split(',').filter((s) => s.trim())
      .map((s) => parseInt(s, 10));
  const data = bytes.subarray(start + headerLength);
  const values = new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
  return new ort.Tensor('float32', values, shape);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const [model, inputPath, runs, threads] = process.argv.slice(2);
  const options = {
    intraOpNumThreads: parseInt(threads, 10), interOpNumThreads: 1,
    graphOptimizationLevel: 'all', executionMode: 'sequential',
  };
  const created = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, options);
  const createMs = Number(process.hrtime.bigint() - created) / 1e6;
  const feeds = {[session.inputNames[0]]: readNpy(inputPath)};
  for (let i = 0; i < 5; ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < parseInt(runs, 10); ++i) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  console.log(`ort create ${createMs.toFixed(3)} ms median ${median(times).toFixed(3)} ms`);
}

main().catch((error) => { console.error(error.message); process.exit(1); });

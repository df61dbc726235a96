// refs.js - the reference outputs of the cases gen.py wrote, computed by
// ONNX Runtime: for each case folder under WORK (gen.py's .npy inputs and
// output names), runs node/<case>/model.onnx and writes out_<i>.npy.
//
//   ORT_NODE=/path/to/node_modules/onnxruntime-node node refs.js DIR WORK
//
// DIR is test/onnx/newer. A case ONNX Runtime rejects is reported and
// fails the run: every committed case has a reference.
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');
const fs = require('fs'), path = require('path');

const DTYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array],
  '<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '<u2': ['uint16', Uint16Array],
  '<u4': ['uint32', Uint32Array], '<u8': ['uint64', BigUint64Array],
  '|b1': ['bool', Uint8Array], '<f2': ['float16', Uint16Array],
};

function readNpy(file) {
  const b = fs.readFileSync(file);
  const hl = b.readUInt16LE(8);
  const h = b.slice(10, 10 + hl).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(h)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(h)[1].split(',')
    .filter((s) => s.trim()).map(Number);
  if (!DTYPES[descr]) throw new Error(`${file}: dtype ${descr}`);
  const [type, A] = DTYPES[descr];
  const raw = b.slice(10 + hl);
  const copy = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length);
  return new ort.Tensor(type, new A(copy), shape);
}

function writeNpy(file, t) {
  const descr = Object.keys(DTYPES).find((k) => DTYPES[k][0] === t.type);
  if (!descr) throw new Error(`${file}: output type ${t.type}`);
  const shape = t.dims.length === 1 ? `(${t.dims[0]},)` : `(${t.dims.join(', ')})`;
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  h += ' '.repeat(63 - ((h.length + 10) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(h.length, 8);
  const data = t.type === 'bool' ? Uint8Array.from(t.data, (v) => (v ? 1 : 0))
                                  : t.data;
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(h, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

(async () => {
  const [dir, work] = process.argv.slice(2);
  let failed = 0;
  for (const name of fs.readdirSync(work).sort()) {
    const w = path.join(work, name);
    try {
      const s = await ort.InferenceSession.create(
        path.join(dir, 'node', name, 'model.onnx'));
      const feeds = {};
      s.inputNames.forEach((n, i) => { feeds[n] = readNpy(path.join(w, `in_${i}.npy`)); });
      const out = await s.run(feeds);
      const names = fs.readFileSync(path.join(w, 'outputs.txt'), 'utf8').split(/\s+/).filter(Boolean);
      names.forEach((n, i) => writeNpy(path.join(w, `out_${i}.npy`), out[n]));
    } catch (e) {
      failed++;
      console.error(`${name}: ${String(e.message || e).split('\n')[0]}`);
    }
  }
  process.exit(failed ? 1 : 0);
})();

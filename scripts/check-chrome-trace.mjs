// Loads tref's chrome traces with the trace engine of Chrome DevTools
// (@paulirish/trace_engine, the Performance panel's importer packaged for
// Node) and checks what it sees. Usage: node check-chrome-trace.mjs
// ENGINE_DIR TRACE.json... (ENGINE_DIR holds node_modules). Exits 1 on the
// first trace that breaks a check.
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [engineDir, ...traces] = process.argv.slice(2);
const {analyzeEvents} = await import(pathToFileURL(
    path.join(engineDir, 'node_modules/@paulirish/trace_engine/analyze-trace.mjs')).href);

let failed = 0;
for (const file of traces) {
  const problems = [];
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const events = doc.traceEvents;
  const {parsedTrace} = await analyzeEvents(structuredClone(events));
  const data = parsedTrace.data;
  const warnings = data.Warnings.perWarning.size;
  if (warnings) problems.push(`${warnings} import warnings: ${[...data.Warnings.perWarning.keys()]}`);

  // What the file holds: slices per (pid, tid), counters per pid.
  const want = new Map();
  const counters = new Map();
  for (const e of events) {
    if (e.ph === 'X') want.set(`${e.pid}/${e.tid}`, (want.get(`${e.pid}/${e.tid}`) ?? 0) + 1);
    if (e.ph === 'C') counters.set(e.pid, (counters.get(e.pid) ?? 0) + 1);
  }
  // What the importer built: a process per device, a thread per track,
  // each thread's slices as a tree. Every engine does one thing at a
  // time, so every slice must be a root: one nested in another means the
  // importer saw an overlap.
  const names = data.Meta.processNames;
  const seen = new Map();  // thread name -> slices, per device
  let slices = 0;
  for (const [pid, proc] of data.Renderer.processes) {
    const device = names.get(pid)?.args?.name ?? `pid ${pid}`;
    for (const [tid, thread] of proc.threads) {
      const n = thread.entries.length;
      slices += n;
      if (n !== (want.get(`${pid}/${tid}`) ?? 0)) {
        problems.push(`${device}/${thread.name}: importer has ${n} slices, file has ${want.get(`${pid}/${tid}`)}`);
      }
      if (thread.tree.roots.size !== n) {
        problems.push(`${device}/${thread.name}: ${n - thread.tree.roots.size} of ${n} slices nested in another (overlap)`);
      }
      if (!thread.name) problems.push(`${device}: tid ${tid} has no name`);
      const kinds = new Set(thread.entries.map(e => e.cat === 'copy' ? e.name.split(' #')[0] : e.cat));
      if (kinds.size > 1) problems.push(`${device}/${thread.name} mixes ${[...kinds]}`);
      seen.set(`${device}/${thread.name}`, n);
    }
  }
  const total = [...want.values()].reduce((a, b) => a + b, 0);
  if (slices !== total) problems.push(`importer has ${slices} slices, file has ${total}`);
  const sim = [...names.values()].find(m => m.args.name.startsWith('sim:'))?.args.name;
  if (!sim) {
    problems.push('no sim device process');
  } else {
    for (const t of ['compute (ops)', 'copy h2d']) {
      if (!seen.get(`${sim}/${t}`)) problems.push(`no slices on ${sim}/${t}`);
    }
  }
  // The DevTools engine has no track for generic counters (it reads only
  // Chrome's own UpdateCounters): check that it kept them, per device.
  const kept = parsedTrace.traceEvents.filter(e => e.ph === 'C').length;
  const inFile = [...counters.values()].reduce((a, b) => a + b, 0);
  if (kept !== inFile || inFile === 0) problems.push(`${kept} of ${inFile} counter samples kept`);
  for (const pid of names.keys()) {
    if (!counters.get(pid)) problems.push(`${names.get(pid).args.name} has no memory counter`);
  }

  const summary = [...seen].map(([k, v]) => `${k}=${v}`).join(' ');
  if (problems.length) {
    failed++;
    console.log(`FAIL ${file}\n  ${problems.join('\n  ')}`);
  } else {
    console.log(`ok   ${file}: ${summary}; ${inFile} counter samples`);
  }
}
console.log(`${traces.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

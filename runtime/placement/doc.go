// Package placement is tref's placement engine: a refs.Executor that runs
// every op on an accelerator or on the host and moves tensors between them
// so that a model larger than the accelerator's memory runs, and the
// accelerator rarely waits.
//
// The runtime (runtime/refs) queues promise ops in a window and calls
// Execute for the head op with the rest of the window, the exact near
// future. Before each op the engine asks its Strategy where the op runs,
// makes the op's operands resident (fetching on demand what is missing),
// lets the strategy prefetch for the coming ops, allocates the result
// (taking over a dying operand's buffer when the op allows it) and runs
// the kernel; an op whose operands and result cannot fit runs on the host
// instead (a fallback). Eviction writes back a copy only when the host
// has no valid one; a ref's device copy is freed the moment the ref dies.
//
// The strategy seam is narrow. A Strategy sees a View: the current op and
// the window after it, each ref's next uses (exact in the window,
// predicted beyond it), the forecast's queue of predictions, the resident
// refs, the accelerator's memory and clocks and the cost model. It
// answers with decisions: OnDevice (where an op runs), Victim (what to
// evict for a use), Prefetch (copies it asks for through View.Prefetch)
// and After (what to write back or free once an op is issued). The
// engine does the mechanics: allocation, copies, residency, pins, events
// and the middleware's say (a veto, an op moved to the host). A strategy
// that keeps a memo of the window from step to step implements Watcher
// (the engine reports refs lost from or gained by the accelerator), one
// that reads the forecast's queue PredictionReader. A new strategy is one
// file that registers itself; seam_test.go writes one outside the package.
//
// Strategies, one file each (flow two): none (host only), genoa (operands in just
// before the op, result straight back, nothing kept), lru (fetch on
// demand, evict the least recently used) and flow (Belady's
// furthest-next-use eviction over the window and the forecast, prefetch in
// order of need, see flow.go; where each op runs, by cost, see
// flowplace.go). The forecast (forecast.go) learns, per ref and op site,
// the period of repeated reads, so flow sees beyond the window in loops.
//
// The accelerator is any device.Device (the simulated one of
// runtime/backend/sim, libtorch's torch:cpu and cuda:N): the engine plans
// on a device.Model of it (virtual copy and compute engines, memory
// accounted against the budget over time, the cost model) and carries its
// decisions out on the device's data plane, so the decisions are the same
// on every device with the same cost model and capabilities. Every decision is
// an event for the Middleware chain (hooks that may steer: veto an
// eviction, move an op to the host, pin refs), which includes the Tracer
// when Config.Trace is set (package trace: text, jsonl, chrome and svg
// output, and the summary with the Belady reference; docs/trace.md).
// Script-level hooks (--hooks policy.tr) reach the chain through Hooks
// and a HookCaller.
package placement

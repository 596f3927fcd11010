// tref_torch.cpp - implementation of tref_torch.h over ATen.
//
// Only <ATen/ATen.h> is included (it compiles about twice as fast as
// <torch/torch.h>). CUDA-specific code compiles only with -DTREF_CUDA,
// which scripts/build-torch.sh sets when the libtorch it builds against
// ships the CUDA headers and libraries.
#include "tref_torch.h"

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/Parallel.h>
#include <ATen/WrapDimUtils.h>
#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#ifdef TREF_CUDA
#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>
#endif

struct tt_tensor_s {
  at::Tensor t;
};

namespace {

// The last error. tref serialises its calls into the plugin, so one
// process-wide message (not thread_local: Go may move the calling goroutine
// between OS threads between a call and tt_error) is correct.
std::string last_error;

// cuDNN picks deterministic algorithms only (some of its convolution
// backward ones add with atomics): see "The plugin's ops give the same
// bits" below.
const bool cudnn_deterministic = [] {
  at::globalContext().setDeterministicCuDNN(true);
  return true;
}();

// IntoStats counts an op's tt_op_into calls: those whose op wrote
// straight into the output, those whose result was copied there, and the
// host time issuing each part.
struct IntoStats {
  int64_t direct = 0, copied = 0, op_ns = 0, copy_ns = 0;
};

// op_into_stats is IntoStats per op (tt_into_op_stats): which ops the
// host's time goes to. Node-based, so the keys stay where they are for
// tt_into_op_stats to hand out.
std::unordered_map<std::string, IntoStats> op_into_stats;

template <typename F>
auto guard(F &&f, decltype(f()) fail) -> decltype(f()) {
  try {
    last_error.clear();
    return f();
  } catch (const c10::Error &e) {
    last_error = e.what_without_backtrace();
  } catch (const std::exception &e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown C++ exception";
  }
  return fail;
}

at::ScalarType to_scalar(int dtype) {
  switch (dtype) {
  case 1: return at::kBool;
  case 2: return at::kByte;
  case 3: return at::kLong;
  case 4: return at::kHalf;
  case 5: return at::kBFloat16;
  case 6: return at::kFloat;
  case 7: return at::kDouble;
  }
  throw std::runtime_error("unknown dtype code " + std::to_string(dtype));
}

// scalar_value is a number of dtype st as tref passes it: its float value
// f for a floating dtype, else its integer value i (exact beyond 2^53).
at::Scalar scalar_value(at::ScalarType st, int64_t i, double f) {
  if (at::isFloatingType(st)) return at::Scalar(f);
  if (st == at::kBool) return at::Scalar(i != 0);
  return at::Scalar(i);
}

int from_scalar(at::ScalarType s) {
  switch (s) {
  case at::kBool: return 1;
  case at::kByte: return 2;
  case at::kLong: return 3;
  case at::kHalf: return 4;
  case at::kBFloat16: return 5;
  case at::kFloat: return 6;
  case at::kDouble: return 7;
  default: return 0;
  }
}

at::Device to_device(int device) {
  if (device < 0) return at::Device(at::kCPU);
  return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device));
}

tt_tensor wrap(at::Tensor t) { return new tt_tensor_s{std::move(t)}; }

// Args gives an op its inputs and attributes with bounds checks, so a
// marshalling mistake on the Go side is an error, not a crash.
struct Args {
  const tt_tensor *ins;
  int nin;
  const int64_t *ia;
  int nia;
  const double *fa;
  int nfa;
  // out is the tensor tt_op_into writes, when an op (full) makes its
  // result in place on out's device; nullptr for tt_op.
  at::Tensor *out = nullptr;

  const at::Tensor &in(int i) const {
    if (i >= nin || ins[i] == nullptr) throw std::runtime_error("missing input " + std::to_string(i));
    return ins[i]->t;
  }
  int64_t i(int k) const {
    if (k >= nia) throw std::runtime_error("missing int attribute " + std::to_string(k));
    return ia[k];
  }
  double f(int k) const {
    if (k >= nfa) throw std::runtime_error("missing float attribute " + std::to_string(k));
    return fa[k];
  }
  // all returns every input, for ops over a list of tensors.
  std::vector<at::Tensor> all() const {
    std::vector<at::Tensor> v;
    for (int k = 0; k < nin; k++) v.push_back(in(k));
    return v;
  }
  // dims reads a count followed by that many ints, starting at k.
  std::vector<int64_t> dims(int k) const {
    int64_t n = i(k);
    std::vector<int64_t> d;
    for (int64_t j = 0; j < n; j++) d.push_back(i(k + 1 + int(j)));
    return d;
  }
};

using OpFn = std::function<at::Tensor(const Args &)>;

at::Tensor reduce_each(at::Tensor x, std::vector<int64_t> dims, bool keepdim,
                       const std::function<at::Tensor(const at::Tensor &, int64_t, bool)> &f) {
  if (dims.empty()) {
    for (int64_t d = 0; d < x.dim(); d++) dims.push_back(d);
  }
  for (auto &d : dims) d = at::maybe_wrap_dim(d, x.dim());
  std::sort(dims.rbegin(), dims.rend());
  for (int64_t d : dims) x = f(x, d, keepdim);
  return x;
}

// index_view is the view of x that tref's resolved index reads (ia from
// first: ndims, then per input dimension keep, start, count, step) and
// the dimensions whose step is negative: the view walks those forward
// (the same elements with a positive step), so the index's order is the
// view's flipped along them.
std::pair<at::Tensor, std::vector<int64_t>> index_view(at::Tensor x, const Args &a, int first = 0) {
  std::vector<int64_t> flips;
  int64_t n = a.i(first), dim = 0;
  for (int64_t k = 0; k < n; k++) {
    int base = first + 1 + int(k) * 4;
    int64_t keep = a.i(base), start = a.i(base + 1), count = a.i(base + 2), step = a.i(base + 3);
    if (!keep) {
      x = x.select(dim, start);
      continue;
    }
    if (count == 0) {
      x = x.slice(dim, 0, 0);
    } else if (step > 0) {
      x = x.slice(dim, start, start + (count - 1) * step + 1, step);
    } else {
      x = x.slice(dim, start + (count - 1) * step, start + 1, -step);
      flips.push_back(dim);
    }
    dim++;
  }
  return {x, flips};
}

// fold_pad is the cotangent of padding dimension d of an input of size
// n by lo before and hi after, in mode 1 (reflect), 2 (replicate) or 3
// (circular): g's middle, with each border element added to the element
// the pad read it from.
at::Tensor fold_pad(const at::Tensor &g, int64_t d, int64_t lo, int64_t hi, int64_t n, int64_t mode) {
  if (lo < 0 || hi < 0 || g.size(d) != lo + n + hi) throw std::runtime_error("pad_backward: the pads do not fit the input's shape");
  at::Tensor x = g.narrow(d, lo, n).clone(), before = g.narrow(d, 0, lo), after = g.narrow(d, lo + n, hi);
  switch (mode) {
  case 1: // before's i-th element read input lo - i, after's j-th n - 2 - j
    if (lo > 0) x.narrow(d, 1, lo).add_(before.flip({d}));
    if (hi > 0) x.narrow(d, n - 1 - hi, hi).add_(after.flip({d}));
    break;
  case 2: // the first and the last element
    if (lo > 0) x.narrow(d, 0, 1).add_(before.sum({d}, true));
    if (hi > 0) x.narrow(d, n - 1, 1).add_(after.sum({d}, true));
    break;
  case 3: // before's i-th element read n - lo + i, after's j-th j
    if (lo > 0) x.narrow(d, n - lo, lo).add_(before);
    if (hi > 0) x.narrow(d, 0, hi).add_(after);
    break;
  }
  return x;
}

// The plugin's ops give the same bits each time they run, on CUDA too,
// so that a run offloaded gives its resident run's output exactly (and a
// run gives the same output twice). Where torch's CUDA kernels add with
// atomics, or scan, in the order their threads happen to run, the ops
// are built from kernels that do not: the backward kernels of pad and
// adaptive_avg_pool2d (fold_pad above, adaptive_pool_weights below) on
// every device; the scatters, the long scans and nll_loss over [N, C,
// d...] (the helpers below) on CUDA, for on the CPU torch's kernels
// already run in order and the ordered builds cost more (a scatter of 2^20
// elements takes 250 times as long). Tests run those on the CPU too
// (tt_set_ordered_kernels).

// ordered_everywhere has the ordered builds run on the CPU too.
bool ordered_everywhere = false;

// ordered says whether an op on t takes the plugin's ordered build, not
// torch's kernel: on CUDA, or everywhere when asked.
bool ordered(const at::Tensor &t) { return ordered_everywhere || !t.is_cpu(); }

// index_coords are the coordinates of each element of index for
// index_put_: index itself along dim, broadcast ranges along the others.
c10::List<c10::optional<at::Tensor>> index_coords(const at::Tensor &index, int64_t dim) {
  c10::List<c10::optional<at::Tensor>> at;
  for (int64_t d = 0; d < index.dim(); d++) {
    if (d == dim) {
      at.push_back(index);
      continue;
    }
    std::vector<int64_t> view(index.dim(), 1);
    view[d] = index.size(d);
    at.push_back(at::arange(index.size(d), index.options()).view(view));
  }
  return at;
}

// scatter_src is src's part that scatter reads: its first index.size(d)
// elements along each dimension d.
at::Tensor scatter_src(at::Tensor src, const at::Tensor &index) {
  for (int64_t d = 0; d < index.dim(); d++) src = src.narrow(d, 0, index.size(d));
  return src;
}

// DeterministicAlgorithms has torch pick its deterministic kernels while
// it lives (index_put_'s accumulating kernel on the CPU is otherwise
// parallel, with atomic adds). The plugin's calls are serialised.
struct DeterministicAlgorithms {
  bool was = at::globalContext().deterministicAlgorithms(), warn = at::globalContext().deterministicAlgorithmsWarnOnly();
  DeterministicAlgorithms() { at::globalContext().setDeterministicAlgorithms(true, warn); }
  ~DeterministicAlgorithms() { at::globalContext().setDeterministicAlgorithms(was, warn); }
};

// scatter_takes_index says whether the ordered builds below take a
// scatter: ordered(x), and index of x's rank, not empty, no larger than
// src anywhere or than x off dim, src of x's dtype. Others go to torch's
// own kernel, which gives its error for those it rejects.
bool scatter_takes_index(const at::Tensor &x, int64_t dim, const at::Tensor &index, const at::Tensor &src) {
  if (!ordered(x) || index.dim() == 0 || index.numel() == 0 || x.dim() != index.dim() || src.dim() != index.dim()) return false;
  if (src.scalar_type() != x.scalar_type() || index.scalar_type() != at::kLong) return false;
  for (int64_t d = 0; d < index.dim(); d++) {
    if (index.size(d) > src.size(d) || (d != dim && index.size(d) > x.size(d))) return false;
  }
  return true;
}

// index_in_range is index with every entry outside [0, size) made size,
// one past the end: index_put_ then rejects it, as scatter does, where it
// would wrap a negative one.
at::Tensor index_in_range(const at::Tensor &index, int64_t size) {
  return at::where(index.lt(0).logical_or(index.gt(size)), at::scalar_tensor(size, index.options()), index);
}

// add_in_order is scatter_add_ordered's sum for arguments it takes, dim
// wrapped and idx already index_in_range.
at::Tensor add_in_order(const at::Tensor &x, int64_t dim, const at::Tensor &idx, const at::Tensor &src) {
  DeterministicAlgorithms deterministic;
  return x.clone().index_put_(index_coords(idx, dim), scatter_src(src, idx), true);
}

// scatter_add_ordered is at::scatter_add with each element's additions
// in the order of their positions in index: on CUDA index_put_ with
// accumulate sorts the indices stably and adds each run of equal ones in
// order, where scatter_add's kernel adds with atomics; on the CPU it adds
// serially when asked for deterministic kernels.
at::Tensor scatter_add_ordered(const at::Tensor &x, int64_t dim, const at::Tensor &index, const at::Tensor &src) {
  dim = at::maybe_wrap_dim(dim, x.dim());
  if (!scatter_takes_index(x, dim, index, src)) return at::scatter_add(x, dim, index, src);
  return add_in_order(x, dim, index_in_range(index, x.size(dim)), src);
}


// ScatterRuns groups a scatter's elements by the position each is aimed
// at: the positions are numbered (counting one more place along dim for
// an out-of-range index, which index_put_ then rejects) and sorted
// stably, so that the elements aimed at one place form a run, in index's
// order. Nothing waits for the device.
struct ScatterRuns {
  // idx: index_in_range of the index; coords: each element's
  // coordinates in x, for index_put_.
  at::Tensor idx;
  c10::List<c10::optional<at::Tensor>> coords;
  // sorted: the position numbers in order; order: the element (in
  // index's flattened order) at each place of sorted; last: for each
  // element, the place in sorted of its run's last element.
  at::Tensor sorted, order, last;

  ScatterRuns(const at::Tensor &x, int64_t dim, const at::Tensor &index) {
    idx = index_in_range(index, x.size(dim));
    coords = index_coords(idx, dim);
    at::Tensor target = at::zeros_like(index);
    int64_t stride = 1;
    for (int64_t d = x.dim() - 1; d >= 0; d--) {
      target = target + coords.get(d).value() * stride;
      stride *= x.size(d) + (d == dim);
    }
    at::Tensor flat = target.reshape({-1});
    std::tie(sorted, order) = at::sort(flat, true, 0, false);
    last = at::searchsorted(sorted, flat, false, true) - 1;
  }

  // write is x with each element's value written at its position; the
  // elements of a run must carry one value, so that the order in which
  // CUDA's kernel writes them does not matter.
  at::Tensor write(const at::Tensor &x, const at::Tensor &values) const {
    return x.clone().index_put_(coords, values, false);
  }
};

// scatter_last is at::scatter with the last of the elements written to
// one position (in index's order) winning, as on the CPU, where CUDA's
// kernel lets any of them win: each element carries its run's last value.
at::Tensor scatter_last(const at::Tensor &x, int64_t dim, const at::Tensor &index, const at::Tensor &src) {
  dim = at::maybe_wrap_dim(dim, x.dim());
  if (!scatter_takes_index(x, dim, index, src)) return at::scatter(x, dim, index, src);
  ScatterRuns runs(x, dim, index);
  at::Tensor values = scatter_src(src, index).reshape({-1}).index_select(0, runs.order.index_select(0, runs.last));
  return runs.write(x, values.view(index.sizes()));
}

// scatter_prod is at::scatter_reduce's prod, where torch's CUDA kernel
// multiplies with atomics: each run's product is a segmented scan over
// the sorted values (log2(n) steps, each multiplying an element by the
// one 2^k places before it when both are of one run), which its last
// element holds; every element of the run then writes x's value there
// (one, unless include_self) times it.
at::Tensor scatter_prod(const at::Tensor &x, int64_t dim, const at::Tensor &index, const at::Tensor &src, bool include_self) {
  ScatterRuns runs(x, dim, index);
  at::Tensor v = scatter_src(src, index).reshape({-1}).index_select(0, runs.order);
  int64_t n = v.numel();
  for (int64_t step = 1; step < n; step *= 2) {
    at::Tensor later = v.narrow(0, step, n - step);
    at::Tensor same = runs.sorted.narrow(0, step, n - step).eq(runs.sorted.narrow(0, 0, n - step));
    v = at::cat({v.narrow(0, 0, step), at::where(same, later * v.narrow(0, 0, n - step), later)});
  }
  at::Tensor product = v.index_select(0, runs.last).view(index.sizes());
  if (include_self) product = x.gather(dim, runs.idx) * product;
  return runs.write(x, product);
}

// scatter_reduce_ordered is at::scatter_reduce's sum and mean from
// scatter_add_ordered, where torch's CUDA kernels add with atomics, as
// torch computes them: a target's value is left out (made zero) unless
// include_self; the mean divides by the count of values added (at least
// one), rounding down for integers. prod is scatter_prod's. amax and
// amin are torch's: their results do not depend on the order.
at::Tensor scatter_reduce_ordered(const at::Tensor &x, int64_t dim, const at::Tensor &index, const at::Tensor &src,
                                  const std::string &reduce, bool include_self) {
  dim = at::maybe_wrap_dim(dim, x.dim());
  bool ours = reduce == "sum" || reduce == "mean" || reduce == "prod";
  if (!ours || !scatter_takes_index(x, dim, index, src)) return at::scatter_reduce(x, dim, index, src, reduce, include_self);
  if (reduce == "prod") return scatter_prod(x, dim, index, src, include_self);
  at::Tensor idx = index_in_range(index, x.size(dim));
  at::Tensor start = include_self ? x : x.scatter(dim, idx, 0);
  at::Tensor out = add_in_order(start, dim, idx, src);
  if (reduce == "sum") return out;
  at::Tensor count = add_in_order(include_self ? at::ones_like(x) : at::zeros_like(x), dim, idx, at::ones_like(src));
  count.masked_fill_(count.eq(0), 1);
  return at::isFloatingType(x.scalar_type()) || at::isComplexType(x.scalar_type()) ? out.div(count) : out.div(count, "floor");
}

// scan_blocked is at::cumsum (or, with prod, at::cumprod) without cub's
// device-wide scan, which torch's CUDA kernels run over a tensor whose
// elements all lie along dim and whose float results depend on the order
// its blocks finish. Such a tensor's floats are scanned as rows of
// scan_row elements, each on its own, every row then adding (multiplying
// by) the so computed total of the rows before it. One row is scanned
// beside a row of identities: two rows take torch's row-wise kernel.
// Other tensors, and integers, are torch's scans.
at::Tensor scan_blocked(const at::Tensor &x, int64_t dim, bool prod) {
  constexpr int64_t scan_row = 1024;
  auto scan = [prod](const at::Tensor &t, int64_t d) { return prod ? at::cumprod(t, d) : at::cumsum(t, d); };
  dim = at::maybe_wrap_dim(dim, std::max<int64_t>(x.dim(), 1));
  int64_t n = x.numel();
  if (!ordered(x) || x.dim() == 0 || n < 2 || n != x.size(dim) || !(at::isFloatingType(x.scalar_type()) || at::isComplexType(x.scalar_type()))) {
    return scan(x, dim);
  }
  int64_t rows = (n + scan_row - 1) / scan_row, identity = prod ? 1 : 0;
  at::Tensor v = x.reshape({n});
  if (rows * scan_row != n) v = at::constant_pad_nd(v, {0, rows * scan_row - n}, identity);
  at::Tensor grid = v.view({rows, scan_row});
  if (rows == 1) return scan(at::cat({grid, at::full_like(grid, identity)}), 1)[0].narrow(0, 0, n).view(x.sizes());
  at::Tensor scanned = scan(grid, 1);
  at::Tensor before = scan_blocked(scanned.select(1, scan_row - 1).narrow(0, 0, rows - 1), 0, prod).unsqueeze(1);
  at::Tensor later = scanned.narrow(0, 1, rows - 1);
  if (prod) {
    later.mul_(before);
  } else {
    later.add_(before);
  }
  return scanned.view({rows * scan_row}).narrow(0, 0, n).view(x.sizes());
}

// nll_loss_rows is at::nll_loss_nd with the classes of an [N, C, d...]
// input moved last and the rest flattened into rows: [N·d..., C]. For
// such inputs torch's CUDA loss (nll_loss2d) sums with atomics; over
// rows it sums in one block, in a fixed order.
at::Tensor nll_loss_rows(const at::Tensor &logp, const at::Tensor &target, const c10::optional<at::Tensor> &weight,
                         int64_t reduction, int64_t ignore_index) {
  if (!ordered(logp) || logp.dim() < 3 || target.dim() != logp.dim() - 1) return at::nll_loss_nd(logp, target, weight, reduction, ignore_index);
  at::Tensor rows = logp.movedim(1, -1).reshape({-1, logp.size(1)});
  at::Tensor loss = at::nll_loss(rows, target.reshape({-1}), weight, reduction, ignore_index);
  return reduction == at::Reduction::None ? loss.view(target.sizes()) : loss;
}

// zeta_far is ζ(s, x) at the elements that far marks, non-integer x below
// -64 with an integer s > 1, where torch's zeta sums one term per unit
// from x up to 9 (a hang for x near -1e15): there the terms at negative
// x + k are summed as the difference of two zetas of positive arguments,
// as the cpu backend does (zetaNegative in runtime/backend/cpu/special.go):
//
//   Σ_{k<m} (x+k)^-s = (-1)^s·(ζ(s, 1-f) - ζ(s, 1-f+m)), m = -floor(x), f = x + m.
//
// Elsewhere it computes with 1 in place of x, for the caller to replace.
at::Tensor zeta_far(const at::Tensor &s, const at::Tensor &x, const at::Tensor &far) {
  at::Tensor one = at::ones_like(x);
  at::Tensor m = at::where(far, -at::floor(x), one);
  at::Tensor f = at::where(far, x + m, one);
  at::Tensor neg = at::special_zeta(s, 1 - f) - at::special_zeta(s, 1 - f + m);
  return at::special_zeta(s, f) + at::where(at::fmod(s, 2) == 1, -neg, neg);
}

// polygamma_reflected is at::polygamma(n, x) but for orders n >= 2 at
// non-integer x below -64, where it is ±n!·ζ(n + 1, x) by zeta_far. Every
// element takes both paths, with 1 in place of the x a path does not
// handle, so nothing waits for the device.
at::Tensor polygamma_reflected(int64_t n, const at::Tensor &x) {
  if (n < 2 || !at::isFloatingType(x.scalar_type())) return at::polygamma(n, x);
  at::Tensor far = (x < -64).logical_and(x != at::floor(x));
  at::Tensor direct = at::polygamma(n, at::where(far, at::ones_like(x), x));
  double s = double(n + 1);
  double factorial = std::exp(std::lgamma(s));
  at::Tensor reflected = zeta_far(at::full_like(x, s), x, far) * (n % 2 == 1 ? factorial : -factorial);
  return at::where(far, reflected, direct);
}

// zeta_reflected is at::special_zeta(s, x), s and x of one floating dtype
// on one device, but at non-integer x below -64 with an integer s > 1,
// where it is zeta_far's. On the CPU it runs torch's zeta alone when no
// element is there; on a device every element takes both paths (with 1 in
// place of the x a path does not handle), so nothing waits for it.
at::Tensor zeta_reflected(const at::Tensor &s, const at::Tensor &x) {
  at::Tensor far = (x < -64).logical_and(x != at::floor(x)).logical_and(s > 1).logical_and(s == at::floor(s)).logical_and(at::isfinite(s));
  if (x.is_cpu() && !far.any().item<bool>()) return at::special_zeta(s, x);
  at::Tensor direct = at::special_zeta(s, at::where(far, at::ones_like(x), x));
  return at::where(far, zeta_far(s, x, far), direct);
}

// shift is tref's bitwise shift of x by y in their promoted dtype, with
// torch 2's result where the count is negative or reaches the width: 0,
// or the sign for a right shift (runtime/backend/cpu/intops.go); torch
// 1.13's cpu kernel leaves those counts to the hardware's masked shift.
at::Tensor shift(const at::Tensor &x, const at::Tensor &y, bool left) {
  auto dt = at::result_type(x, y);
  at::Tensor a = x.to(dt), b = y.to(dt);
  int64_t bits = int64_t(c10::elementSize(dt)) * 8;
  at::Tensor past = b.lt(0).logical_or(b.ge(bits));
  at::Tensor in = b.masked_fill(past, 0);
  if (left) return at::bitwise_left_shift(a, in).masked_fill(past, 0);
  at::Tensor r = at::bitwise_right_shift(a, in);
  if (!at::isSignedType(dt)) return r.masked_fill(past, 0);
  return at::where(past, at::bitwise_right_shift(a, bits - 1), r);
}

// adaptive_pool_weights is the [out, in] matrix of adaptive average
// pooling along one dimension: row o holds 1/len over o's window, torch's
// [floor(o·in/out), ceil((o+1)·in/out)).
at::Tensor adaptive_pool_weights(int64_t out, int64_t in, at::ScalarType dtype, at::Device device) {
  at::TensorOptions longs = at::TensorOptions().dtype(at::kLong).device(device);
  at::Tensor o = at::arange(out, longs).unsqueeze(1), i = at::arange(in, longs).unsqueeze(0);
  at::Tensor start = at::div(o * in, out, "floor"), end = at::div((o + 1) * in + out - 1, out, "floor");
  at::Tensor inside = i.ge(start).logical_and(i.lt(end));
  return inside.to(dtype) / (end - start).to(dtype);
}

// as_float32 is t, or its float32 copy when t is float16 or bfloat16.
at::Tensor as_float32(const at::Tensor &t) {
  auto st = t.scalar_type();
  return st == at::kHalf || st == at::kBFloat16 ? t.to(at::kFloat) : t;
}

// pack_factors flattens each factor's dimensions behind the first
// batch_rank and concatenates them along one last dimension.
at::Tensor pack_factors(std::vector<at::Tensor> factors, int64_t batch_rank) {
  for (auto &f : factors) f = f.flatten(batch_rank).contiguous();
  return at::cat(factors, -1);
}

// largest_sign is, for each vector of t along dim, the sign of its entry
// of largest magnitude (the first such; 1 where it is 0), as a tensor
// with dim removed: the factor that makes that entry positive.
at::Tensor largest_sign(const at::Tensor &t, int64_t dim) {
  if (t.size(dim) == 0) {
    auto sizes = t.sizes().vec();
    sizes.erase(sizes.begin() + (dim < 0 ? dim + t.dim() : dim));
    return at::ones(sizes, t.options());
  }
  at::Tensor at_max = t.gather(dim, t.abs().argmax(dim, true)).squeeze(dim);
  return at::where(at_max < 0, -at::ones_like(at_max), at::ones_like(at_max));
}

// float_halves runs fn on float32 copies of float16 or bfloat16 inputs on
// the CPU and rounds the result back (torch 1.13 has no CPU kernels of
// convolutions, matmul, pooling, batch_norm and nll_loss for halves; tref's
// cpu backend computes them this way too). everywhere does so on every
// device: for the special functions and logcumsumexp, whose CUDA kernels
// lack some halves (zeta has none, erfinv no bfloat16), and whose cpu
// backend computes halves in float32 as well.
OpFn float_halves(OpFn fn, bool everywhere = false) {
  return [fn, everywhere](const Args &a) {
    const at::Tensor &x = a.in(0);
    auto st = x.scalar_type();
    if ((!everywhere && !x.is_cpu()) || (st != at::kHalf && st != at::kBFloat16)) return fn(a);
    std::vector<tt_tensor_s> wide;
    wide.reserve(size_t(a.nin));
    for (int k = 0; k < a.nin; k++) {
      at::Tensor t = a.in(k);
      wide.push_back(tt_tensor_s{t.is_floating_point() ? t.to(at::kFloat) : t});
    }
    std::vector<tt_tensor> ptrs;
    for (auto &w : wide) ptrs.push_back(&w);
    Args b{ptrs.data(), a.nin, a.ia, a.nia, a.fa, a.nfa};
    return fn(b).to(st);
  };
}

// nn_registry holds the pooling, padding, transposed convolution,
// batch_norm and nll_loss ops (marshalled by marshal_nn.go).
const std::unordered_map<std::string, OpFn> &nn_registry() {
  static const std::unordered_map<std::string, OpFn> ops = {
      // ia: kernel h w, stride h w, padding h w, ceil_mode, count_include_pad, divisor_override (0: none)
      {"avg_pool2d", float_halves([](const Args &a) {
         c10::optional<int64_t> div;
         if (a.i(8)) div = a.i(8);
         return at::avg_pool2d(a.in(0), {a.i(0), a.i(1)}, {a.i(2), a.i(3)}, {a.i(4), a.i(5)}, a.i(6) != 0, a.i(7) != 0, div);
       })},
      // ia: output h w
      {"adaptive_avg_pool2d", float_halves([](const Args &a) { return at::adaptive_avg_pool2d(a.in(0), {a.i(0), a.i(1)}); })},
      // ia: mode (0 constant, 1 reflect, 2 replicate, 3 circular), npads, pads...; fa: value
      {"pad", float_halves([](const Args &a) {
         static const char *modes[] = {"constant", "reflect", "replicate", "circular"};
         int64_t m = a.i(0);
         if (m < 0 || m > 3) throw std::runtime_error("pad: unknown mode " + std::to_string(m));
         c10::optional<double> value;
         if (m == 0) value = a.f(0);
         return at::pad(a.in(0), a.dims(1), modes[m], value);
       })},
      // inputs x, w [, bias]; ia: stride h w, padding h w, output_padding h w, dilation h w, groups
      {"conv_transpose2d", float_halves([](const Args &a) {
         c10::optional<at::Tensor> b;
         if (a.nin > 2) b = a.in(2);
         return at::conv_transpose2d(a.in(0), a.in(1), b, {a.i(0), a.i(1)}, {a.i(2), a.i(3)}, {a.i(4), a.i(5)}, a.i(8),
                                     {a.i(6), a.i(7)});
       })},
      // inputs x, mean, var [, weight] [, bias]; ia: has_weight, has_bias; fa: eps
      {"batch_norm", float_halves([](const Args &a) {
         c10::optional<at::Tensor> w, b;
         int k = 3;
         if (a.i(0)) w = a.in(k++);
         if (a.i(1)) b = a.in(k++);
         return at::batch_norm(a.in(0), w, b, a.in(1), a.in(2), false, 0.0, a.f(0), false);
       })},
      // inputs logp, target [, weight]; ia: reduction (0 mean, 1 sum, 2 none), ignore_index, has_weight; fa: label_smoothing
      {"nll_loss", float_halves([](const Args &a) {
         static const int64_t reductions[] = {at::Reduction::Mean, at::Reduction::Sum, at::Reduction::None};
         int64_t r = a.i(0);
         if (r < 0 || r > 2) throw std::runtime_error("nll_loss: unknown reduction " + std::to_string(r));
         c10::optional<at::Tensor> w;
         if (a.i(2)) w = a.in(2);
         const at::Tensor &logp = a.in(0), &t = a.in(1).to(at::kLong);
         double eps = a.f(0);
         at::Tensor nll = nll_loss_rows(logp, t, w, reductions[r], a.i(1));
         if (eps == 0) return nll;
         // torch's cross_entropy with label smoothing, given log-probabilities.
         int64_t cdim = logp.dim() == 1 ? 0 : 1, classes = logp.size(cdim);
         at::Tensor ignore = t == a.i(1);
         at::Tensor smooth;
         if (w) {
           std::vector<int64_t> shape(logp.dim(), 1);
           shape[cdim] = classes;
           smooth = -(logp * w->view(shape)).sum(cdim);
         } else {
           smooth = -logp.sum(cdim);
         }
         smooth = smooth.masked_fill(ignore, 0.0);
         at::Tensor ret;
         if (r == 2) {
           ret = smooth;
         } else if (r == 1) {
           ret = smooth.sum();
         } else if (w) {
           ret = smooth.sum() / w->gather(0, t.masked_select(~ignore).flatten()).sum();
         } else {
           ret = smooth.sum() / (~ignore).sum();
         }
         return (1 - eps) * nll + ret * (eps / double(classes));
       })},
  };
  return ops;
}

// operands are a binary op's two operands: its two inputs, or its one
// input and the scalar operand that its attributes carry (ia: the
// scalar's dtype code, 1 when it is the first operand, its integer value;
// fa: its float value). The scalar becomes a 0-d CPU tensor of its own
// dtype, which ATen reads as a kernel argument on any device (a "CPU
// scalar", as mul(Tensor, Scalar) makes one), never as device memory; it
// is not a wrapped number, so promotion is tref's: a 0-d operand of that
// dtype.
// value_operands are the two value operands of an op whose tensor
// operand x is given and whose other value operand is the scalar in its
// attributes (ia: its dtype code, 1 when it comes first, its integer
// value; fa: its float value), made as a 0-d tensor of its own dtype on
// dev: a fill of that value (a kernel argument), never a copy.
std::pair<at::Tensor, at::Tensor> value_operands(const Args &a, const at::Tensor &x, at::Device dev) {
  auto st = to_scalar(int(a.i(0)));
  at::Scalar v = scalar_value(st, a.i(2), a.f(0));
  at::Tensor s = at::scalar_tensor(v, at::TensorOptions().dtype(st).device(dev));
  if (a.i(1) != 0) return {s, x};
  return {x, s};
}

std::pair<at::Tensor, at::Tensor> operands(const Args &a) {
  if (a.nin != 1) return {a.in(0), a.in(1)};
  return value_operands(a, a.in(0), at::Device(at::kCPU));
}

// binary makes a registry entry of a binary op f(x, y) that takes a
// scalar operand too (operands).
template <typename F>
OpFn binary(F f) {
  return [f](const Args &a) {
    auto xy = operands(a);
    return f(xy.first, xy.second);
  };
}

// special_binary makes a registry entry of a binary special function
// f(x, y) (zeta, gammainc, gammaincc) that takes a scalar operand too,
// made on the tensor's device (special_zeta's reflection uses at::where,
// which wants one device). Both operands are cast to the dtype they
// promote to, computing float16 and bfloat16 (and zeta's integers) in
// float32 on every device, as float_halves(fn, true) does for the unary
// special functions (torch 1.13 has no zeta kernel for halves; the cpu
// backend computes them in float32 too); halves are rounded back.
template <typename F>
OpFn special_binary(F f) {
  return [f](const Args &a) -> at::Tensor {
    auto xy = a.nin == 1 ? value_operands(a, a.in(0), a.in(0).device()) : operands(a);
    auto st = at::result_type(xy.first, xy.second);
    bool half = st == at::kHalf || st == at::kBFloat16;
    auto ct = at::isFloatingType(st) && !half ? st : at::kFloat;
    at::Tensor out = f(xy.first.to(ct), xy.second.to(ct));
    return half ? out.to(st) : out;
  };
}

// writes_into reports whether an op of result dtype dt and shape sizes
// may write straight into tt_op_into's output (its out= variant) rather
// than into a tensor of its own that tt_op_into then copies: only where
// the output has exactly that dtype and shape, so that out= neither casts
// nor resizes (tref's memory cannot grow) and a disagreement with tref's
// inference still surfaces as tt_op_into's error.
bool writes_into(const Args &a, at::ScalarType dt, at::IntArrayRef sizes) {
  return a.out != nullptr && a.out->scalar_type() == dt && a.out->sizes() == sizes;
}

// binary_out is binary with f's out= variant g(out, x, y), used when the
// op runs into tt_op_into's output (writes_into).
template <typename F, typename G>
OpFn binary_out(F f, G g) {
  return [f, g](const Args &a) -> at::Tensor {
    auto xy = operands(a);
    const at::Tensor &x = xy.first, &y = xy.second;
    if (writes_into(a, at::result_type(x, y), at::infer_size(x.sizes(), y.sizes()))) return g(*a.out, x, y);
    return f(x, y);
  };
}

// unary_out is a registry entry of a unary op f(x) with its out= variant
// g(out, x), used for a floating x when the op runs into tt_op_into's
// output (writes_into; the op keeps a floating dtype).
template <typename F, typename G>
OpFn unary_out(F f, G g) {
  return [f, g](const Args &a) -> at::Tensor {
    const at::Tensor &x = a.in(0);
    if (at::isFloatingType(x.scalar_type()) && writes_into(a, x.scalar_type(), x.sizes())) return g(*a.out, x);
    return f(x);
  };
}

// find_op looks an op up in every registry.
const OpFn *find_op(const std::string &op);

// even_padding reports whether conv2d's ia (pad_lo h w at 2, pad_hi h w
// at 4) pads each side as its opposite, as libtorch's padding does.
bool even_padding(const Args &a) { return a.i(2) == a.i(4) && a.i(3) == a.i(5); }

// conv_padded is x as conv2d's ia pads it and the padding left for
// libtorch: even padding as libtorch's own, uneven as x padded with
// zeros first.
std::pair<at::Tensor, std::vector<int64_t>> conv_padded(at::Tensor x, const Args &a) {
  if (even_padding(a)) return {x, {a.i(2), a.i(3)}};
  return {at::constant_pad_nd(x, {a.i(3), a.i(5), a.i(2), a.i(4)}, 0), {0, 0}};
}

// backward_registry holds the backward kernels that tref's gradient
// rules submit (runtime/ops/backward.go, linalg.go), so that training on
// a GPU keeps them there.
const std::unordered_map<std::string, OpFn> &backward_registry() {
  static const std::unordered_map<std::string, OpFn> ops = {
      // a [k, m], b [k, n]: aᵀ·b, straight into the output when it is one
      {"matmul_tn", float_halves([](const Args &a) -> at::Tensor {
         auto dt = at::result_type(a.in(0), a.in(1));
         at::Tensor x = a.in(0).to(dt).t(), y = a.in(1).to(dt);
         if (writes_into(a, dt, {x.size(0), y.size(1)})) return at::mm_out(*a.out, x, y);
         return at::mm(x, y);
       })},
      // inputs x, g: g·gelu'(x), gelu exact (erf)
      {"gelu_backward", float_halves([](const Args &a) { return at::gelu_backward(a.in(1), a.in(0)); })},
      // input g; ia: rank, shape..., then the index as "index" reads it
      // (resolved against shape): g written into zeros where the index read
      {"index_backward", [](const Args &a) {
         std::vector<int64_t> shape = a.dims(0);
         at::Tensor out = at::zeros(shape, a.in(0).options());
         auto [view, flips] = index_view(out, a, 1 + int(shape.size()));
         at::Tensor g = a.in(0).reshape(view.sizes());
         view.copy_(flips.empty() ? g : g.flip(flips));
         return out;
       }},
      // inputs logits ([C] or [N, C, ...]), targets, g (the loss's
      // cotangent); ia: ignore_index. (softmax(logits) - onehot(targets))
      // times g over the count of targets not ignored, zero where ignored.
      {"cross_entropy_backward", float_halves([](const Args &a) {
         at::Tensor x = a.in(0), t = a.in(1).to(at::kLong);
         bool single = x.dim() == 1;
         if (single) {
           x = x.unsqueeze(0);
           t = t.unsqueeze(0);
         }
         at::Tensor valid = t.ne(a.i(0));
         at::Tensor onehot = at::one_hot(at::where(valid, t, at::zeros_like(t)), x.size(1)).movedim(-1, 1);
         at::Tensor grad = at::softmax(x, 1) - onehot.to(x.scalar_type());
         at::Tensor scale = a.in(2).to(x.scalar_type()) / valid.sum().to(x.scalar_type());
         grad = at::where(valid.unsqueeze(1), grad * scale, at::zeros_like(grad));
         return single ? grad.squeeze(0) : grad;
       })},
      // inputs g, w; ia: conv2d's (stride h w, pad_lo h w, pad_hi h w,
      // dilation h w, groups), then the input's rank and shape: the
      // input's cotangent (with uneven padding, that of the padded input,
      // cropped)
      {"conv2d_backward_input", float_halves([](const Args &a) {
         at::Tensor g = a.in(0);
         std::vector<int64_t> shape = a.dims(9);
         bool unbatched = shape.size() == 3;
         if (unbatched) {
           g = g.unsqueeze(0);
           shape.insert(shape.begin(), 1);
         }
         if (shape.size() != 4) throw std::runtime_error("conv2d_backward_input: the input must have 3 or 4 dimensions");
         int64_t top = a.i(2), left = a.i(3), bottom = a.i(4), right = a.i(5);
         bool even = even_padding(a);
         std::vector<int64_t> padded = shape;
         if (!even) {
           padded[2] += top + bottom;
           padded[3] += left + right;
         }
         std::vector<int64_t> pad = even ? std::vector<int64_t>{top, left} : std::vector<int64_t>{0, 0};
         // The input's values are not read: one element expanded, as
         // torch.nn.grad.conv2d_input passes it.
         at::Tensor input = at::empty({1}, g.options()).expand(padded);
         at::Tensor gi = std::get<0>(at::convolution_backward(g, input, a.in(1), c10::nullopt,
                                                              {a.i(0), a.i(1)}, pad, {a.i(6), a.i(7)}, false, {0, 0}, a.i(8),
                                                              {true, false, false}));
         if (!even) gi = gi.slice(2, top, top + shape[2]).slice(3, left, left + shape[3]);
         return (unbatched ? gi.squeeze(0) : gi).contiguous();
       })},
      // inputs x, g; ia: conv2d's, then the weight's rank and shape: the
      // weight's cotangent
      {"conv2d_backward_weight", float_halves([](const Args &a) {
         at::Tensor x = a.in(0), g = a.in(1);
         if (x.dim() == 3) {
           x = x.unsqueeze(0);
           g = g.unsqueeze(0);
         }
         auto [padded, pad] = conv_padded(x, a);
         // The weight's values are not read (torch.nn.grad.conv2d_weight).
         at::Tensor weight = at::empty({1}, x.options()).expand(a.dims(9));
         return std::get<1>(at::convolution_backward(g, padded, weight, c10::nullopt, {a.i(0), a.i(1)},
                                                     pad, {a.i(6), a.i(7)}, false, {0, 0}, a.i(8), {false, true, false}));
       })},
      // inputs x, g; ia: max_pool2d's (kernel h w, stride h w, padding h w,
      // dilation h w, ceil_mode): g added at each window's maximum
      {"max_pool2d_backward", float_halves([](const Args &a) {
         const at::Tensor &x = a.in(0);
         std::vector<int64_t> k = {a.i(0), a.i(1)}, st = {a.i(2), a.i(3)}, p = {a.i(4), a.i(5)}, d = {a.i(6), a.i(7)};
         at::Tensor idx = std::get<1>(at::max_pool2d_with_indices(x, k, st, p, d, a.i(8) != 0));
         return at::max_pool2d_with_indices_backward(a.in(1), x, k, st, p, d, a.i(8) != 0, idx);
       })},
      // input g; ia: avg_pool2d's (9 ints, see nn_registry), then the
      // input's rank and shape
      {"avg_pool2d_backward", float_halves([](const Args &a) {
         c10::optional<int64_t> div;
         if (a.i(8)) div = a.i(8);
         const at::Tensor &g = a.in(0);
         // The input is read for its shape and options only: empty, not
         // zeros, saves filling an input-sized tensor.
         return at::avg_pool2d_backward(g, at::empty(a.dims(9), g.options()), {a.i(0), a.i(1)}, {a.i(2), a.i(3)},
                                        {a.i(4), a.i(5)}, a.i(6) != 0, a.i(7) != 0, div);
       })},
      // input g; ia: output h w, then the input's rank and shape
      {"adaptive_avg_pool2d_backward", float_halves([](const Args &a) {
         const at::Tensor &g = a.in(0);
         // g spread back over each window: rowsᵀ·g·cols, with matmuls
         // (torch's CUDA kernel adds with atomics).
         std::vector<int64_t> shape = a.dims(2);
         if (shape.size() < 2 || g.dim() != int64_t(shape.size())) throw std::runtime_error("adaptive_avg_pool2d_backward: bad shapes");
         int64_t h = shape[shape.size() - 2], w = shape.back();
         at::Tensor rows = adaptive_pool_weights(g.size(-2), h, g.scalar_type(), g.device()),
                    cols = adaptive_pool_weights(g.size(-1), w, g.scalar_type(), g.device());
         return at::matmul(at::matmul(rows.t(), g), cols).contiguous();
       })},
      // input g; ia: pad's (mode, npads, pads...), then the input's rank
      // and shape; fa: value. Each element of g is added to the input
      // element the pad read it from (padding with a constant read none),
      // one padded dimension at a time (fold_pad): in a fixed order, so
      // that CUDA gives the same bits every run, as index_add_'s atomics
      // would not.
      {"pad_backward", float_halves([](const Args &a) {
         int64_t m = a.i(0);
         if (m < 0 || m > 3) throw std::runtime_error("pad_backward: unknown mode " + std::to_string(m));
         std::vector<int64_t> pads = a.dims(1), shape = a.dims(2 + int(pads.size()));
         const at::Tensor &g = a.in(0);
         int64_t rank = int64_t(shape.size());
         if (int64_t(pads.size()) % 2 != 0 || int64_t(pads.size()) / 2 > rank || g.dim() != rank)
           throw std::runtime_error("pad_backward: the pads do not fit the input's shape");
         if (m == 0) {
           // Constant padding is linear: crop what it added, pad back
           // what it cropped.
           std::vector<int64_t> neg(pads.size());
           for (size_t i = 0; i < pads.size(); i++) neg[i] = -pads[i];
           return at::constant_pad_nd(g, neg, 0);
         }
         at::Tensor x = g;
         for (size_t i = 0; i < pads.size() / 2; i++) {
           int64_t d = rank - 1 - int64_t(i);
           x = fold_pad(x, d, pads[2 * i], pads[2 * i + 1], shape[d], m);
         }
         return x.contiguous();
       })},
  };
  return ops;
}

const std::unordered_map<std::string, OpFn> &registry() {
  static const std::unordered_map<std::string, OpFn> ops = {
      // binary elementwise, torch promotion; the second operand may be a
      // scalar (operands)
      {"add", binary_out([](const at::Tensor &x, const at::Tensor &y) { return at::add(x, y); },
                        [](at::Tensor &o, const at::Tensor &x, const at::Tensor &y) { return at::add_out(o, x, y); })},
      {"sub", binary_out([](const at::Tensor &x, const at::Tensor &y) { return at::sub(x, y); },
                        [](at::Tensor &o, const at::Tensor &x, const at::Tensor &y) { return at::sub_out(o, x, y); })},
      {"mul", binary_out([](const at::Tensor &x, const at::Tensor &y) { return at::mul(x, y); },
                        [](at::Tensor &o, const at::Tensor &x, const at::Tensor &y) { return at::mul_out(o, x, y); })},
      {"div", binary_out([](const at::Tensor &x, const at::Tensor &y) { return at::div(x, y); },
                        [](at::Tensor &o, const at::Tensor &x, const at::Tensor &y) { return at::div_out(o, x, y); })},
      {"floordiv", binary([](const at::Tensor &x, const at::Tensor &y) { return at::div(x, y, "floor"); })},
      {"mod", binary([](const at::Tensor &x, const at::Tensor &y) { return at::remainder(x, y); })},
      {"fmod", binary([](const at::Tensor &x, const at::Tensor &y) { return at::fmod(x, y); })},
      {"hypot", binary([](const at::Tensor &x, const at::Tensor &y) { return at::hypot(x, y); })},
      {"copysign", binary([](const at::Tensor &x, const at::Tensor &y) { return at::copysign(x, y); })},
      {"pow", binary([](const at::Tensor &x, const at::Tensor &y) { return at::pow(x, y); })},
      {"maximum", binary_out([](const at::Tensor &x, const at::Tensor &y) { return at::maximum(x, y); },
                        [](at::Tensor &o, const at::Tensor &x, const at::Tensor &y) { return at::maximum_out(o, x, y); })},
      {"minimum", binary_out([](const at::Tensor &x, const at::Tensor &y) { return at::minimum(x, y); },
                        [](at::Tensor &o, const at::Tensor &x, const at::Tensor &y) { return at::minimum_out(o, x, y); })},
      {"atan2", binary([](const at::Tensor &x, const at::Tensor &y) { return at::atan2(x, y); })},
      {"eq", binary([](const at::Tensor &x, const at::Tensor &y) { return at::eq(x, y); })},
      {"ne", binary([](const at::Tensor &x, const at::Tensor &y) { return at::ne(x, y); })},
      {"lt", binary([](const at::Tensor &x, const at::Tensor &y) { return at::lt(x, y); })},
      {"le", binary([](const at::Tensor &x, const at::Tensor &y) { return at::le(x, y); })},
      {"gt", binary([](const at::Tensor &x, const at::Tensor &y) { return at::gt(x, y); })},
      {"ge", binary([](const at::Tensor &x, const at::Tensor &y) { return at::ge(x, y); })},
      // where(c, x, y); one of x, y may be a scalar operand, made on the
      // condition's device (at::where wants one device)
      {"where",
       [](const Args &a) {
         if (a.nin == 3) return at::where(a.in(0), a.in(1), a.in(2));
         auto xy = value_operands(a, a.in(1), a.in(0).device());
         return at::where(a.in(0), xy.first, xy.second);
       }},
      // unary
      {"neg", unary_out([](const at::Tensor &x) { return at::neg(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::neg_out(o, x); })},
      {"abs", unary_out([](const at::Tensor &x) { return at::abs(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::abs_out(o, x); })},
      {"exp", unary_out([](const at::Tensor &x) { return at::exp(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::exp_out(o, x); })},
      {"log", unary_out([](const at::Tensor &x) { return at::log(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::log_out(o, x); })},
      {"sqrt", unary_out([](const at::Tensor &x) { return at::sqrt(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::sqrt_out(o, x); })},
      {"rsqrt", unary_out([](const at::Tensor &x) { return at::rsqrt(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::rsqrt_out(o, x); })},
      {"sin", unary_out([](const at::Tensor &x) { return at::sin(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::sin_out(o, x); })},
      {"cos", unary_out([](const at::Tensor &x) { return at::cos(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::cos_out(o, x); })},
      {"tanh", unary_out([](const at::Tensor &x) { return at::tanh(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::tanh_out(o, x); })},
      {"sigmoid", unary_out([](const at::Tensor &x) { return at::sigmoid(x); }, [](at::Tensor &o, const at::Tensor &x) { return at::sigmoid_out(o, x); })},
      // relu is clamp_min(x, 0) in ATen: its out= variant
      {"relu", unary_out([](const at::Tensor &x) { return at::relu(x); },
                         [](at::Tensor &o, const at::Tensor &x) { return at::clamp_min_out(o, x, 0); })},
      {"gelu", [](const Args &a) { return at::gelu(a.in(0)); }},
      // bitwise ops of runtime/ops/bitwise.go
      {"bitwise_and", [](const Args &a) { return at::bitwise_and(a.in(0), a.in(1)); }},
      {"bitwise_or", [](const Args &a) { return at::bitwise_or(a.in(0), a.in(1)); }},
      {"bitwise_xor", [](const Args &a) { return at::bitwise_xor(a.in(0), a.in(1)); }},
      {"bitwise_not", [](const Args &a) { return at::bitwise_not(a.in(0)); }},
      // integer ops of runtime/ops/intops.go
      {"gcd", [](const Args &a) { return at::gcd(a.in(0), a.in(1)); }},
      {"lcm", [](const Args &a) { return at::lcm(a.in(0), a.in(1)); }},
      {"bitwise_left_shift", [](const Args &a) { return shift(a.in(0), a.in(1), true); }},
      {"bitwise_right_shift", [](const Args &a) { return shift(a.in(0), a.in(1), false); }},
      // logarithms, exponentials and the reciprocal of runtime/ops/logexp.go
      {"log1p", [](const Args &a) { return at::log1p(a.in(0)); }},
      {"expm1", [](const Args &a) { return at::expm1(a.in(0)); }},
      {"log2", [](const Args &a) { return at::log2(a.in(0)); }},
      {"log10", [](const Args &a) { return at::log10(a.in(0)); }},
      {"reciprocal", [](const Args &a) { return at::reciprocal(a.in(0)); }},
      // trigonometric and hyperbolic ops of runtime/ops/trig.go
      {"tan", [](const Args &a) { return at::tan(a.in(0)); }},
      {"asin", [](const Args &a) { return at::asin(a.in(0)); }},
      {"acos", [](const Args &a) { return at::acos(a.in(0)); }},
      {"atan", [](const Args &a) { return at::atan(a.in(0)); }},
      {"sinh", [](const Args &a) { return at::sinh(a.in(0)); }},
      {"cosh", [](const Args &a) { return at::cosh(a.in(0)); }},
      {"asinh", [](const Args &a) { return at::asinh(a.in(0)); }},
      {"acosh", [](const Args &a) { return at::acosh(a.in(0)); }},
      {"atanh", [](const Args &a) { return at::atanh(a.in(0)); }},
      // pointwise ops of runtime/ops/pointwise.go
      {"floor", [](const Args &a) { return at::floor(a.in(0)); }},
      {"ceil", [](const Args &a) { return at::ceil(a.in(0)); }},
      {"trunc", [](const Args &a) { return at::trunc(a.in(0)); }},
      // ia: decimals
      {"round", [](const Args &a) { return at::round(a.in(0), a.i(0)); }},
      {"sign", [](const Args &a) { return at::sign(a.in(0)); }},
      {"erf", [](const Args &a) { return at::erf(a.in(0)); }},
      // special functions of runtime/ops/special.go
      {"erfc", float_halves([](const Args &a) { return at::erfc(a.in(0)); }, true)},
      {"erfinv", float_halves([](const Args &a) { return at::erfinv(a.in(0)); }, true)},
      {"lgamma", float_halves([](const Args &a) { return at::lgamma(a.in(0)); }, true)},
      {"digamma", float_halves([](const Args &a) { return at::digamma(a.in(0)); }, true)},
      // ia: n
      {"polygamma", float_halves([](const Args &a) { return polygamma_reflected(a.i(0), a.in(0)); }, true)},
      {"erfcx", float_halves([](const Args &a) { return at::special_erfcx(a.in(0)); }, true)},
      // binary; either operand may be a scalar (special_binary)
      {"zeta", special_binary(zeta_reflected)},
      {"gammainc", special_binary([](const at::Tensor &a, const at::Tensor &x) { return at::special_gammainc(a, x); })},
      {"gammaincc", special_binary([](const at::Tensor &a, const at::Tensor &x) { return at::special_gammaincc(a, x); })},
      {"isnan", [](const Args &a) { return at::isnan(a.in(0)); }},
      {"isinf", [](const Args &a) { return at::isinf(a.in(0)); }},
      // ia: has posinf, has neginf; fa: nan, posinf, neginf
      {"nan_to_num", [](const Args &a) {
         c10::optional<double> pos, neg;
         if (a.i(0)) pos = a.f(1);
         if (a.i(1)) neg = a.f(2);
         return at::nan_to_num(a.in(0), a.f(0), pos, neg);
       }},
      // fa: negative_slope
      {"leaky_relu", [](const Args &a) { return at::leaky_relu(a.in(0), a.f(0)); }},
      // fa: alpha
      {"elu", [](const Args &a) { return at::elu(a.in(0), a.f(0)); }},
      // fa: beta, threshold
      {"softplus", [](const Args &a) { return at::softplus(a.in(0), a.f(0), a.f(1)); }},
      {"hardsigmoid", [](const Args &a) { return at::hardsigmoid(a.in(0)); }},
      {"hardswish", [](const Args &a) { return at::hardswish(a.in(0)); }},
      {"gelu_tanh", [](const Args &a) { return at::gelu(a.in(0), "tanh"); }},
      // gather and scatter (runtime/ops/gather.go); ia: dim
      {"gather", [](const Args &a) { return at::gather(a.in(0), a.i(0), a.in(1)); }},
      {"scatter", [](const Args &a) {
         const at::Tensor &src = a.in(2);
         // A 0-d src is one value written everywhere: expanded, not read
         // with item() (which waits for the device).
         const at::Tensor &x = a.in(0), &index = a.in(1);
         if (src.dim() == 0) return at::scatter(x, a.i(0), index, src.to(x.scalar_type()).expand(index.sizes()));
         return scatter_last(x, a.i(0), index, src);
       }},
      {"scatter_add", [](const Args &a) { return scatter_add_ordered(a.in(0), a.i(0), a.in(1), a.in(2)); }},
      // ia: dim, reduction (runtime/ops ScatterReductions' order), include_self
      {"scatter_reduce", [](const Args &a) {
         static const char *const reduce[] = {"sum", "prod", "mean", "amax", "amin"};
         int64_t r = a.i(1);
         if (r < 0 || r > 4) throw std::runtime_error("scatter_reduce: bad reduction");
         return scatter_reduce_ordered(a.in(0), a.i(0), a.in(1), a.in(2), reduce[r], a.i(2) != 0);
       }},
      {"index_select", [](const Args &a) { return at::index_select(a.in(0), a.i(0), a.in(1)); }},
      // ia: num_classes
      {"one_hot", [](const Args &a) { return at::one_hot(a.in(0), a.i(0)); }},
      // full: ia = {dtype, integer value, rank, dims...}, fa = {float value};
      // into an output, a fill of its memory on its device (the value a
      // kernel argument), else a new CPU tensor
      {"full",
       [](const Args &a) {
         auto st = to_scalar(int(a.i(0)));
         at::Scalar v = scalar_value(st, a.i(1), a.f(0));
         if (a.out != nullptr) return a.out->fill_(v);
         if (a.nia < 3 || a.i(2) < 0 || a.i(2) > a.nia - 3) throw std::runtime_error("full: the shape is longer than its attributes");
         std::vector<int64_t> dims(a.ia + 3, a.ia + 3 + a.i(2));
         return at::full(dims, v, at::TensorOptions().dtype(st));
       }},
      // scans, logsumexp, norms, sorting (runtime/ops/order.go)
      // ia: dim
      {"cumsum", [](const Args &a) { return scan_blocked(a.in(0), a.i(0), false); }},
      {"cumprod", [](const Args &a) { return scan_blocked(a.in(0), a.i(0), true); }},
      // ia: dim
      {"logcumsumexp", float_halves([](const Args &a) { return at::logcumsumexp(a.in(0), a.i(0)); }, true)},
      // ia: dim (the index of the running extreme; its value is a gather)
      {"cummax_indices", [](const Args &a) { return std::get<1>(at::cummax(a.in(0), a.i(0))); }},
      {"cummin_indices", [](const Args &a) { return std::get<1>(at::cummin(a.in(0), a.i(0))); }},
      // ia: keepdim, correction (unused), ndims, dims... (every dim listed)
      {"logsumexp", [](const Args &a) { return at::logsumexp(a.in(0), a.dims(2), a.i(0) != 0); }},
      // ia: keepdim, ndims, dims... (every dim listed); fa: p
      {"norm", [](const Args &a) {
         return at::linalg_vector_norm(a.in(0), a.f(0), at::OptionalIntArrayRef(a.dims(1)), a.i(0) != 0);
       }},
      // ia: diagonal, upper
      {"trilu", [](const Args &a) { return a.i(1) ? at::triu(a.in(0), a.i(0)) : at::tril(a.in(0), a.i(0)); }},
      // ia: right (torch's binary search; halves have kernels on both devices)
      {"searchsorted", [](const Args &a) { return at::searchsorted(a.in(0), a.in(1), false, a.i(0) != 0); }},
      // ia: dim, descending
      {"argsort", [](const Args &a) {
         return std::get<1>(at::sort(a.in(0), c10::optional<bool>(true), a.i(0), a.i(1) != 0));
       }},
      {"silu", [](const Args &a) { return at::silu(a.in(0)); }},
      {"logical_not", [](const Args &a) { return at::logical_not(a.in(0)); }},
      // ia: has_min, has_max; fa: min, max
      {"clamp", [](const Args &a) {
         c10::optional<at::Scalar> lo, hi;
         if (a.i(0)) lo = a.f(0);
         if (a.i(1)) hi = a.f(1);
         return at::clamp(a.in(0), lo, hi);
       }},
      // ia: dtype
      {"astype", [](const Args &a) { return a.in(0).to(to_scalar(int(a.i(0)))); }},
      // reductions; ia: keepdim, correction, ndims, dims...
      {"sum", [](const Args &a) { return at::sum(a.in(0), a.dims(2), a.i(0) != 0); }},
      {"mean", [](const Args &a) { return at::mean(a.in(0), a.dims(2), a.i(0) != 0); }},
      {"max", [](const Args &a) {
         auto d = a.dims(2);
         return d.empty() && !a.i(0) ? at::max(a.in(0)) : at::amax(a.in(0), d, a.i(0) != 0);
       }},
      {"min", [](const Args &a) {
         auto d = a.dims(2);
         return d.empty() && !a.i(0) ? at::min(a.in(0)) : at::amin(a.in(0), d, a.i(0) != 0);
       }},
      {"argmax", [](const Args &a) {
         auto d = a.dims(2);
         if (d.empty()) return at::argmax(a.in(0));
         return at::argmax(a.in(0), d[0], a.i(0) != 0);
       }},
      {"argmin", [](const Args &a) {
         auto d = a.dims(2);
         if (d.empty()) return at::argmin(a.in(0));
         return at::argmin(a.in(0), d[0], a.i(0) != 0);
       }},
      {"var", [](const Args &a) {
         return at::var(a.in(0), at::OptionalIntArrayRef(a.dims(2)), c10::optional<int64_t>(a.i(1)), a.i(0) != 0);
       }},
      {"std", [](const Args &a) {
         return at::std(a.in(0), at::OptionalIntArrayRef(a.dims(2)), c10::optional<int64_t>(a.i(1)), a.i(0) != 0);
       }},
      {"prod", [](const Args &a) {
         auto d = a.dims(2);
         if (d.empty() && !a.i(0)) return at::prod(a.in(0));
         return reduce_each(a.in(0), d, a.i(0) != 0,
                            [](const at::Tensor &x, int64_t k, bool kd) { return at::prod(x, k, kd); });
       }},
      {"any", [](const Args &a) {
         auto d = a.dims(2);
         if (d.empty() && !a.i(0)) return at::any(a.in(0));
         return reduce_each(a.in(0), d, a.i(0) != 0,
                            [](const at::Tensor &x, int64_t k, bool kd) { return at::any(x, k, kd); });
       }},
      {"all", [](const Args &a) {
         auto d = a.dims(2);
         if (d.empty() && !a.i(0)) return at::all(a.in(0));
         return reduce_each(a.in(0), d, a.i(0) != 0,
                            [](const at::Tensor &x, int64_t k, bool kd) { return at::all(x, k, kd); });
       }},
      // linear algebra
      {"matmul",
       [](const Args &a) -> at::Tensor {
         const at::Tensor &x = a.in(0), &y = a.in(1);
         // Matrices of one dtype: the product straight into the output.
         if (x.dim() == 2 && y.dim() == 2 && x.scalar_type() == y.scalar_type() &&
             writes_into(a, x.scalar_type(), {x.size(0), y.size(1)}))
           return at::matmul_out(*a.out, x, y);
         return at::matmul(x, y);
       }},
      // inputs x, w and an optional bias
      {"linear", [](const Args &a) {
         c10::optional<at::Tensor> b;
         if (a.nin > 2) b = a.in(2);
         return at::linear(a.in(0), a.in(1), b);
       }},
      {"outer", [](const Args &a) { return at::outer(a.in(0), a.in(1)); }},
      // inputs A, B (runtime/ops/solve.go). torch's linalg takes float32
      // and float64 only: halves are solved in float32 and rounded back,
      // as the cpu backend does. A singular A is an error (on CUDA torch
      // waits for the factorisation to tell).
      {"solve", [](const Args &a) {
         return at::linalg_solve(as_float32(a.in(0)), as_float32(a.in(1))).to(a.in(0).scalar_type());
       }},
      // inputs A, B; ia: upper, unitriangular (left=true)
      {"solve_triangular", [](const Args &a) {
         return at::linalg_solve_triangular(as_float32(a.in(0)), as_float32(a.in(1)), a.i(0) != 0, true, a.i(1) != 0)
             .to(a.in(0).scalar_type());
       }},
      {"det", [](const Args &a) { return at::linalg_det(as_float32(a.in(0))).to(a.in(0).scalar_type()); }},
      {"slogdet", [](const Args &a) {
         auto r = at::linalg_slogdet(as_float32(a.in(0)));
         return at::stack({std::get<0>(r), std::get<1>(r)}).to(a.in(0).scalar_type());
       }},
      {"cholesky", [](const Args &a) { return at::linalg_cholesky(as_float32(a.in(0))).to(a.in(0).scalar_type()); }},
      {"matrix_exp", [](const Args &a) { return at::linalg_matrix_exp(as_float32(a.in(0))).to(a.in(0).scalar_type()); }},
      // decompositions (runtime/ops/decompose.go): the factors of each
      // matrix flattened and packed along one last dimension, signs made
      // unique as the cpu backend makes them. ia: complete
      {"qr", [](const Args &a) {
         auto r = at::linalg_qr(as_float32(a.in(0)), a.i(0) ? "complete" : "reduced");
         return pack_factors({std::get<0>(r), std::get<1>(r)}, a.in(0).dim() - 2).to(a.in(0).scalar_type());
       }},
      // ia: upper (UPLO "U")
      {"eigh", [](const Args &a) {
         auto r = at::linalg_eigh(as_float32(a.in(0)), a.i(0) ? "U" : "L");
         at::Tensor v = std::get<1>(r);
         v = v * largest_sign(v, -2).unsqueeze(-2);
         return pack_factors({std::get<0>(r), v}, a.in(0).dim() - 2).to(a.in(0).scalar_type());
       }},
      // ia: hermitian; fa: atol, rtol
      {"pinv", [](const Args &a) {
         return at::linalg_pinv(as_float32(a.in(0)), c10::optional<double>(a.f(0)), c10::optional<double>(a.f(1)),
                                a.i(0) != 0)
             .to(a.in(0).scalar_type());
       }},
      // ia: check. LU, the pivots (from 1) and the permutation (row i of
      // Pᵀ·A is row perm[i] of A), packed in A's dtype (float32 or
      // float64); with check a zero on U's diagonal is an error worded as
      // the cpu backend's.
      {"lu", [](const Args &a) {
         at::Tensor x = a.in(0);
         auto r = at::linalg_lu_factor_ex(x, true, false);
         at::Tensor lu = std::get<0>(r), piv = std::get<1>(r), info = std::get<2>(r).flatten().cpu();
         if (a.i(0)) {
           auto bad = info.gt(0).nonzero();
           if (bad.size(0) > 0) {
             int64_t b = bad[0][0].item<int64_t>(), z = info[b].item<int64_t>() - 1;
             std::string msg = "U[" + std::to_string(z) + ", " + std::to_string(z) +
                               "] is zero: A is singular, and lu_solve would divide by it (lu allows it)";
             if (info.numel() > 1) msg = "matrix " + std::to_string(b) + " of the batch: " + msg;
             throw std::runtime_error(msg);
           }
         }
         int64_t m = x.size(-2);
         at::Tensor p = std::get<0>(at::lu_unpack(lu, piv, false, true));
         at::Tensor perm = (p.mT() * at::arange(m, x.options())).sum(-1);
         return pack_factors({lu, piv.to(x.scalar_type()), perm}, x.dim() - 2);
       }},
      // ia: full (full_matrices). Non-finite input fails, as in torch.
      {"svd", [](const Args &a) {
         auto r = at::linalg_svd(as_float32(a.in(0)), a.i(0) != 0);
         at::Tensor u = std::get<0>(r), s = std::get<1>(r), vh = std::get<2>(r);
         int64_t k = s.size(-1);
         // U's columns (and the matching rows of Vh), then Vh's rows past k.
         at::Tensor su = largest_sign(u, -2);
         u = u * su.unsqueeze(-2);
         at::Tensor sv = at::cat({su.narrow(-1, 0, k), largest_sign(vh.narrow(-2, k, vh.size(-2) - k), -1)}, -1);
         vh = vh * sv.unsqueeze(-1);
         return pack_factors({u, s, vh}, a.in(0).dim() - 2).to(a.in(0).scalar_type());
       }},
      // index; ia: ndims, then per input dimension: keep (0 removes the
      // dimension), start, count, step (ranges already resolved by tref).
      {"index", [](const Args &a) {
         auto [view, flips] = index_view(a.in(0), a);
         return (flips.empty() ? view : view.flip(flips)).contiguous();
       }},
      // x[...] = v: inputs x, v (x's dtype, broadcasting to the part); ia as
      // index. Negative steps write through the forward view, v flipped.
      {"index_assign", [](const Args &a) {
         at::Tensor out = a.in(0).clone();
         auto [view, flips] = index_view(out, a);
         at::Tensor v = a.in(1).expand(view.sizes());
         if (!flips.empty()) v = v.flip(flips);
         view.copy_(v);
         return out;
       }},
      // ia: ndims, dims...
      {"permute", [](const Args &a) { return a.in(0).permute(a.dims(0)).contiguous(); }},
      {"reshape", [](const Args &a) { return a.in(0).reshape(a.dims(0)).contiguous(); }},
      {"expand", [](const Args &a) { return a.in(0).expand(a.dims(0)).contiguous(); }},
      // ia: dim; any number of inputs
      {"cat", [](const Args &a) { return at::cat(a.all(), a.i(0)); }},
      {"stack", [](const Args &a) { return at::stack(a.all(), a.i(0)); }},
      // ia: dim
      {"softmax", [](const Args &a) { return at::softmax(a.in(0), a.i(0)); }},
      {"log_softmax", [](const Args &a) { return at::log_softmax(a.in(0), a.i(0)); }},
      // inputs x [, weight [, bias]]; ia: has_weight, has_bias; fa: eps
      {"layer_norm", [](const Args &a) {
         c10::optional<at::Tensor> w, b;
         int k = 1;
         if (a.i(0)) w = a.in(k++);
         if (a.i(1)) b = a.in(k++);
         return at::layer_norm(a.in(0), {a.in(0).size(-1)}, w, b, a.f(0));
       }},
      {"rms_norm", [](const Args &a) {
         const at::Tensor &x = a.in(0);
         at::Tensor y = x * at::rsqrt(at::mean(x * x, {-1}, true) + a.f(0));
         return a.i(0) ? y * a.in(1) : y;
       }},
      // inputs ids, table
      {"embedding", [](const Args &a) { return at::embedding(a.in(1), a.in(0)); }},
      // inputs x, keep-mask; fa: p
      {"dropout", [](const Args &a) {
         return a.in(0) * a.in(1).to(a.in(0).scalar_type()) / (1.0 - a.f(0));
       }},
      // inputs logits, targets; ia: ignore_index
      {"cross_entropy", [](const Args &a) {
         const at::Tensor &x = a.in(0), &t = a.in(1);
         // torch's cross_entropy_loss, its nll_loss over rows
         if (at::isFloatingType(t.scalar_type())) return at::cross_entropy_loss(x, t, {}, at::Reduction::Mean, a.i(0), 0.0);
         return nll_loss_rows(at::log_softmax(x, x.dim() == 1 ? 0 : 1), t, {}, at::Reduction::Mean, a.i(0));
       }},
      {"mse", [](const Args &a) { return at::mse_loss(a.in(0), a.in(1)); }},
      // inputs x, w [, bias]; ia: stride h w, pad_lo h w, pad_hi h w, dilation h w, groups
      {"conv2d", float_halves([](const Args &a) {
         c10::optional<at::Tensor> b;
         if (a.nin > 2) b = a.in(2);
         auto [x, pad] = conv_padded(a.in(0), a);
         return at::conv2d(x, a.in(1), b, {a.i(0), a.i(1)}, pad, {a.i(6), a.i(7)}, a.i(8));
       })},
      // ia: kernel h w, stride h w, padding h w, dilation h w, ceil_mode
      {"max_pool2d", [](const Args &a) {
         return at::max_pool2d(a.in(0), {a.i(0), a.i(1)}, {a.i(2), a.i(3)}, {a.i(4), a.i(5)},
                               {a.i(6), a.i(7)}, a.i(8) != 0);
       }},
      // inputs q, k, v; ia: causal; fa: scale
      // The fused backward ops of the nn family (runtime/ops/backward_nn.go),
      // composed from libtorch's ops so that they run where the tensors are.
      // inputs out, g; ia: dim
      {"softmax_backward", [](const Args &a) {
         const at::Tensor &o = a.in(0), &g = a.in(1);
         return (o * (g - (g * o).sum(a.i(0), true))).contiguous();
       }},
      {"log_softmax_backward", [](const Args &a) {
         const at::Tensor &o = a.in(0), &g = a.in(1);
         return (g - at::exp(o) * g.sum(a.i(0), true)).contiguous();
       }},
      // inputs q, k; ia: causal; fa: scale
      {"attention_weights", float_halves([](const Args &a) {
         const at::Tensor &q = a.in(0), &k = a.in(1);
         at::Tensor s = at::matmul(q, k.transpose(-2, -1)) * a.f(0);
         if (a.i(0)) {
           auto mask = at::ones({q.size(-2), k.size(-2)}, q.options().dtype(at::kBool)).triu(1);
           s = s.masked_fill(mask, -std::numeric_limits<double>::infinity());
         }
         return at::softmax(s, -1).contiguous();
       })},
      // inputs x [, w], g (norm_backward) or x, g (norm_backward_weight);
      // ia: has_weight, rms; fa: eps
      {"norm_backward", [](const Args &a) {
         const at::Tensor &x = a.in(0), &g = a.in(a.nin - 1);
         at::Tensor c = a.i(1) ? x : x - x.mean({-1}, true);
         at::Tensor r = at::rsqrt((c * c).mean({-1}, true) + a.f(0));
         at::Tensor xh = c * r;
         at::Tensor gh = a.i(0) ? g * a.in(1) : g;
         at::Tensor inner = gh - xh * (gh * xh).mean({-1}, true);
         if (!a.i(1)) inner = inner - gh.mean({-1}, true);
         return (r * inner).contiguous();
       }},
      {"norm_backward_weight", [](const Args &a) {
         const at::Tensor &x = a.in(0), &g = a.in(1);
         at::Tensor c = a.i(1) ? x : x - x.mean({-1}, true);
         at::Tensor xh = c * at::rsqrt((c * c).mean({-1}, true) + a.f(0));
         return (g * xh).reshape({-1, x.size(-1)}).sum(0).contiguous();
       }},
      {"attention", float_halves([](const Args &a) {
         const at::Tensor &q = a.in(0), &k = a.in(1), &v = a.in(2);
         at::Tensor s = at::matmul(q, k.transpose(-2, -1)) * a.f(0);
         if (a.i(0)) {
           auto mask = at::ones({q.size(-2), k.size(-2)}, q.options().dtype(at::kBool)).triu(1);
           s = s.masked_fill(mask, -std::numeric_limits<double>::infinity());
         }
         at::Tensor p = at::softmax(s, -1);
         // The last product straight into the output where it fits.
         if (p.scalar_type() == v.scalar_type()) {
           std::vector<int64_t> sizes =
               at::infer_size(p.sizes().slice(0, size_t(p.dim() - 2)), v.sizes().slice(0, size_t(v.dim() - 2)));
           sizes.push_back(p.size(-2));
           sizes.push_back(v.size(-1));
           if (writes_into(a, p.scalar_type(), sizes)) return at::matmul_out(*a.out, p, v);
         }
         return at::matmul(p, v);
       })},
  };
  return ops;
}

const OpFn *find_op(const std::string &op) {
  for (auto *reg : {&registry(), &nn_registry(), &backward_registry()}) {
    auto it = reg->find(op);
    if (it != reg->end()) return &it->second;
  }
  return nullptr;
}

// init_device_once makes libtorch initialise its CUDA state, the caching
// allocator that cuBLAS takes its workspace from among it. libtorch does
// that lazily, at the first tensor it allocates on a CUDA device; tensors
// over the data plane's own memory (tt_wrap_memory) allocate nothing, so
// a matmul running straight into the plane's output could be the first
// and find the allocator not initialised ("Allocator not initialized for
// device"). One small tensor allocated first runs the initialisation,
// once per device (each has its allocator state); it stays in the caching
// allocator, inside the plane's margin.
void init_device_once(const at::Device &dev) {
  static std::once_flag once[64];
  if (!dev.is_cuda() || dev.index() < 0 || dev.index() >= 64) return;
  std::call_once(once[dev.index()], [&] { (void)at::empty({1}, at::TensorOptions().device(dev)); });
}

} // namespace

extern "C" {

int tt_abi_version(void) { return 2; }

#ifndef TREF_TORCH_SOURCE
#define TREF_TORCH_SOURCE ""
#endif
const char *tt_source(void) { return TREF_TORCH_SOURCE; }

const char *tt_version(void) {
#ifdef TREF_CUDA
  static const std::string v = std::string(TORCH_VERSION) + "+cuda";
#else
  static const std::string v = TORCH_VERSION;
#endif
  return v.c_str();
}

const char *tt_error(void) { return last_error.c_str(); }

int tt_set_num_threads(int n) {
  return guard([&] { at::set_num_threads(n); return 0; }, -1);
}

int tt_cuda_device_count(void) {
#ifdef TREF_CUDA
  return guard([&] { return int(c10::cuda::device_count()); }, 0);
#else
  return 0;
#endif
}

int tt_cuda_mem_info(int device, int64_t *free_bytes, int64_t *total_bytes) {
#ifdef TREF_CUDA
  return guard([&] {
    size_t f = 0, t = 0;
    cudaSetDevice(device);
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) throw std::runtime_error("cudaMemGetInfo failed");
    *free_bytes = int64_t(f);
    *total_bytes = int64_t(t);
    return 0;
  }, -1);
#else
  (void)device; (void)free_bytes; (void)total_bytes;
  last_error = "this plugin was built without CUDA";
  return -1;
#endif
}

tt_tensor tt_from_host(const void *data, int64_t nbytes, int dtype, const int64_t *shape, int ndim, int device) {
  return guard([&]() -> tt_tensor {
    std::vector<int64_t> dims(shape, shape + ndim);
    auto st = to_scalar(dtype);
    auto cpu = at::empty(dims, at::TensorOptions().dtype(st));
    if (int64_t(cpu.nbytes()) != nbytes) throw std::runtime_error("tt_from_host: byte count does not match shape");
    if (nbytes > 0) std::memcpy(cpu.data_ptr(), data, size_t(nbytes));
    if (device < 0) return wrap(cpu);
    return wrap(cpu.to(to_device(device)));
  }, nullptr);
}

int tt_to_host(tt_tensor t, void *dst, int64_t nbytes) {
  return guard([&] {
    at::Tensor c = t->t.to(at::kCPU).contiguous();
    if (int64_t(c.nbytes()) != nbytes) throw std::runtime_error("tt_to_host: byte count does not match the tensor");
    if (nbytes > 0) std::memcpy(dst, c.data_ptr(), size_t(nbytes));
    return 0;
  }, -1);
}

tt_tensor tt_to_device(tt_tensor t, int device, int non_blocking) {
  return guard([&]() -> tt_tensor { return wrap(t->t.to(to_device(device), non_blocking != 0)); }, nullptr);
}

void tt_free(tt_tensor t) { delete t; }

int tt_ndim(tt_tensor t) { return int(t->t.dim()); }

int tt_dtype(tt_tensor t) { return from_scalar(t->t.scalar_type()); }

int64_t tt_dim(tt_tensor t, int i) { return t->t.size(i); }

int64_t tt_storage_bytes(tt_tensor t) { return int64_t(t->t.storage().nbytes()); }

int tt_has_op(const char *op) { return find_op(op) ? 1 : 0; }

int tt_scalar_operands(void) { return 2; }

tt_tensor tt_op(const char *op, const tt_tensor *ins, int nin, const int64_t *ia, int nia, const double *fa, int nfa) {
  return guard([&]() -> tt_tensor {
    const OpFn *fn = find_op(op);
    if (fn == nullptr) throw std::runtime_error(std::string("the torch backend has no op ") + op);
    Args a{ins, nin, ia, nia, fa, nfa};
    at::Tensor out = (*fn)(a);
    if (!out.is_contiguous()) out = out.contiguous();
    // A view into a larger storage (a slice of an operand) would keep all
    // of it alive after tref frees the operand; tref counts a tensor's own
    // bytes against the device's budget, so such a result gets its own.
    if (out.storage().nbytes() > size_t(out.nbytes())) out = out.clone();
    return wrap(std::move(out));
  }, nullptr);
}

tt_tensor tt_wrap_memory(void *data, int64_t nbytes, int dtype, const int64_t *shape, int ndim, int device) {
  return guard([&]() -> tt_tensor {
    std::vector<int64_t> dims(shape, shape + ndim);
    at::Device dev = device < 0 ? at::Device(at::kCPU) : to_device(device);
    init_device_once(dev);
    // target_device names the memory's device, so that libtorch does not
    // ask the CUDA driver whose pointer it is (cudaPointerGetAttributes)
    // for every operand of every op.
    at::Tensor t = at::for_blob(data, dims).options(at::TensorOptions().dtype(to_scalar(dtype)).device(dev)).target_device(dev).make_tensor();
    if (int64_t(t.nbytes()) != nbytes) throw std::runtime_error("tt_wrap_memory: byte count does not match shape");
    return wrap(std::move(t));
  }, nullptr);
}

int tt_op_into(const char *op, const tt_tensor *ins, int nin, const int64_t *ia, int nia, const double *fa, int nfa,
               tt_tensor out) {
  return guard([&] {
    const OpFn *fn = find_op(op);
    if (fn == nullptr) throw std::runtime_error(std::string("the torch backend has no op ") + op);
    Args a{ins, nin, ia, nia, fa, nfa, &out->t};
    auto t0 = std::chrono::steady_clock::now();
    at::Tensor r = (*fn)(a);
    auto t1 = std::chrono::steady_clock::now();
    int64_t op_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    IntoStats &per = op_into_stats[op];
    per.op_ns += op_ns;
    if (r.is_same(out->t)) {
      per.direct++;
      return 0;
    }
    if (r.sizes() != out->t.sizes() || r.scalar_type() != out->t.scalar_type())
      throw std::runtime_error(std::string("tt_op_into: ") + op + " gave another shape or dtype than its output");
    out->t.copy_(r);
    int64_t copy_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t1).count();
    per.copied++;
    per.copy_ns += copy_ns;
    return 0;
  }, -1);
}

int tt_into_op_stats(const char **names, int64_t *stats, int cap) {
  int i = 0;
  for (const auto &kv : op_into_stats) {
    if (i < cap) {
      names[i] = kv.first.c_str();
      stats[4 * i] = kv.second.direct;
      stats[4 * i + 1] = kv.second.copied;
      stats[4 * i + 2] = kv.second.op_ns;
      stats[4 * i + 3] = kv.second.copy_ns;
    }
    i++;
  }
  return i;
}

int tt_set_ordered_kernels(int on) {
  bool was = ordered_everywhere;
  ordered_everywhere = on != 0;
  return was;
}

int tt_synchronize(int device) {
#ifdef TREF_CUDA
  return guard([&] { if (device >= 0) { cudaSetDevice(device); cudaDeviceSynchronize(); } return 0; }, -1);
#else
  (void)device;
  return 0;
#endif
}

} // extern "C"

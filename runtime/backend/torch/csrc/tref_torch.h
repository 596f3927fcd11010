/*
 * tref_torch.h - the C ABI between tref (Go, loaded with purego, no cgo)
 * and libtorch's ATen. Every function catches C++ exceptions: failure is
 * reported by a NULL or negative return and a message from tt_error().
 *
 * Tensors cross the boundary as opaque handles. dtypes use tref's codes:
 * 1 bool, 2 uint8, 3 int64, 4 float16, 5 bfloat16, 6 float32, 7 float64.
 * Devices: -1 is the CPU, N >= 0 is cuda:N.
 */
#ifndef TREF_TORCH_H
#define TREF_TORCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tt_tensor_s *tt_tensor;

/* tt_abi_version changes whenever a signature below changes. */
int tt_abi_version(void);
/* tt_version is libtorch's version string, plus "+cuda" when built with CUDA. */
const char *tt_version(void);
/* tt_source names the plugin's sources (this header and tref_torch.cpp):
   the first 16 hex digits of their SHA-256, as scripts/build-torch.sh
   passes them in TREF_TORCH_SOURCE; tref refuses a plugin built from
   other sources than its own (a stale build), "" when unknown. */
const char *tt_source(void);
/* tt_error is the last error ("" when none); callers serialise calls. */
const char *tt_error(void);

int tt_set_num_threads(int n);
int tt_cuda_device_count(void);
/* tt_cuda_mem_info writes free and total bytes of a CUDA device. */
int tt_cuda_mem_info(int device, int64_t *free_bytes, int64_t *total_bytes);

/* tt_from_host copies nbytes of host data into a new tensor on device. */
tt_tensor tt_from_host(const void *data, int64_t nbytes, int dtype,
                       const int64_t *shape, int ndim, int device);
/* tt_to_host copies a tensor's data (made contiguous) into dst. */
int tt_to_host(tt_tensor t, void *dst, int64_t nbytes);
/* tt_to_device copies a tensor to another device (non-blocking on CUDA
 * when the source is pinned or on the device). */
tt_tensor tt_to_device(tt_tensor t, int device, int non_blocking);
void tt_free(tt_tensor t);
int tt_ndim(tt_tensor t);
int tt_dtype(tt_tensor t);
int64_t tt_dim(tt_tensor t, int i);
/* tt_storage_bytes is the size of the memory a tensor keeps alive. */
int64_t tt_storage_bytes(tt_tensor t);

/* tt_has_op reports whether tt_op knows the op name. */
int tt_has_op(const char *op);
/* tt_op runs a registered op. Integer attributes in ia, float attributes
 * in fa, in the order the op's marshaller on the Go side documents. */
tt_tensor tt_op(const char *op, const tt_tensor *ins, int nin,
                const int64_t *ia, int nia, const double *fa, int nfa);
/* tt_scalar_operands returns 2: tt_op and tt_op_into take a binary
 * elementwise op (add ... minimum, eq ... ge) with one input, and where
 * with two (the condition and one value), and a scalar operand in its
 * attributes: ia = {dtype, 1 when the scalar is the first of the two
 * value operands, its integer value}, fa = {its float value}. Plugins
 * returning 1 take binary ops' scalars only; a plugin without this
 * function takes tensors only. */
int tt_scalar_operands(void);
/* tt_wrap_memory is a tensor over memory tref owns (device memory of
 * tref's CUDA data plane, or host memory on device -1): libtorch neither
 * frees it nor keeps it alive; tt_free drops the view. */
tt_tensor tt_wrap_memory(void *data, int64_t nbytes, int dtype,
                         const int64_t *shape, int ndim, int device);
/* tt_op_into runs a registered op as tt_op does with its result in out
 * (a tensor of the result's shape and dtype): written there directly by
 * the ops that have an out= variant (matmul of matrices, the arithmetic
 * and common unary elementwise ops), else copied, on libtorch's current
 * stream: on CUDA it returns once the work is issued. */
int tt_op_into(const char *op, const tt_tensor *ins, int nin,
               const int64_t *ia, int nia, const double *fa, int nfa,
               tt_tensor out);
/* tt_into_op_stats gives tt_op_into's counts so far, per op: for each op
 * that ran into an output, up to cap of them, its name (valid while the
 * plugin is loaded) in names[i] and in stats[4i..4i+3] the calls whose op
 * wrote straight into out (its out= variant), the calls whose result was
 * copied into out, and the host nanoseconds spent issuing the ops and the
 * copies (on CUDA the work itself runs later). It returns how many ops
 * there are, which may be more than cap. */
int tt_into_op_stats(const char **names, int64_t *stats, int cap);
/* tt_set_ordered_kernels(1) has the plugin's ordered builds of the ops
 * whose CUDA kernels add or scan in no fixed order (the scatters, long
 * 1-d scans, nll_loss over [N, C, d...]) run on the CPU too, as they
 * always do on CUDA, for tests; 0 gives the CPU torch's kernels again.
 * It returns the previous setting. */
int tt_set_ordered_kernels(int on);
/* tt_synchronize waits for all work on a CUDA device (no-op on CPU). */
int tt_synchronize(int device);

#ifdef __cplusplus
}
#endif
#endif

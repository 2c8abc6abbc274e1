// Sluice tensors as DLPack, the zero-copy hand-off that numpy 1.24 and
// torch 1.13 read (DLPack 0.6: legacy "dltensor" capsules, no versioned
// struct).
//
// A capsule holds a DLManagedTensor that views the tensor's buffer and owns
// a copy of the Tensor (its manager_ctx), so the buffer lives as long as the
// consumer's array, after the iterator and the dataset are gone. The
// consumer renames the capsule "used_dltensor" and calls the deleter when its
// array dies; a capsule nobody consumed frees the tensor in its own
// destructor, as the DLPack Python spec says. The deleter touches no Python
// object, so consumers may call it from any thread without the GIL.
//
// The memory is Sluice's and may be shared (a cached, repeated or
// from_tensors element): consumers must not write to it. numpy marks its
// arrays read-only; torch cannot, so sluice.torch documents it.
//
// dtypes: bool, uint8, int32, int64, float16, bfloat16 (kDLBfloat, which
// torch reads and numpy does not), float32 and float64. Strings have no
// DLPack form. Bool has none in DLPack 0.6 either (kDLBool came with 0.8, and
// torch 1.13 refuses to export bool for that reason): the protocol refuses
// it, and the iterator's converter path hands it out as its uint8 bytes for
// a caller that views them back (sluice.torch does).
//
// `_sluice.Tensor` is the Python holder of one tensor with the protocol:
// __dlpack__, __dlpack_device__, __array__ (the zero-copy numpy view of
// python/tensor_conversion.h), shape and dtype.
// Thread safety: call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include "sluice/core/tensor.h"

namespace sluice::python {

// What TensorToDlpack does with a bool tensor.
enum class DlpackBool {
  kRefuse,   // TypeError, as for strings
  kAsUInt8,  // its bytes (0 or 1) as kDLUInt 8
};

// A "dltensor" capsule viewing `tensor` (see above). TypeError naming the
// dtype for strings (and bool, unless kAsUInt8); BufferError for a tensor
// in device memory.
pybind11::capsule TensorToDlpack(const Tensor& tensor, DlpackBool bools = DlpackBool::kRefuse);

// Adds `_sluice.Tensor` to `module`.
void RegisterDlpack(pybind11::module_& module);

}  // namespace sluice::python

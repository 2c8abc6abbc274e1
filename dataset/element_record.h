// The element record: one dataset element as the bytes of one snapshot
// record (docs/snapshot-format.md), given the element spec that the
// snapshot's manifest holds once for all records.
//
// A record is its shape section, then its data section, with nothing after:
// - shapes: for each component in order, the dims its spec leaves open: a
//   component of unknown rank gives its rank (1 byte, at most kMaxRank) and
//   every dim; one of known rank only its unknown dims. Dims are int64
//   little-endian; a component of fully known shape adds nothing.
// - data: for each component in order, a numeric one its values (row-major,
//   little-endian, as in memory); a string one the u64 little-endian length
//   of each string, then their bytes one after another.
// So strings of any length and ragged components (a values component of
// unknown length beside its row lengths) round-trip, and a record of
// fixed-shape numeric components is just their bytes.
//
// A record is untrusted: every dim, count and length is checked against the
// spec and the bytes that remain (DataLoss naming the component), and the
// element's memory is charged to the RAM budget before it is allocated
// (ResourceExhausted when it doesn't fit); the element can't exceed twice
// the record's size (a string's bytes and its slot).
// Thread safety: pure functions.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sluice/core/buffer.h"
#include "sluice/core/element.h"
#include "sluice/dataset/ram_budget.h"

namespace sluice {

// Appends `element`'s record to *out. InvalidArgument when the element
// doesn't match `spec` or a component is not in host memory.
Status EncodeElementRecord(const ElementSpec& spec, const Element& element, std::string* out);

// The element of `record`. Strings view the record's bytes, kept alive by
// `owner` (null: they are copied); numeric values are copied into fresh
// tensors. `budget` (null: none) is charged the element's bytes while they
// are allocated and released before it is returned: the element is then
// its holder's to charge.
Result<Element> DecodeElementRecord(const ElementSpec& spec, std::string_view record,
                                    const std::shared_ptr<const Buffer>& owner, RamBudget* budget);

// Whether records of `spec` can be decoded a run at a time: at least one
// component, every shape fully known (so records carry no dims), room for a
// leading dim.
bool AllowsRecordRuns(const ElementSpec& spec);

// Decodes `record` into row `row` of `run`, one tensor per component of
// shape [rows] + its spec's: numeric values copied, strings viewing the
// record (the caller makes the run keep the record's buffer alive). The
// same checks as DecodeElementRecord; on an error the row is left partly
// written. REQUIRES: AllowsRecordRuns(spec); run freshly allocated, row in range.
Status DecodeElementRecordIntoRow(const ElementSpec& spec, std::string_view record, std::span<Tensor> run,
                                  int64_t row);

}  // namespace sluice

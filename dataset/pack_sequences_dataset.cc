#include "sluice/dataset/pack_sequences_dataset.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

constexpr std::string_view kOp = "pack_sequences";

// Output components per input component: the values, segment ids, positions.
constexpr size_t kPerComponent = 3;

class PackSequencesDataset final : public Dataset {
 public:
  PackSequencesDataset(DatasetPtr input, PackSequencesOptions options, ElementSpec spec, int64_t row_bytes)
      : Dataset(std::move(spec), kUnknownCardinality),
        input_(std::move(input)),
        options_(std::move(options)),
        row_bytes_(row_bytes) {}

  std::string_view op_name() const override { return kOp; }
  std::string DebugParams() const override {
    std::string lengths;
    for (size_t c = 0; c < options_.sequence_lengths.size(); ++c) {
      lengths += StrCat(c == 0 ? "" : ", ", input_->element_spec().DisplayName(c), ": ", options_.sequence_lengths[c]);
    }
    return StrCat("sequence_lengths=(", lengths, "), max_open_rows=", options_.max_open_rows,
                  ", truncate_long_sequences=", options_.truncate_long_sequences ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_pack_sequences();
    for (int64_t length : options_.sequence_lengths) node->add_sequence_lengths(length);
    node->set_max_open_rows(options_.max_open_rows);
    node->set_truncate_long_sequences(options_.truncate_long_sequences);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  const PackSequencesOptions& options() const { return options_; }
  int64_t row_bytes() const { return row_bytes_; }

 private:
  const DatasetPtr input_;
  const PackSequencesOptions options_;  // sequence_lengths: one per component
  const int64_t row_bytes_;             // the bytes of one packed row
};

// One open row: the output element being filled.
struct Row {
  Element packed;              // per input component: values, segment ids, positions
  std::vector<int64_t> used;   // values filled, per input component
  int64_t segments = 0;        // elements packed
  int64_t total = 0;           // the sum of used
};

class PackSequencesIterator final : public Iterator {
 public:
  PackSequencesIterator(std::shared_ptr<const PackSequencesDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)), runtime_(ctx.runtime) {}

  ~PackSequencesIterator() override { runtime_->ram_budget().Release(charged_); }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    const PackSequencesOptions& o = dataset_->options();
    while (true) {
      for (size_t r = 0; r < open_.size(); ++r) {
        if (IsFull(open_[r])) return Emit(r);
      }
      if (end_of_input_) {
        if (open_.empty()) return std::nullopt;
        return Emit(0);
      }
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (!element) {
        end_of_input_ = true;
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(const std::vector<int64_t> lengths, Lengths(*element));
      if (std::all_of(lengths.begin(), lengths.end(), [](int64_t n) { return n == 0; })) continue;
      const auto fits = std::find_if(open_.begin(), open_.end(), [&](const Row& row) { return Fits(row, lengths); });
      if (fits != open_.end()) {
        Place(*fits, *element, lengths);
        continue;
      }
      if (FillsARow(lengths)) {
        // Handed over at once, ahead of the open rows, which it would not join.
        SLUICE_ASSIGN_OR_RETURN(Row row, NewRow());
        Place(row, *element, lengths);
        return std::move(row.packed);
      }
      std::optional<Element> out;
      if (static_cast<int64_t>(open_.size()) == o.max_open_rows) {
        // The new row takes over the emitted row's charge: rows are all alike.
        const auto fullest = open_.begin() + static_cast<std::ptrdiff_t>(Fullest());
        out = std::move(fullest->packed);
        open_.erase(fullest);
      } else {
        SLUICE_RETURN_IF_ERROR(Charge());
      }
      SLUICE_ASSIGN_OR_RETURN(Row row, NewRow());
      Place(row, *element, lengths);
      open_.push_back(std::move(row));
      if (out) return out;
    }
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteBool("end_of_input", end_of_input_);
    writer.WriteInt("rows", static_cast<int64_t>(open_.size()));
    for (size_t r = 0; r < open_.size(); ++r) {
      const Row& row = open_[r];
      writer.WriteElement(StrCat("row/", r, "/packed"), row.packed);
      writer.WriteInt(StrCat("row/", r, "/segments"), row.segments);
      for (size_t c = 0; c < row.used.size(); ++c) writer.WriteInt(StrCat("row/", r, "/used/", c), row.used[c]);
    }
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    const PackSequencesOptions& o = dataset_->options();
    SLUICE_ASSIGN_OR_RETURN(end_of_input_, reader.ReadBool("end_of_input"));
    SLUICE_ASSIGN_OR_RETURN(const int64_t rows, reader.ReadInt("rows", 0, o.max_open_rows));
    for (int64_t r = 0; r < rows; ++r) {
      Row row;
      SLUICE_ASSIGN_OR_RETURN(row.packed, reader.ReadElement(StrCat("row/", r, "/packed"), dataset_->element_spec()));
      int64_t capacity = 0;
      for (size_t c = 0; c < o.sequence_lengths.size(); ++c) {
        SLUICE_ASSIGN_OR_RETURN(const int64_t used,
                                reader.ReadInt(StrCat("row/", r, "/used/", c), 0, o.sequence_lengths[c]));
        row.used.push_back(used);
        row.total += used;
        capacity += o.sequence_lengths[c];
      }
      SLUICE_ASSIGN_OR_RETURN(row.segments, reader.ReadInt(StrCat("row/", r, "/segments"), 0, capacity));
      runtime_->ram_budget().Add(dataset_->row_bytes());
      charged_ += dataset_->row_bytes();
      open_.push_back(std::move(row));
    }
    return reader.ReadIterator("input", *input_);
  }

 private:
  // The values of each component to pack: its length, cut to the row's.
  Result<std::vector<int64_t>> Lengths(const Element& element) const {
    const PackSequencesOptions& o = dataset_->options();
    std::vector<int64_t> lengths;
    for (size_t c = 0; c < element.size(); ++c) {
      const int64_t n = element[c].dim(0);
      if (n > o.sequence_lengths[c] && !o.truncate_long_sequences) {
        return InvalidArgumentError(kOp, ": component ", dataset_->input()->element_spec().DisplayName(c),
                                    " has a sequence of length ", n, ", longer than its rows of ",
                                    o.sequence_lengths[c], " (truncate_long_sequences is off)");
      }
      lengths.push_back(std::min(n, o.sequence_lengths[c]));
    }
    return lengths;
  }

  bool Fits(const Row& row, const std::vector<int64_t>& lengths) const {
    for (size_t c = 0; c < lengths.size(); ++c) {
      if (row.used[c] + lengths[c] > dataset_->options().sequence_lengths[c]) return false;
    }
    return true;
  }
  bool IsFull(const Row& row) const {
    for (size_t c = 0; c < row.used.size(); ++c) {
      if (row.used[c] < dataset_->options().sequence_lengths[c]) return false;
    }
    return true;
  }
  bool FillsARow(const std::vector<int64_t>& lengths) const {
    return std::equal(lengths.begin(), lengths.end(), dataset_->options().sequence_lengths.begin());
  }
  // The open row with the most values, the first among equals.
  size_t Fullest() const {
    size_t best = 0;
    for (size_t r = 1; r < open_.size(); ++r) {
      if (open_[r].total > open_[best].total) best = r;
    }
    return best;
  }

  Status Charge() {
    const int64_t bytes = dataset_->row_bytes();
    if (!runtime_->ram_budget().TryAdd(bytes)) {
      return ResourceExhaustedError(kOp, ": opening a row of ", bytes, " bytes beside the ", open_.size(),
                                    " open (", charged_, " bytes) would pass the RAM budget of ",
                                    runtime_->ram_budget().limit(), " bytes");
    }
    charged_ += bytes;
    return OkStatus();
  }

  // An empty row: zero values, segment ids and positions.
  Result<Row> NewRow() const {
    Row row;
    for (const ComponentSpec& c : dataset_->element_spec().components()) {
      SLUICE_ASSIGN_OR_RETURN(Tensor t, Tensor::TryAllocate(c.dtype, c.shape.ToShape()));
      row.packed.components.push_back(std::move(t));
    }
    row.used.assign(dataset_->options().sequence_lengths.size(), 0);
    return row;
  }

  // Appends the first lengths[c] values of each component as one segment.
  static void Place(Row& row, const Element& element, const std::vector<int64_t>& lengths) {
    const auto segment = static_cast<int32_t>(++row.segments);
    for (size_t c = 0; c < lengths.size(); ++c) {
      if (lengths[c] == 0) continue;
      const Tensor& src = element[c];
      const size_t width = DTypeSize(src.dtype());
      Tensor& values = row.packed[kPerComponent * c];
      std::memcpy(static_cast<char*>(values.raw_data()) + row.used[c] * width, src.raw_data(), lengths[c] * width);
      int32_t* segment_ids = row.packed[kPerComponent * c + 1].mutable_data<int32_t>() + row.used[c];
      int32_t* positions = row.packed[kPerComponent * c + 2].mutable_data<int32_t>() + row.used[c];
      for (int64_t i = 0; i < lengths[c]; ++i) {
        segment_ids[i] = segment;
        positions[i] = static_cast<int32_t>(i);
      }
      row.used[c] += lengths[c];
      row.total += lengths[c];
    }
  }

  // Hands over open row r, releasing its charge.
  Element Emit(size_t r) {
    Element out = std::move(open_[r].packed);
    open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(r));
    runtime_->ram_budget().Release(dataset_->row_bytes());
    charged_ -= dataset_->row_bytes();
    return out;
  }

  const std::shared_ptr<const PackSequencesDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  const std::shared_ptr<Runtime> runtime_;  // whose RAM budget holds the open rows
  std::vector<Row> open_;                   // in the order they were opened
  int64_t charged_ = 0;                     // row_bytes() per open row
  bool end_of_input_ = false;
};

std::unique_ptr<Iterator> PackSequencesDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<PackSequencesIterator>(SharedThis<PackSequencesDataset>(), ctx);
}

// The packed rows' spec; InvalidArgument unless every component is a 1-D
// numeric sequence and the names it gives are distinct.
Result<ElementSpec> PackedSpec(const ElementSpec& in, const std::vector<int64_t>& lengths) {
  std::vector<ComponentSpec> out;
  std::set<std::string> names;
  for (size_t c = 0; c < in.size(); ++c) {
    const std::string name = in.DisplayName(c);
    if (in[c].dtype == DType::kString) {
      return InvalidArgumentError(kOp, ": component ", name, " is a string; packing takes numeric sequences");
    }
    if (in[c].shape.rank() != 1) {
      return InvalidArgumentError(kOp, ": component ", name, " has shape ", in[c].shape,
                                  "; packing takes 1-D sequences");
    }
    out.push_back({name, in[c].dtype, PartialShape{lengths[c]}});
    out.push_back({name + "_segment_ids", DType::kInt32, PartialShape{lengths[c]}});
    out.push_back({name + "_positions", DType::kInt32, PartialShape{lengths[c]}});
  }
  for (const ComponentSpec& c : out) {
    if (!names.insert(c.name).second) {
      return InvalidArgumentError(kOp, ": the packed rows would have two components named ", c.name, " (input ",
                                  in, "); rename the input's components");
    }
  }
  return ElementSpec(std::move(out));
}

// The bytes of one packed row, or InvalidArgument when it (or max_open_rows
// of them) overflows int64.
Result<int64_t> RowBytes(const ElementSpec& packed, int64_t max_open_rows) {
  int64_t bytes = 0;
  for (const ComponentSpec& c : packed.components()) {
    int64_t component_bytes = 0;
    if (__builtin_mul_overflow(c.shape.dim(0), static_cast<int64_t>(DTypeSize(c.dtype)), &component_bytes) ||
        __builtin_add_overflow(bytes, component_bytes, &bytes)) {
      return InvalidArgumentError(kOp, ": a packed row of ", packed, " has more bytes than int64 holds");
    }
  }
  int64_t all = 0;
  if (__builtin_mul_overflow(bytes, max_open_rows, &all)) {
    return InvalidArgumentError(kOp, ": ", max_open_rows, " open rows of ", bytes, " bytes overflow int64");
  }
  return bytes;
}

}  // namespace

Result<DatasetPtr> MakePackSequencesDataset(DatasetPtr input, PackSequencesOptions options) {
  if (input == nullptr) return InvalidArgumentError(kOp, ": input dataset is null");
  const ElementSpec& in = input->element_spec();
  if (in.size() == 0) return InvalidArgumentError(kOp, ": the input's elements have no components");
  auto& lengths = options.sequence_lengths;
  if (lengths.size() == 1 && in.size() > 1) lengths.assign(in.size(), lengths[0]);
  if (lengths.size() != in.size()) {
    return InvalidArgumentError(kOp, ": expected one sequence length per component (", in.size(),
                                ") or a single one, got ", lengths.size());
  }
  for (size_t c = 0; c < lengths.size(); ++c) {
    if (lengths[c] < 1 || lengths[c] > kMaxPackedSequenceLength) {
      return InvalidArgumentError(kOp, ": sequence_lengths[", c, "] must be in [1, ", kMaxPackedSequenceLength,
                                  "] (got ", lengths[c], ")");
    }
  }
  if (options.max_open_rows < 1 || options.max_open_rows > kMaxOpenRows) {
    return InvalidArgumentError(kOp, ": max_open_rows must be in [1, ", kMaxOpenRows, "] (got ",
                                options.max_open_rows, ")");
  }
  SLUICE_ASSIGN_OR_RETURN(ElementSpec packed, PackedSpec(in, lengths));
  SLUICE_ASSIGN_OR_RETURN(const int64_t row_bytes, RowBytes(packed, options.max_open_rows));
  return Dataset::Make<PackSequencesDataset>(std::move(input), std::move(options), std::move(packed), row_bytes);
}

Result<DatasetPtr> PackSequencesDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::PackSequences& pack = node.pack_sequences();
  PackSequencesOptions options{.sequence_lengths = {pack.sequence_lengths().begin(), pack.sequence_lengths().end()}};
  if (pack.has_max_open_rows()) options.max_open_rows = pack.max_open_rows();
  if (pack.has_truncate_long_sequences()) options.truncate_long_sequences = pack.truncate_long_sequences();
  return MakePackSequencesDataset(context.input(), std::move(options));
}

}  // namespace sluice

#include "sluice/dataset/csv_dataset.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "sluice/dataset/file_runs_iterator.h"
#include "sluice/dataset/file_source.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/ram_budget.h"
#include "sluice/dataset/runtime.h"
#include "sluice/dataset/tensor_proto.h"
#include "sluice/tfrecord/csv_reader.h"

namespace sluice {
namespace {

static_assert(CsvOptions{}.max_record_bytes == CsvReaderOptions::kDefaultMaxRecordBytes);
static_assert(CsvOptions::kMaxBufferSize == FileSource::kMaxBufferSize);

// The field without the spaces and tabs around it, and without a leading
// '+' (from_chars takes '-' only).
std::string_view NumberText(std::string_view field) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
  if (field.size() > 1 && field.front() == '+' && field[1] != '-') field.remove_prefix(1);
  return field;
}

// `field` as a T (an integer, or float or double: "inf" and "nan" in any
// case); false when it is not one, or out of T's range.
template <typename T>
bool ParseNumber(std::string_view field, T* value) {
  const std::string_view text = NumberText(field);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

// Row `row` of a numeric column: the default when the field is missing,
// else the field parsed; false when it doesn't parse.
template <typename T>
bool StoreNumber(bool missing, const Tensor& fallback, std::string_view field, Tensor& column, int64_t row) {
  T* value = column.mutable_data<T>() + row;
  if (!missing) return ParseNumber(field, value);
  *value = fallback.scalar<T>();
  return true;
}

// The columns of a csv dataset: their dtypes and defaults, and which
// fields of a record they are. Shared by its iterators.
struct CsvPlan {
  CsvOptions options;
  ElementSpec spec;
  std::vector<DType> dtypes;

  // Output column j's field index.
  std::vector<size_t> field_of_output;

  // "column 3" or "column 3 ('price')": output column j, for messages.
  std::string ColumnName(size_t j) const {
    const std::string& name = spec[j].name;
    return StrCat("column ", field_of_output[j], name.empty() ? "" : StrCat(" ('", name, "')"));
  }

  // An error when a record of `fields` fields has too few or too many.
  Status CheckFieldCount(size_t fields) const {
    const size_t outputs = dtypes.size();
    if (!options.select_cols.empty()) {
      if (fields > static_cast<size_t>(options.select_cols.back())) return OkStatus();
      return DataLossError("the record has ", fields, " fields, but select_cols reads column ",
                           options.select_cols.back());
    }
    size_t excluded = 0;
    for (int64_t column : options.exclude_cols) excluded += static_cast<size_t>(column) < fields ? 1 : 0;
    if (fields - excluded == outputs) return OkStatus();
    if (excluded == 0) return DataLossError("the record has ", fields, " fields, expected ", outputs);
    return DataLossError("the record has ", fields, " fields, ", excluded, " of them excluded, leaving ",
                         fields - excluded, " where ", outputs, " are expected");
  }
};

// Writes `field` (of output column j) into row `row` of `column`.
Status StoreField(const CsvPlan& plan, size_t j, std::string_view field, Tensor& column, int64_t row) {
  const CsvOptions& options = plan.options;
  const Tensor& fallback = options.record_defaults[j];
  const bool missing = field.empty() || (!options.na_value.empty() && field == options.na_value);
  if (missing && fallback.NumElements() == 0) {
    return DataLossError(plan.ColumnName(j), " is required, but its field is ", field.empty() ? "empty" : "na_value");
  }
  bool parsed = true;
  switch (plan.dtypes[j]) {
    case DType::kInt32: parsed = StoreNumber<int32_t>(missing, fallback, field, column, row); break;
    case DType::kInt64: parsed = StoreNumber<int64_t>(missing, fallback, field, column, row); break;
    case DType::kFloat32: parsed = StoreNumber<float>(missing, fallback, field, column, row); break;
    case DType::kFloat64: parsed = StoreNumber<double>(missing, fallback, field, column, row); break;
    default:  // kString, the one other dtype a plan holds
      column.mutable_data<TString>()[row] =
          missing ? TString(std::string_view(fallback.scalar<TString>())) : TString::View(field);
      break;
  }
  if (parsed) return OkStatus();
  constexpr size_t kShown = 64;
  return DataLossError(plan.ColumnName(j), ": '", field.substr(0, kShown), field.size() > kShown ? "...'" : "'",
                       " is not a valid ", DTypeName(plan.dtypes[j]));
}

// The records of `files`, one file after another: a run of records is one
// element of [k] columns.
class RecordsIterator final : public FileRunsIterator {
 public:
  RecordsIterator(std::vector<std::string> files, std::shared_ptr<const CsvPlan> plan, const IteratorContext& ctx)
      : FileRunsIterator(std::move(files), plan->spec),
        plan_(std::move(plan)),
        stats_(ctx.stats),
        runtime_(ctx.runtime) {}
  ~RecordsIterator() override { CloseFile(); }

 protected:
  // Opens the file and passes over its header.
  Status OpenFile(const std::string& path) override {
    SLUICE_ASSIGN_OR_RETURN(reader_, CsvReader::Open(path, ReaderOptions()));
    if (!plan_->options.header) return OkStatus();
    Result<bool> header = reader_->ReadRecord(&fields_, &owner_);
    if (header.ok()) return OkStatus();  // an empty file has no header, and no records
    return header.status().WithContext("the header");
  }
  bool file_open() const override { return reader_ != nullptr; }
  // Counters are added per file, not per record.
  void CloseFile() override {
    if (records_ > 0) stats_->Add("csv/records", std::exchange(records_, 0));
    if (bytes_ > 0) stats_->Add("csv/bytes", std::exchange(bytes_, 0));
    reader_.reset();
  }
  Element NewRun(int64_t rows) override {
    kept_ = nullptr;
    Element run;
    for (DType dtype : plan_->dtypes) run.components.push_back(Tensor::Allocate(dtype, Shape{rows}));
    return run;
  }
  // One record a call.
  Result<int64_t> ReadRows(Element& run, int64_t at, int64_t) override {
    SLUICE_ASSIGN_OR_RETURN(bool got, reader_->ReadRecord(&fields_, &owner_));
    if (!got) return 0;
    ++records_;
    // Backed first: a record that fails leaves views in its row too.
    if (has_strings_ && owner_.get() != kept_) {
      for (size_t j = 0; j < plan_->dtypes.size(); ++j) {
        if (plan_->dtypes[j] == DType::kString) run[j].AddBacking(owner_);
      }
      kept_ = owner_.get();
    }
    SLUICE_RETURN_IF_ERROR(StoreRecord(run, at));
    return 1;
  }
  ItemPosition position() const override { return reader_->position(); }
  Status Reopen(const std::string& path, const ItemPosition& position) override {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<CsvReader> file, CsvReader::Open(path, ReaderOptions()));
    SLUICE_RETURN_IF_ERROR(file->Seek(position));
    reader_ = std::move(file);
    return OkStatus();
  }

 private:
  // The record in fields_ as row `row` of `run`; its error names the record.
  Status StoreRecord(Element& run, int64_t row) {
    Status status = plan_->CheckFieldCount(fields_.size());
    for (size_t j = 0; status.ok() && j < plan_->dtypes.size(); ++j) {
      const size_t field = plan_->field_of_output[j];
      bytes_ += static_cast<int64_t>(fields_[field].size());
      status = StoreField(*plan_, j, fields_[field], run[j], row);
    }
    if (status.ok()) return status;
    return status.WithContext(
        StrCat(reader_->name(), ": record ", reader_->record_index(), " at byte offset ", reader_->record_offset()));
  }

  CsvReaderOptions ReaderOptions() const {
    const CsvOptions& options = plan_->options;
    return {
        .compression = options.compression,
        .buffer_size = ReadBufferBytes(options.buffer_size),
        .field_delim = options.field_delim,
        .use_quote_delim = options.use_quote_delim,
        .max_record_bytes = static_cast<uint64_t>(options.max_record_bytes),
        .charge = [runtime = runtime_](int64_t bytes) { return ChargeRecordBytes(runtime->ram_budget(), bytes); }};
  }

  const std::shared_ptr<const CsvPlan> plan_;
  const std::shared_ptr<StatsCounters> stats_;
  const std::shared_ptr<Runtime> runtime_;  // long records are charged to its RAM budget
  const bool has_strings_ = std::count(plan_->dtypes.begin(), plan_->dtypes.end(), DType::kString) > 0;
  std::unique_ptr<CsvReader> reader_;
  std::shared_ptr<const Buffer> owner_;  // of the record read last
  const Buffer* kept_ = nullptr;         // the backing the run added last
  std::vector<std::string_view> fields_;
  int64_t records_ = 0;  // of the open file, not yet in stats_
  int64_t bytes_ = 0;
};

void CsvOptionsToSpec(const CsvOptions& options, spec::Csv* node) {
  for (const std::string& file : options.files) node->add_files(file);
  for (const Tensor& fallback : options.record_defaults) TensorToProto(fallback, node->add_record_defaults());
  for (const std::string& name : options.column_names) node->add_column_names(name);
  node->set_compression(std::string(CompressionName(options.compression)));
  node->set_buffer_size(options.buffer_size);
  node->set_num_parallel_reads(options.num_parallel_reads);
  node->set_header(options.header);
  node->set_field_delim(std::string(1, options.field_delim));
  node->set_use_quote_delim(options.use_quote_delim);
  node->set_na_value(options.na_value);
  for (int64_t column : options.select_cols) node->add_select_cols(column);
  for (int64_t column : options.exclude_cols) node->add_exclude_cols(column);
  node->set_max_record_bytes(options.max_record_bytes);
}

// Column indices: ascending, each in [0, kMaxColumns).
Status CheckColumns(const std::vector<int64_t>& columns, std::string_view name) {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] < 0 || columns[i] >= CsvOptions::kMaxColumns) {
      return InvalidArgumentError("csv: ", name, "[", i, "] is ", columns[i], ", not a column index in [0, ",
                                  CsvOptions::kMaxColumns, ")");
    }
    if (i > 0 && columns[i] <= columns[i - 1]) {
      return InvalidArgumentError("csv: ", name, " must be ascending without repeats, but ", name, "[", i,
                                  "] = ", columns[i], " follows ", columns[i - 1]);
    }
  }
  return OkStatus();
}

// Checks the options other than the files and makes the plan of columns.
Result<std::shared_ptr<const CsvPlan>> MakePlan(CsvOptions options) {
  SLUICE_RETURN_IF_ERROR(CheckFileReadOptions("csv", options.buffer_size, options.num_parallel_reads));
  if (options.max_record_bytes < 1 || options.max_record_bytes > CsvOptions::kMaxMaxRecordBytes) {
    return InvalidArgumentError("csv: max_record_bytes must be 1 to ", CsvOptions::kMaxMaxRecordBytes, " bytes, got ",
                                options.max_record_bytes);
  }
  if (options.field_delim == '"' || options.field_delim == '\n' || options.field_delim == '\r') {
    return InvalidArgumentError("csv: field_delim can't be '\"', '\\n' or '\\r'");
  }
  const size_t outputs = options.record_defaults.size();
  if (outputs == 0 || outputs > static_cast<size_t>(CsvOptions::kMaxColumns)) {
    return InvalidArgumentError("csv: record_defaults must have 1 to ", CsvOptions::kMaxColumns,
                                " entries (one per column), got ", outputs);
  }
  if (!options.column_names.empty() && options.column_names.size() != outputs) {
    return InvalidArgumentError("csv: column_names has ", options.column_names.size(), " names for ", outputs,
                                " columns (record_defaults)");
  }
  SLUICE_RETURN_IF_ERROR(CheckColumns(options.select_cols, "select_cols"));
  SLUICE_RETURN_IF_ERROR(CheckColumns(options.exclude_cols, "exclude_cols"));
  if (!options.select_cols.empty() && !options.exclude_cols.empty()) {
    return InvalidArgumentError("csv: select_cols and exclude_cols can't both be given");
  }
  if (!options.select_cols.empty() && options.select_cols.size() != outputs) {
    return InvalidArgumentError("csv: select_cols has ", options.select_cols.size(), " columns, but record_defaults ",
                                outputs);
  }
  auto plan = std::make_shared<CsvPlan>();
  std::vector<ComponentSpec> components;
  for (size_t j = 0; j < outputs; ++j) {
    const Tensor& fallback = options.record_defaults[j];
    const DType dtype = fallback.dtype();
    if (!fallback.valid() || (dtype != DType::kFloat32 && dtype != DType::kFloat64 && dtype != DType::kInt32 &&
                              dtype != DType::kInt64 && dtype != DType::kString)) {
      return InvalidArgumentError("csv: record_defaults[", j, "] is ", fallback.valid() ? DTypeName(dtype) : "invalid",
                                  ", not float32, float64, int32, int64 or string");
    }
    if (fallback.rank() != 0 && fallback.shape() != Shape{0}) {
      return InvalidArgumentError("csv: record_defaults[", j, "] has shape ", fallback.shape(),
                                  ": a scalar (the default) or an empty vector (a required column)");
    }
    const std::string name = options.column_names.empty() ? "" : options.column_names[j];
    if (!options.column_names.empty() && name.empty()) {
      return InvalidArgumentError("csv: column_names[", j, "] is empty");
    }
    for (size_t k = 0; k < j && !name.empty(); ++k) {
      if (options.column_names[k] == name) return InvalidArgumentError("csv: column_names repeats '", name, "'");
    }
    components.push_back({name, dtype, Shape{}});
    plan->dtypes.push_back(dtype);
  }
  // Output j's field: select_cols[j], or the j-th column not excluded.
  size_t excluded = 0;
  for (size_t j = 0; j < outputs; ++j) {
    if (!options.select_cols.empty()) {
      plan->field_of_output.push_back(static_cast<size_t>(options.select_cols[j]));
      continue;
    }
    while (excluded < options.exclude_cols.size() &&
           static_cast<size_t>(options.exclude_cols[excluded]) == j + excluded) {
      ++excluded;
    }
    plan->field_of_output.push_back(j + excluded);
  }
  plan->spec = ElementSpec(std::move(components));
  plan->options = std::move(options);
  return std::shared_ptr<const CsvPlan>(std::move(plan));
}

// The columns and options of a plan as a file source.
class CsvSource final : public FileSource {
 public:
  explicit CsvSource(std::shared_ptr<const CsvPlan> plan) : plan_(std::move(plan)) {}

  std::string_view op_name() const override { return "csv"; }
  const ElementSpec& element_spec() const override { return plan_->spec; }
  int64_t num_parallel_reads() const override { return plan_->options.num_parallel_reads; }
  std::string DebugParams() const override {
    const CsvOptions& options = plan_->options;
    return StrCat("columns=", plan_->dtypes.size(), ", compression=", CompressionName(options.compression),
                  ", buffer_size=", options.buffer_size, ", num_parallel_reads=", options.num_parallel_reads,
                  ", header=", options.header, ", max_record_bytes=", options.max_record_bytes);
  }
  std::unique_ptr<Iterator> NewIterator(std::vector<std::string> files, const IteratorContext& ctx) const override {
    return std::make_unique<RecordsIterator>(std::move(files), plan_, ctx);
  }
  void ToSpec(std::vector<std::string> files, spec::Pipeline* pipeline) const override {
    CsvOptions options = plan_->options;  // the plan's options hold no files
    options.files = std::move(files);
    CsvOptionsToSpec(options, pipeline->add_ops()->mutable_csv());
  }
  void ToElementSourceSpec(spec::Pipeline* function) const override {
    spec::ElementSource* source = function->add_ops()->mutable_element_source();
    source->set_kind(spec::ElementSource::CSV);
    CsvOptionsToSpec(plan_->options, source->mutable_csv());
  }

 private:
  const std::shared_ptr<const CsvPlan> plan_;
};

}  // namespace

Tensor CsvRequired(DType dtype) { return Tensor::Allocate(dtype, Shape{0}); }

Result<DatasetPtr> MakeCsvDataset(CsvOptions options) {
  std::vector<std::string> files = std::move(options.files);
  options.files.clear();
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const CsvPlan> plan, MakePlan(std::move(options)));
  return MakeFileSourceDataset(std::move(files), std::make_shared<CsvSource>(std::move(plan)));
}

Result<DatasetFunctionPtr> MakeCsvFunction(CsvOptions options) {
  if (!options.files.empty()) {
    return InvalidArgumentError("csv function: files come from the elements; got ", options.files.size(),
                                " in the options");
  }
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const CsvPlan> plan, MakePlan(std::move(options)));
  return MakeFileSourceFunction(std::make_shared<CsvSource>(std::move(plan)));
}

Result<CsvOptions> CsvOptionsFromSpec(const spec::Csv& node) {
  CsvOptions options{.files = {node.files().begin(), node.files().end()},
                     .column_names = {node.column_names().begin(), node.column_names().end()}};
  for (int i = 0; i < node.record_defaults_size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(Tensor fallback,
                            WithContext(TensorFromProto(node.record_defaults(i)), StrCat("record_defaults[", i, "]")));
    options.record_defaults.push_back(std::move(fallback));
  }
  SLUICE_ASSIGN_OR_RETURN(options.compression, WithContext(ParseCompression(node.compression()), "compression"));
  if (node.has_buffer_size()) options.buffer_size = node.buffer_size();
  if (node.has_num_parallel_reads()) options.num_parallel_reads = node.num_parallel_reads();
  options.header = node.header();
  if (node.field_delim().size() > 1) {
    return InvalidArgumentError("field_delim must be one byte, got '", node.field_delim(), "'");
  }
  if (!node.field_delim().empty()) options.field_delim = node.field_delim()[0];
  if (node.has_use_quote_delim()) options.use_quote_delim = node.use_quote_delim();
  options.na_value = node.na_value();
  options.select_cols.assign(node.select_cols().begin(), node.select_cols().end());
  options.exclude_cols.assign(node.exclude_cols().begin(), node.exclude_cols().end());
  if (node.has_max_record_bytes()) options.max_record_bytes = node.max_record_bytes();
  return options;
}

Result<DatasetPtr> CsvDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  SLUICE_ASSIGN_OR_RETURN(CsvOptions options, CsvOptionsFromSpec(node.csv()));
  return MakeCsvDataset(std::move(options));
}

}  // namespace sluice

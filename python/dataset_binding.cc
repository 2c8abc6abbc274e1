#include "sluice/python/dataset_binding.h"

#include <pybind11/stl.h>

#include "sluice/dataset/batch_dataset.h"
#include "sluice/dataset/bucket_by_sequence_length_dataset.h"
#include "sluice/dataset/cache_dataset.h"
#include "sluice/dataset/choose_from_datasets_dataset.h"
#include "sluice/dataset/concatenate_dataset.h"
#include "sluice/dataset/counter_dataset.h"
#include "sluice/dataset/csv_dataset.h"
#include "sluice/dataset/enumerate_dataset.h"
#include "sluice/dataset/filter_dataset.h"
#include "sluice/dataset/fixed_length_record_dataset.h"
#include "sluice/dataset/flat_map_dataset.h"
#include "sluice/dataset/from_slices_dataset.h"
#include "sluice/dataset/from_tensors_dataset.h"
#include "sluice/dataset/group_by_window_dataset.h"
#include "sluice/dataset/ignore_errors_dataset.h"
#include "sluice/dataset/interleave_dataset.h"
#include "sluice/dataset/labelled_files_dataset.h"
#include "sluice/dataset/list_files_dataset.h"
#include "sluice/dataset/load_dataset.h"
#include "sluice/dataset/map_dataset.h"
#include "sluice/dataset/pack_sequences_dataset.h"
#include "sluice/dataset/padded_batch_dataset.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/prefetch_dataset.h"
#include "sluice/dataset/ragged_batch_dataset.h"
#include "sluice/dataset/random_dataset.h"
#include "sluice/dataset/range_dataset.h"
#include "sluice/dataset/rebatch_dataset.h"
#include "sluice/dataset/rejection_resample_dataset.h"
#include "sluice/dataset/repeat_dataset.h"
#include "sluice/dataset/sample_from_datasets_dataset.h"
#include "sluice/dataset/save.h"
#include "sluice/dataset/scan_dataset.h"
#include "sluice/dataset/shard_dataset.h"
#include "sluice/dataset/shuffle_dataset.h"
#include "sluice/dataset/skip_dataset.h"
#include "sluice/dataset/snapshot_dataset.h"
#include "sluice/dataset/sparse_batch_dataset.h"
#include "sluice/dataset/take_dataset.h"
#include "sluice/dataset/take_while_dataset.h"
#include "sluice/dataset/text_line_dataset.h"
#include "sluice/dataset/tfrecord_dataset.h"
#include "sluice/dataset/unbatch_dataset.h"
#include "sluice/dataset/unique_dataset.h"
#include "sluice/dataset/window_dataset.h"
#include "sluice/dataset/zip_dataset.h"
#include "sluice/python/errors.h"
#include "sluice/python/gil.h"
#include "sluice/python/tensor_conversion.h"

namespace sluice::python {
namespace py = pybind11;

namespace {

PyDataset Wrap(Result<DatasetPtr> dataset) { return PyDataset{ValueOrThrow(std::move(dataset))}; }

std::vector<DatasetPtr> DatasetsOf(const std::vector<PyDataset>& datasets) {
  std::vector<DatasetPtr> out;
  for (const PyDataset& d : datasets) out.push_back(d.dataset);
  return out;
}

// The result, its error prefixed with `context` ("tfrecord: compression").
template <typename T>
Result<T> WithContext(Result<T> result, std::string_view context) {
  if (!result.ok()) return result.status().WithContext(context);
  return result;
}

// None, True or False as a Determinism.
Determinism DeterminismFrom(std::optional<bool> deterministic) {
  if (!deterministic.has_value()) return Determinism::kDefault;
  return *deterministic ? Determinism::kDeterministic : Determinism::kNondeterministic;
}

// [(name, value), ...] as named tensors; `op` names the source in errors.
std::vector<NamedTensor> ComponentsFrom(const std::vector<std::pair<std::string, py::object>>& components,
                                        std::string_view op) {
  std::vector<NamedTensor> tensors;
  tensors.reserve(components.size());
  for (size_t i = 0; i < components.size(); ++i) {
    const auto& [name, value] = components[i];
    const std::string what = StrCat(op, ": component ", name.empty() ? std::to_string(i) : "'" + name + "'");
    tensors.push_back({name, NumpyToTensor(value, what)});
  }
  return tensors;
}

py::object ShapeToPython(const PartialShape& shape) {
  if (!shape.known_rank()) return py::none();
  py::list dims;
  for (int64_t dim : shape.dims()) dims.append(dim < 0 ? py::object(py::none()) : py::object(py::int_(dim)));
  return dims;
}

// A shape from None (unknown rank) or a sequence of ints and None.
PartialShape PartialShapeFrom(py::handle shape, std::string_view what) {
  if (shape.is_none()) return PartialShape::UnknownRank();
  std::vector<int64_t> dims;
  for (py::handle dim : shape) {
    if (dim.is_none()) {
      dims.push_back(-1);
      continue;
    }
    const int64_t value = dim.cast<int64_t>();
    if (value < -1) throw py::value_error(StrCat(what, ": dim ", value, " is negative (use None or -1 for unknown)"));
    dims.push_back(value);
  }
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    throw py::value_error(StrCat(what, ": rank ", dims.size(), " is above the largest, ", kMaxRank));
  }
  return PartialShape(std::span<const int64_t>(dims));
}

// Padded shapes and padding values from Python lists (None: the defaults);
// `op` names the op in errors.
void PaddingFrom(const py::object& padded_shapes, const py::object& padding_values, std::string_view op,
                 std::vector<PartialShape>& shapes, std::vector<Tensor>& values) {
  if (!padded_shapes.is_none()) {
    for (py::handle shape : padded_shapes) shapes.push_back(PartialShapeFrom(shape, StrCat(op, ": padded_shapes")));
  }
  if (!padding_values.is_none()) {
    for (py::handle value : padding_values) values.push_back(NumpyToTensor(value, StrCat(op, ": padding_values")));
  }
}

spec::Pipeline SpecFrom(const py::object& spec, bool binary) {
  if (binary) {
    const std::string bytes = spec.cast<std::string>();
    return ValueOrThrow(ParseSpecBinary(bytes));
  }
  return ValueOrThrow(ParseSpecText(spec.cast<std::string>()));
}

}  // namespace

py::list ElementSpecToPython(const ElementSpec& spec) {
  py::list out;
  for (const ComponentSpec& component : spec.components()) {
    out.append(py::make_tuple(component.name, std::string(DTypeName(component.dtype)), ShapeToPython(component.shape)));
  }
  return out;
}

ElementSpec ElementSpecFromPython(py::handle spec, std::string_view what) {
  std::vector<ComponentSpec> components;
  for (py::handle item : spec) {
    py::tuple entry = py::reinterpret_borrow<py::object>(item).cast<py::tuple>();
    if (entry.size() != 3) throw py::value_error(StrCat(what, ": each component is (name, dtype, shape)"));
    ComponentSpec component;
    component.name = entry[0].cast<std::string>();
    component.dtype = DTypeFromPython(entry[1], what);
    component.shape = PartialShapeFrom(entry[2], what);
    components.push_back(std::move(component));
  }
  return ElementSpec(std::move(components));
}

void RegisterDataset(py::module_& m) {
  py::class_<PyDataset>(m, "Dataset", "A built, immutable dataset graph (use sluice.Dataset).")
      .def_property_readonly("element_spec",
                             [](const PyDataset& d) { return ElementSpecToPython(d.dataset->element_spec()); })
      .def_property_readonly("cardinality", [](const PyDataset& d) { return d.dataset->cardinality(); })
      .def_property_readonly("op_name", [](const PyDataset& d) { return std::string(d.dataset->op_name()); })
      .def_property_readonly("params", [](const PyDataset& d) { return d.dataset->DebugParams(); })
      .def_property_readonly("depth", [](const PyDataset& d) { return d.dataset->depth(); })
      .def("inputs",
           [](const PyDataset& d) {
             std::vector<PyDataset> inputs;
             for (DatasetPtr& input : d.dataset->inputs()) inputs.push_back({std::move(input)});
             return inputs;
           })
      .def("describe", [](const PyDataset& d) { return DescribeGraph(*d.dataset); })
      .def("to_spec_text",
           [](const PyDataset& d) {
             spec::Pipeline spec = ValueOrThrow(DatasetToSpec(*d.dataset));
             return SpecToText(spec);
           })
      .def("to_spec_binary",
           [](const PyDataset& d) {
             spec::Pipeline spec = ValueOrThrow(DatasetToSpec(*d.dataset));
             return py::bytes(spec.SerializeAsString());
           })
      // Ops.
      .def("map",
           [](const PyDataset& d, const PyElementFunction& fn, int64_t num_parallel_calls,
              std::optional<bool> deterministic, std::optional<uint64_t> pipeline_seed) {
             return Wrap(MakeMapDataset(d.dataset, fn.function,
                                        {.num_parallel_calls = num_parallel_calls,
                                         .deterministic = DeterminismFrom(deterministic),
                                         .pipeline_seed = pipeline_seed}));
           })
      .def("filter",
           [](const PyDataset& d, const PyPredicate& p) { return Wrap(MakeFilterDataset(d.dataset, p.predicate)); })
      .def("take_while",
           [](const PyDataset& d, const PyPredicate& p) { return Wrap(MakeTakeWhileDataset(d.dataset, p.predicate)); })
      .def("unique", [](const PyDataset& d) { return Wrap(MakeUniqueDataset(d.dataset)); })
      .def("scan",
           [](const PyDataset& d, const PyElementFunction& fn,
              const std::vector<std::pair<std::string, py::object>>& initial_state) {
             return Wrap(MakeScanDataset(d.dataset, fn.function,
                                         {.initial_state = ComponentsFrom(initial_state, "scan: initial_state")}));
           })
      .def("rebatch",
           [](const PyDataset& d, std::vector<int64_t> batch_sizes, bool drop_remainder) {
             return Wrap(MakeRebatchDataset(d.dataset,
                                            {.batch_sizes = std::move(batch_sizes), .drop_remainder = drop_remainder}));
           })
      .def("shuffle",
           [](const PyDataset& d, int64_t buffer_size, std::optional<uint64_t> seed, bool reshuffle_each_iteration) {
             return Wrap(MakeShuffleDataset(
                 d.dataset,
                 {.buffer_size = buffer_size, .seed = seed, .reshuffle_each_iteration = reshuffle_each_iteration}));
           })
      .def("batch",
           [](const PyDataset& d, int64_t batch_size, bool drop_remainder, int64_t num_parallel_calls,
              std::optional<bool> deterministic) {
             return Wrap(MakeBatchDataset(d.dataset, {.batch_size = batch_size,
                                                      .drop_remainder = drop_remainder,
                                                      .num_parallel_calls = num_parallel_calls,
                                                      .deterministic = DeterminismFrom(deterministic)}));
           })
      .def("padded_batch",
           [](const PyDataset& d, int64_t batch_size, py::object padded_shapes, py::object padding_values,
              bool drop_remainder) {
             PaddedBatchOptions options{.batch_size = batch_size, .drop_remainder = drop_remainder};
             PaddingFrom(padded_shapes, padding_values, "padded_batch", options.padded_shapes, options.padding_values);
             return Wrap(MakePaddedBatchDataset(d.dataset, std::move(options)));
           })
      .def("ragged_batch",
           [](const PyDataset& d, int64_t batch_size, bool drop_remainder) {
             return Wrap(
                 MakeRaggedBatchDataset(d.dataset, {.batch_size = batch_size, .drop_remainder = drop_remainder}));
           })
      .def("sparse_batch",
           [](const PyDataset& d, int64_t batch_size, std::vector<int64_t> row_shape) {
             return Wrap(
                 MakeSparseBatchDataset(d.dataset, {.batch_size = batch_size, .row_shape = std::move(row_shape)}));
           })
      .def("bucket_by_sequence_length",
           [](const PyDataset& d, std::string length_component, std::vector<int64_t> bucket_boundaries,
              std::vector<int64_t> bucket_batch_sizes, py::object padded_shapes, py::object padding_values,
              bool pad_to_bucket_boundary, bool no_padding, bool drop_remainder) {
             BucketBySequenceLengthOptions options{.length_component = std::move(length_component),
                                                   .bucket_boundaries = std::move(bucket_boundaries),
                                                   .bucket_batch_sizes = std::move(bucket_batch_sizes),
                                                   .pad_to_bucket_boundary = pad_to_bucket_boundary,
                                                   .no_padding = no_padding,
                                                   .drop_remainder = drop_remainder};
             PaddingFrom(padded_shapes, padding_values, "bucket_by_sequence_length", options.padded_shapes,
                         options.padding_values);
             return Wrap(MakeBucketBySequenceLengthDataset(d.dataset, std::move(options)));
           })
      .def("pack_sequences",
           [](const PyDataset& d, std::vector<int64_t> sequence_lengths, int64_t max_open_rows,
              bool truncate_long_sequences) {
             return Wrap(MakePackSequencesDataset(d.dataset, {.sequence_lengths = std::move(sequence_lengths),
                                                              .max_open_rows = max_open_rows,
                                                              .truncate_long_sequences = truncate_long_sequences}));
           })
      .def("prefetch",
           [](const PyDataset& d, int64_t buffer_size) {
             return Wrap(MakePrefetchDataset(d.dataset, {.buffer_size = buffer_size}));
           })
      .def("repeat",
           [](const PyDataset& d, int64_t count) { return Wrap(MakeRepeatDataset(d.dataset, {.count = count})); })
      .def("take", [](const PyDataset& d, int64_t count) { return Wrap(MakeTakeDataset(d.dataset, {.count = count})); })
      .def("skip", [](const PyDataset& d, int64_t count) { return Wrap(MakeSkipDataset(d.dataset, {.count = count})); })
      .def("interleave",
           [](const PyDataset& d, const PyDatasetFunction& fn, int64_t cycle_length, int64_t block_length,
              int64_t num_parallel_calls, std::optional<bool> deterministic) {
             return Wrap(MakeInterleaveDataset(d.dataset, fn.function,
                                               {.cycle_length = cycle_length,
                                                .block_length = block_length,
                                                .num_parallel_calls = num_parallel_calls,
                                                .deterministic = DeterminismFrom(deterministic)}));
           })
      .def("window",
           [](const PyDataset& d, int64_t size, std::optional<int64_t> shift, int64_t stride, bool drop_remainder) {
             return Wrap(MakeWindowDataset(
                 d.dataset, {.size = size, .shift = shift, .stride = stride, .drop_remainder = drop_remainder}));
           })
      .def("flat_map", [](const PyDataset& d,
                          const PyDatasetFunction& fn) { return Wrap(MakeFlatMapDataset(d.dataset, fn.function)); })
      // key: an ElementFunction or a component name; window_size or window_size_fn (None for the other).
      .def(
          "group_by_window",
          [](const PyDataset& d, py::object key, const PyDatasetFunction& reduce_fn, std::optional<int64_t> window_size,
             py::object window_size_fn, int64_t max_open_groups, std::string key_name) {
            GroupByWindowOptions options{.reduce_fn = reduce_fn.function,
                                         .window_size = window_size,
                                         .max_open_groups = max_open_groups,
                                         .key_name = std::move(key_name)};
            if (py::isinstance<py::str>(key)) {
              options.key_component = key.cast<std::string>();
            } else {
              options.key_fn = key.cast<const PyElementFunction&>().function;
            }
            if (!window_size_fn.is_none())
              options.window_size_fn = window_size_fn.cast<const PyElementFunction&>().function;
            return Wrap(MakeGroupByWindowDataset(d.dataset, std::move(options)));
          })
      .def("rejection_resample",
           [](const PyDataset& d, py::object class_fn, std::vector<double> target_dist,
              std::vector<double> initial_dist, std::optional<uint64_t> seed) {
             RejectionResampleOptions options{
                 .target_dist = std::move(target_dist), .initial_dist = std::move(initial_dist), .seed = seed};
             if (py::isinstance<py::str>(class_fn)) {
               options.class_component = class_fn.cast<std::string>();
             } else {
               options.class_fn = class_fn.cast<const PyElementFunction&>().function;
             }
             return Wrap(MakeRejectionResampleDataset(d.dataset, std::move(options)));
           })
      .def("concatenate", [](const PyDataset& d,
                             const PyDataset& other) { return Wrap(MakeConcatenateDataset(d.dataset, other.dataset)); })
      .def("shard",
           [](const PyDataset& d, int64_t num_shards, int64_t index) {
             return Wrap(MakeShardDataset(d.dataset, {.num_shards = num_shards, .index = index}));
           })
      .def("unbatch", [](const PyDataset& d) { return Wrap(MakeUnbatchDataset(d.dataset)); })
      .def("cache", [](const PyDataset& d) { return Wrap(MakeCacheDataset(d.dataset)); })
      .def("enumerate",
           [](const PyDataset& d, int64_t start) { return Wrap(MakeEnumerateDataset(d.dataset, {.start = start})); })
      .def("ignore_errors",
           [](const PyDataset& d, bool log_warning) {
             return Wrap(MakeIgnoreErrorsDataset(d.dataset, {.log_warning = log_warning}));
           })
      .def("snapshot",
           [](const PyDataset& d, std::string path, const std::string& compression, std::string fingerprint) {
             return Wrap(MakeSnapshotDataset(d.dataset, {.path = std::move(path),
                                                         .compression = ValueOrThrow(WithContext(
                                                             ParseCompression(compression), "snapshot: compression")),
                                                         .fingerprint = std::move(fingerprint)}));
           })
      // Runs the whole input; Python functions in it take the GIL as they run.
      .def("save", [](const PyDataset& d, const std::string& path, const std::string& compression, int64_t shard_count,
                      py::object shard_func) {
        SaveOptions options{
            .compression = ValueOrThrow(WithContext(ParseCompression(compression), "save: compression")),
            .shard_count = shard_count};
        if (!shard_func.is_none()) options.shard_func = shard_func.cast<const PyElementFunction&>().function;
        Result<int64_t> written = WithoutGil([&] { return SaveDataset(*d.dataset, path, options); });
        return ValueOrThrow(std::move(written));
      });

  // Sources.
  // The rows of a window of `window_spec` as the unbound pipeline a spec function starts from
  // (element_source SLICES): flat_map's map_func builds the window's dataset on it.
  m.def("window_rows", [](py::handle window_spec) {
    return Wrap(
        MakeUnboundElementSource(spec::ElementSource::SLICES, ElementSpecFromPython(window_spec, "window_rows")));
  });
  m.def("from_slices", [](const std::vector<std::pair<std::string, py::object>>& components) {
    return Wrap(MakeFromSlicesDataset(ComponentsFrom(components, "from_tensor_slices")));
  });
  m.def("from_tensors", [](const std::vector<std::pair<std::string, py::object>>& components) {
    return Wrap(MakeFromTensorsDataset(ComponentsFrom(components, "from_tensors")));
  });
  m.def("range", [](int64_t start, int64_t stop, int64_t step, py::object dtype) {
    return Wrap(MakeRangeDataset(
        {.start = start, .stop = stop, .step = step, .dtype = DTypeFromPython(dtype, "range: dtype")}));
  });
  m.def("list_files", [](std::vector<std::string> patterns, bool shuffle, std::optional<uint64_t> seed) {
    return Wrap(MakeListFilesDataset({.patterns = std::move(patterns), .shuffle = shuffle, .seed = seed}));
  });
  m.def("labelled_files",
        [](std::string directory, std::vector<std::string> class_names, std::vector<std::string> extensions,
           bool shuffle, std::optional<uint64_t> seed, std::optional<int64_t> num_parallel_reads,
           std::optional<int64_t> max_file_bytes, int64_t num_shards, int64_t shard_index) {
          LabelledFilesOptions options{.directory = std::move(directory),
                                       .class_names = std::move(class_names),
                                       .extensions = std::move(extensions),
                                       .shuffle = shuffle,
                                       .seed = seed,
                                       .num_shards = num_shards,
                                       .shard_index = shard_index};
          if (num_parallel_reads) options.num_parallel_reads = *num_parallel_reads;
          if (max_file_bytes) options.max_file_bytes = *max_file_bytes;
          return Wrap(MakeLabelledFilesDataset(std::move(options)));
        });
  m.def("tfrecord", [](std::vector<std::string> files, const std::string& compression, int64_t buffer_size,
                       int64_t num_parallel_reads, const std::string& on_corrupt, int64_t max_record_bytes) {
    TFRecordOptions options;
    options.files = std::move(files);
    options.compression = ValueOrThrow(WithContext(ParseCompression(compression), "tfrecord: compression"));
    options.buffer_size = buffer_size;
    options.num_parallel_reads = num_parallel_reads;
    options.on_corrupt = ValueOrThrow(WithContext(ParseCorruptRecordPolicy(on_corrupt), "tfrecord: on_corrupt"));
    options.max_record_bytes = max_record_bytes;
    return Wrap(MakeTFRecordDataset(std::move(options)));
  });
  m.def("text_line", [](std::vector<std::string> files, const std::string& compression, int64_t buffer_size,
                        int64_t num_parallel_reads, int64_t max_line_bytes) {
    return Wrap(MakeTextLineDataset(
        {.files = std::move(files),
         .compression = ValueOrThrow(WithContext(ParseCompression(compression), "text_line: compression")),
         .buffer_size = buffer_size,
         .num_parallel_reads = num_parallel_reads,
         .max_line_bytes = max_line_bytes}));
  });
  m.def("fixed_length_record", [](std::vector<std::string> files, int64_t record_bytes, int64_t header_bytes,
                                  int64_t footer_bytes, const std::string& compression, int64_t buffer_size,
                                  int64_t num_parallel_reads) {
    return Wrap(MakeFixedLengthRecordDataset(
        {.files = std::move(files),
         .record_bytes = record_bytes,
         .header_bytes = header_bytes,
         .footer_bytes = footer_bytes,
         .compression = ValueOrThrow(WithContext(ParseCompression(compression), "fixed_length_record: compression")),
         .buffer_size = buffer_size,
         .num_parallel_reads = num_parallel_reads}));
  });
  m.def("csv", [](std::vector<std::string> files, const std::vector<py::object>& record_defaults,
                  std::vector<std::string> column_names, const std::string& compression, int64_t buffer_size,
                  int64_t num_parallel_reads, bool header, const std::string& field_delim, bool use_quote_delim,
                  std::string na_value, std::vector<int64_t> select_cols, std::vector<int64_t> exclude_cols,
                  int64_t max_record_bytes) {
    if (field_delim.size() != 1) {
      throw py::value_error(StrCat("csv: field_delim must be one byte, got '", field_delim, "'"));
    }
    CsvOptions options{.files = std::move(files),
                       .column_names = std::move(column_names),
                       .compression = ValueOrThrow(WithContext(ParseCompression(compression), "csv: compression")),
                       .buffer_size = buffer_size,
                       .num_parallel_reads = num_parallel_reads,
                       .header = header,
                       .field_delim = field_delim[0],
                       .use_quote_delim = use_quote_delim,
                       .na_value = std::move(na_value),
                       .select_cols = std::move(select_cols),
                       .exclude_cols = std::move(exclude_cols),
                       .max_record_bytes = max_record_bytes};
    for (size_t i = 0; i < record_defaults.size(); ++i) {
      options.record_defaults.push_back(NumpyToTensor(record_defaults[i], StrCat("csv: record_defaults[", i, "]")));
    }
    return Wrap(MakeCsvDataset(std::move(options)));
  });
  m.def("load", [](std::string path, const py::object& element_spec, int64_t max_record_bytes) {
    LoadOptions options{.path = std::move(path), .max_record_bytes = max_record_bytes};
    if (!element_spec.is_none()) options.element_spec = ElementSpecFromPython(element_spec, "load: element_spec");
    return Wrap(MakeLoadDataset(std::move(options)));
  });
  m.def("counter", [](int64_t start, int64_t step, py::object dtype) {
    return Wrap(MakeCounterDataset({.start = start, .step = step, .dtype = DTypeFromPython(dtype, "counter: dtype")}));
  });
  m.def("random", [](std::optional<uint64_t> seed, bool rerandomize_each_iteration) {
    return Wrap(MakeRandomDataset({.seed = seed, .rerandomize_each_iteration = rerandomize_each_iteration}));
  });
  m.def("sample_from_datasets", [](const std::vector<PyDataset>& datasets, std::vector<double> weights,
                                   std::optional<PyDataset> weights_dataset, std::optional<uint64_t> seed,
                                   bool stop_on_empty_dataset, bool rerandomize_each_iteration) {
    return Wrap(MakeSampleFromDatasetsDataset(DatasetsOf(datasets),
                                              {.weights = std::move(weights),
                                               .weights_dataset = weights_dataset ? weights_dataset->dataset : nullptr,
                                               .seed = seed,
                                               .stop_on_empty_dataset = stop_on_empty_dataset,
                                               .rerandomize_each_iteration = rerandomize_each_iteration}));
  });
  m.def("choose_from_datasets",
        [](const std::vector<PyDataset>& datasets, const PyDataset& choice_dataset, bool stop_on_empty_dataset) {
          return Wrap(MakeChooseFromDatasetsDataset(DatasetsOf(datasets), choice_dataset.dataset,
                                                    {.stop_on_empty_dataset = stop_on_empty_dataset}));
        });
  m.def("zip", [](const std::vector<PyDataset>& datasets) { return Wrap(MakeZipDataset(DatasetsOf(datasets))); });
  m.def("from_spec", [](const py::object& spec, bool binary) {
    spec::Pipeline pipeline = SpecFrom(spec, binary);
    return Wrap(DatasetFromSpec(pipeline));
  });
  m.def("read_spec_file", [](const std::string& path) {
    spec::Pipeline pipeline = ValueOrThrow(ReadSpecFile(path));
    return Wrap(DatasetFromSpec(pipeline));
  });
  m.attr("AUTOTUNE") = kAutotune;
  m.attr("INFINITE_CARDINALITY") = kInfiniteCardinality;
  m.attr("UNKNOWN_CARDINALITY") = kUnknownCardinality;
  m.attr("MAX_RECORD_BYTES_DEFAULT") = TFRecordOptions{}.max_record_bytes;
  m.attr("MAX_LINE_BYTES_DEFAULT") = TextLineOptions{}.max_line_bytes;
}

}  // namespace sluice::python

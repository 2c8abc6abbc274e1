#include "sluice/dataset/verdict_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

namespace sluice {
namespace {

std::string Micros(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f us", ns * 1e-3);
  return buf;
}

std::string Rate(double per_second) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f", per_second);
  return buf;
}

bool IsBatch(const NodeSnapshot& node) { return node.op_name == "batch" || node.op_name == "padded_batch"; }
bool HasParallelism(const NodeSnapshot& node) {
  return node.op_name == "map" || node.op_name == "batch" || node.op_name == "interleave";
}
double PerElementNs(int64_t ns, int64_t elements) {
  return elements > 0 ? static_cast<double>(ns) / static_cast<double>(elements) : 0;
}

// The stages as a tree, with the sums the rules share.
class StageGraph {
 public:
  explicit StageGraph(const std::vector<StageReport>& stages) : stages_(stages) {
    for (const StageReport& s : stages_) {
      by_index_[s.node.index] = &s;
      total_self_ns_ += s.node.self_ns;
    }
  }

  const std::vector<StageReport>& stages() const { return stages_; }
  int64_t total_self_ns() const { return total_self_ns_; }
  const StageReport* Find(int index) const {
    const auto it = by_index_.find(index);
    return it == by_index_.end() ? nullptr : it->second;
  }
  const StageReport* Parent(const StageReport& s) const { return Find(s.node.parent); }
  // Whether `node` lies under `ancestor` (or is it).
  bool IsUnder(int node, int ancestor) const {
    for (const StageReport* s = Find(node); s != nullptr; s = Parent(*s)) {
      if (s->node.index == ancestor) return true;
    }
    return false;
  }
  // The nearest stage above `s` that `predicate` holds for, or null.
  template <typename Predicate>
  const StageReport* Above(const StageReport& s, Predicate predicate) const {
    for (const StageReport* p = Parent(s); p != nullptr; p = Parent(*p)) {
      if (predicate(p->node)) return p;
    }
    return nullptr;
  }

 private:
  const std::vector<StageReport>& stages_;
  std::map<int, const StageReport*> by_index_;
  int64_t total_self_ns_ = 0;
};

// What rule 1 says of a stage's parallelism when it is autotuned: the
// tuner's choice, and why raising it is not the remedy.
std::string AutotunedParallelismNote(const StageReport& s, const TunableSnapshot& t) {
  return StrCat(s.name, "'s num_parallel_calls is autotuned and the tuner chose ", t.value,
                ", as many as the CPU budget and the stage's measured cost call for: more would queue work, not "
                "finish it sooner");
}

// B: a row-wise function mapped one element at a time under a batch.
std::optional<Verdict> PerElementMapVerdict(const StageGraph& graph, const StageReport& s) {
  const NodeSnapshot& n = s.node;
  if (n.op_name != "map" || !n.function.row_wise || n.elements == 0) return std::nullopt;
  if (static_cast<double>(n.calls) < 0.9 * static_cast<double>(n.elements)) return std::nullopt;  // runs already
  const StageReport* batch = graph.Above(s, IsBatch);
  if (batch == nullptr) return std::nullopt;
  std::string between;
  double downstream_share = batch->self_share;  // the stages that move its outputs one by one
  for (const StageReport* p = graph.Parent(s); p != nullptr && p != batch; p = graph.Parent(*p)) {
    between += StrCat(between.empty() ? "" : ", ", p->name);
    downstream_share += p->self_share;
  }
  const bool parses = n.function.name.starts_with("parse_example");
  Verdict v;
  v.kind = BottleneckKind::kPerElementMap;
  v.stage = n.index;
  v.stage_name = s.name;
  v.share = s.self_share;
  v.estimated_gain = s.self_share * (1 - kBatchedMapCostRatio) + downstream_share * kUnmappedMoveSaving;
  v.reason = StrCat(s.name, " applies ", n.function.name, " one element at a time (", n.calls, " calls for ",
                    n.elements, " elements, ", Micros(PerElementNs(n.self_ns, n.elements)), " each), ahead of ",
                    batch->name, ": it takes ", PercentText(s.self_share),
                    " of the pipeline's busy time, and its function is row-wise, so one call on a whole batch "
                    "does the same work");
  v.remedy = StrCat("batch first, then map the batch: move ", s.name, " (", n.function.name, ") after ", batch->name,
                    parses ? ", so that parse_example parses each batch's vector of serialized records in one call "
                             "(tf.io.parse_example's form) and writes the values straight into the batch"
                           : ", so that its function runs once per batch",
                    between.empty() ? ""
                                    : StrCat("; the stages between (", between, ") then move ",
                                             parses ? "serialized records instead of parsed ones"
                                                    : "its inputs instead of its outputs"));
  return v;
}

// The pipeline's CPU time as the tiny-map rule counts it: each stage's own
// work on all its workers, plus kHandOffNs per element of each parallel map.
double StageWorkNs(const NodeSnapshot& n) {
  return static_cast<double>(n.self_ns) * (n.async ? std::max(1, n.parallelism) : 1);
}
double PipelineCpuNs(const StageGraph& graph) {
  double ns = 0;
  for (const StageReport& s : graph.stages()) {
    ns += StageWorkNs(s.node);
    if (s.node.async && s.node.op_name == "map") ns += kHandOffNs * static_cast<double>(s.node.elements);
  }
  return ns;
}

// B, for a pair: the parallel map `s` and the parallel map that is its
// input, each handing every element off.
std::optional<Verdict> TinyMapVerdict(const StageGraph& graph, const StageReport& s) {
  const auto parallel_map = [](const NodeSnapshot& n) { return n.op_name == "map" && n.async && n.elements > 0; };
  if (!parallel_map(s.node)) return std::nullopt;
  const StageReport* input = nullptr;
  for (const StageReport& child : graph.stages()) {
    if (child.node.parent == s.node.index && parallel_map(child.node)) input = &child;
  }
  if (input == nullptr) return std::nullopt;
  const double cpu_ns = PipelineCpuNs(graph);
  if (cpu_ns <= 0) return std::nullopt;
  const auto work_ns = [](const NodeSnapshot& n) { return StageWorkNs(n) / static_cast<double>(n.elements); };
  const std::string functions =
      input->node.function.name == "lambda" && s.node.function.name == "lambda"
          ? "one C++ callable calling both, in their order"
          : StrCat("one function doing ", input->node.function.name, " then ", s.node.function.name);
  Verdict v;
  v.kind = BottleneckKind::kTinyMap;
  v.stage = s.node.index;
  v.stage_name = s.name;
  v.share = s.self_share;
  v.estimated_gain = kHandOffNs * static_cast<double>(s.node.elements) / cpu_ns;
  v.reason = StrCat(input->name, " and ", s.name,
                    ", one the other's input, each hand every element to the CPU pool "
                    "and back (at least ",
                    Micros(kHandOffNs), " of CPU an element) for functions that take ", Micros(work_ns(input->node)),
                    " and ", Micros(work_ns(s.node)), " of work each: the second hand-off is ",
                    PercentText(v.estimated_gain), " of the pipeline's CPU time or more");
  v.remedy = StrCat("fuse ", input->name, " and ", s.name, " into one map (", functions,
                    ") with num_parallel_calls = ", std::max(s.node.parallelism, input->node.parallelism),
                    ": each element is then handed off once");
  return v;
}

// C, for a source: too slow for what the stages above it would take.
Verdict SourceVerdict(const StageGraph& graph, const StageReport& s) {
  const NodeSnapshot& n = s.node;
  const int64_t rest_ns = std::max<int64_t>(1, graph.total_self_ns() - n.self_ns);
  const double own = PerElementNs(n.self_ns, n.elements), demand = PerElementNs(rest_ns, n.elements);
  const int64_t k = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(static_cast<double>(n.self_ns) / rest_ns)), 2,
                                        kMaxSuggestedParallelReads);
  Verdict v;
  v.kind = BottleneckKind::kSourceBound;
  v.stage = n.index;
  v.stage_name = s.name;
  v.share = s.self_share;
  v.estimated_gain = s.self_share * (1.0 - 1.0 / static_cast<double>(k));
  v.reason =
      StrCat(s.name, own > demand ? " is a source too slow for its consumer" : " is the busiest stage, a source",
             ": it delivers ", own > 0 ? Rate(1e9 / own) : "-", " elements/s of its own time (", Micros(own),
             " each) where the stages above would take ", demand > 0 ? Rate(1e9 / demand) : "-", " elements/s (",
             Micros(demand), " each); reading takes ", PercentText(s.self_share), " of the pipeline's busy time");
  const StageReport* parent = graph.Parent(s);
  if (parent != nullptr && parent->node.op_name == "interleave") {
    const TunableSnapshot* calls = parent->node.FindTunable(TunableParameter::kNumParallelCalls);
    const TunableSnapshot* cycle = parent->node.FindTunable(TunableParameter::kCycleLength);
    const int64_t cycle_length = cycle != nullptr ? cycle->value : 1;
    if (calls != nullptr && calls->autotuned) {
      v.reason += StrCat("; ", parent->name, "'s num_parallel_calls is autotuned (the tuner chose ", calls->value,
                         " of cycle_length ", cycle_length, ")");
      v.remedy = StrCat("more files read at once: ", parent->name, " with cycle_length >= ", k, " over at least ", k,
                        " files (the tuner reads no more files than the cycle holds), or "
                        "cache() after ",
                        parent->name, " if the data fits in memory");
    } else {
      v.remedy = StrCat("read ", k, " files in parallel: ", parent->name, " with num_parallel_calls = ", k,
                        cycle_length < k ? StrCat(" and cycle_length = ", k) : std::string(),
                        " (or num_parallel_calls = kAutotune) over at least ", k, " files, or cache() after ",
                        parent->name, " if the data fits in memory");
    }
  } else if (n.op_name.starts_with("tfrecord")) {
    v.remedy = StrCat("read files in parallel: tfrecord num_parallel_reads = ", k, " over at least ", k,
                      " files, or cache() after the source if the data fits in memory");
  } else {
    v.remedy = StrCat("read in parallel: interleave over ", k, " files or shards with cycle_length = ", k,
                      " and num_parallel_calls = ", k, ", or cache() after the source if the data fits in memory");
  }
  return v;
}

// C, for any other stage: CPU-bound at its parallelism.
Verdict CpuBoundVerdict(const StageReport& s) {
  const NodeSnapshot& n = s.node;
  Verdict v;
  v.kind = BottleneckKind::kCpuBound;
  v.stage = n.index;
  v.stage_name = s.name;
  v.share = s.self_share;
  v.estimated_gain = s.self_share;
  v.reason = StrCat(s.name, " is CPU-bound at parallelism ", n.parallelism, ": it takes ", PercentText(s.self_share),
                    " of the pipeline's busy time (", Micros(PerElementNs(n.self_ns, n.elements)), " per element)");
  const TunableSnapshot* t = n.FindTunable(TunableParameter::kNumParallelCalls);
  if (t != nullptr && t->autotuned) {
    v.reason += StrCat("; ", AutotunedParallelismNote(s, *t));
    v.remedy = StrCat("a larger cpu_budget (RuntimeOptions) if the machine has idle cores, cache() before ", n.op_name,
                      " if its input fits in memory, or a cheaper function");
  } else if (n.parallelism > 1) {
    v.remedy = StrCat("raise ", n.op_name, "'s num_parallel_calls above ", n.parallelism,
                      " (or kAutotune) if the CPU budget has idle cores, else a larger cpu_budget "
                      "(RuntimeOptions); or cache() before it if its input fits in memory");
  } else if (HasParallelism(n)) {
    v.remedy = StrCat("parallelise ", n.op_name,
                      " (num_parallel_calls = kAutotune, or > 1), or cache() before it if its input fits in memory");
  } else {
    v.remedy = StrCat(n.op_name,
                      " has no parallelism to raise: cache() before it if its input fits in memory, or "
                      "place it where it handles fewer or smaller elements (before a map that enlarges them, after "
                      "a filter)");
  }
  return v;
}

// B, then C, over the stages `candidate` holds for; none when none was busy.
template <typename Candidate>
std::optional<Verdict> ProducerVerdict(const StageGraph& graph, Candidate candidate) {
  const StageReport* busiest = nullptr;
  for (const StageReport& s : graph.stages()) {
    if (!candidate(s)) continue;
    if (busiest == nullptr || s.node.self_ns > busiest->node.self_ns) busiest = &s;
  }
  if (busiest == nullptr || busiest->node.self_ns == 0) return std::nullopt;
  // Each rule's gain is held against the busiest stage's share in the same
  // measure: of the busy time (per-element map); its own work, of the CPU
  // time (tiny map).
  const double cpu_ns = PipelineCpuNs(graph);
  const double busiest_cpu_share = cpu_ns > 0 ? StageWorkNs(busiest->node) / cpu_ns : 0;
  std::optional<Verdict> specific;
  for (const StageReport& s : graph.stages()) {
    if (!candidate(s)) continue;
    for (auto [v, busiest_share] : {std::pair{PerElementMapVerdict(graph, s), busiest->self_share},
                                    std::pair{TinyMapVerdict(graph, s), busiest_cpu_share}}) {
      if (v && v->estimated_gain >= kMinSpecificGain && v->estimated_gain >= kSpecificShareOfBusiest * busiest_share &&
          (!specific || v->estimated_gain > specific->estimated_gain)) {
        specific = std::move(v);
      }
    }
  }
  if (specific) return specific;
  return busiest->node.source ? SourceVerdict(graph, *busiest) : CpuBoundVerdict(*busiest);
}

Verdict BufferTooSmallVerdict(const StageReport& async) {
  Verdict v;
  v.kind = BottleneckKind::kBufferTooSmall;
  v.stage = async.node.index;
  v.stage_name = async.name;
  v.share = async.consumer_wait_share;
  v.estimated_gain = async.consumer_wait_share;
  const int64_t capacity = std::max<int64_t>(1, static_cast<int64_t>(async.node.mean_capacity + 0.5));
  v.reason = StrCat(async.name, "'s buffer is too small: it was full at ", PercentText(async.node.full_fraction),
                    " of its consumer's arrivals (capacity ", capacity, "), yet its consumer waited ",
                    PercentText(async.consumer_wait_share),
                    " of the time: the producer keeps up on average but comes in bursts");
  v.remedy = StrCat("a larger buffer_size (e.g. ", std::max<int64_t>(4 * capacity, 8), ") or kAutotune");
  return v;
}

}  // namespace

Verdict DecideVerdict(const std::vector<StageReport>& stages, int64_t wall_ns) {
  const StageGraph graph(stages);
  if (graph.total_self_ns() == 0 && wall_ns == 0) return {};
  // A: an async stage its consumer waited on, outermost first.
  for (const StageReport& async : stages) {
    if (!async.node.async || async.consumer_wait_share < kConsumerWaitShare) continue;
    std::string tuned;
    // Only a stage with a buffer_size (prefetch) is advised a buffer; a
    // parallel map's or interleave's results wait in its parallelism.
    const TunableSnapshot* buffer = async.node.FindTunable(TunableParameter::kBufferSize);
    if (buffer != nullptr && async.node.full_fraction >= kFullShare) {
      if (!buffer->autotuned) return BufferTooSmallVerdict(async);
      tuned = StrCat("; ", async.name, "'s buffer_size is autotuned and the tuner chose ", buffer->value, " (full at ",
                     PercentText(async.node.full_fraction),
                     " of the consumer's arrivals): it sizes the buffer by how much the producer's and the "
                     "consumer's work overlap, and a larger one would not make the producer faster");
    }
    std::optional<Verdict> v = ProducerVerdict(graph, [&](const StageReport& s) {
      return s.node.index == async.node.index || graph.IsUnder(s.node.index, async.node.index);
    });
    if (!v) continue;
    v->starved_async = async.node.index;
    // Removing every wait saves at most the time waited.
    v->estimated_gain = std::min(v->estimated_gain, async.consumer_wait_share);
    v->reason += StrCat("; ", async.name, "'s consumer waited ", PercentText(async.consumer_wait_share),
                        " of the time with the buffer empty ", PercentText(async.node.empty_fraction),
                        " of its arrivals: the producer side limits throughput", tuned);
    return *std::move(v);
  }
  // B and C over all stages.
  return ProducerVerdict(graph, [](const StageReport&) { return true; }).value_or(Verdict());
}

}  // namespace sluice

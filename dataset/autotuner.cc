#include "sluice/dataset/autotuner.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sluice/core/logging.h"
#include "sluice/core/status.h"

namespace sluice {

Autotuner::Autotuner(Options options) : options_(std::move(options)) {}

Autotuner::~Autotuner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int64_t PrefetchBufferSize(double producer_seconds, double consumer_seconds, int64_t max) {
  if (std::min(producer_seconds, consumer_seconds) < kMinPrefetchOverlapSeconds) return 0;
  const double rho = consumer_seconds / producer_seconds;
  const double unbounded = std::max(0.0, 1 - rho);
  for (int64_t k = 1; k < max; ++k) {
    const double empty = std::abs(rho - 1) < 1e-9 ? 1.0 / static_cast<double>(k + 1)
                                                  : (1 - rho) / (1 - std::pow(rho, static_cast<double>(k + 1)));
    if (empty - unbounded <= kPrefetchStarvationTolerance) return k;
  }
  return std::max<int64_t>(max, 1);
}

std::shared_ptr<Tunable> Autotuner::Register(std::string_view op_name, int64_t min, int64_t max, int64_t initial) {
  std::lock_guard<std::mutex> lock(mu_);
  return Add(op_name, Tunable::Kind::kParallelism, min, max, initial);
}

std::shared_ptr<Tunable> Autotuner::RegisterBuffer(std::string_view op_name, int64_t max) {
  std::lock_guard<std::mutex> lock(mu_);
  return Add(op_name, Tunable::Kind::kBufferSize, 0, max, 1);
}

std::shared_ptr<Tunable> Autotuner::Add(std::string_view op_name, Tunable::Kind kind, int64_t min, int64_t max,
                                        int64_t initial) {
  auto tunable = std::make_shared<Tunable>(StrCat(op_name, "#", registered_++), kind, min, max,
                                           std::clamp(initial, min, max));
  Stage stage;
  stage.tunable = tunable;
  stage.decision.name = tunable->name();
  stage.decision.value = tunable->value();
  stages_.push_back(std::move(stage));
  if (registered_ == 1) {
    tuning_.store(true, std::memory_order_relaxed);
    window_outputs_ = outputs_.load(std::memory_order_relaxed);
    window_cpu_seconds_ = options_.cpu_seconds();
    window_pool_cpu_seconds_ = PoolCpuSeconds();
    if (options_.background) thread_ = std::thread([this] { Loop(); });
  }
  return tunable;
}

void Autotuner::Loop() {
  auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(kMinAutotunePeriod);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    wake_.wait_for(lock, period, [this] { return stopping_; });
    if (stopping_) return;
    lock.unlock();
    Optimize();
    lock.lock();
    period = std::min<std::chrono::steady_clock::duration>(2 * period, kMaxAutotunePeriod);
  }
}

bool Autotuner::Optimize() {
  const double cpu_seconds = options_.cpu_seconds();
  const double pool_cpu_seconds = PoolCpuSeconds();
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t outputs = outputs_.load(std::memory_order_relaxed);
  const int64_t window_outputs = outputs - window_outputs_;
  if (window_outputs < kMinWindowElements) return false;
  const double cpu_per_output = std::max(cpu_seconds - window_cpu_seconds_, 1e-9) / window_outputs;
  // D; 0 without a pool clock.
  const double outside_pool_per_output =
      options_.pool_cpu_seconds == nullptr
          ? 0.0
          : std::max(0.0, cpu_per_output - (pool_cpu_seconds - window_pool_cpu_seconds_) / window_outputs);
  window_outputs_ = outputs;
  window_cpu_seconds_ = cpu_seconds;
  window_pool_cpu_seconds_ = pool_cpu_seconds;
  rounds_.fetch_add(1, std::memory_order_relaxed);

  std::erase_if(stages_, [](const Stage& stage) { return stage.tunable.expired(); });
  struct Measured {
    Stage* stage;
    std::shared_ptr<Tunable> tunable;
    double ratio = 0, seconds = 0, bytes = 0;  // r_i, s_i, bytes per element
    double consumer_seconds = 0;               // a buffer's consumer time per element
  };
  std::vector<Measured> measured, buffers;
  double stage_limit = std::numeric_limits<double>::infinity();  // min_i max_i / (r_i s_i)
  double stage_seconds_per_output = 0;                            // sum_i r_i s_i
  for (Stage& stage : stages_) {
    std::shared_ptr<Tunable> tunable = stage.tunable.lock();
    if (tunable == nullptr) continue;
    const int64_t elements = tunable->elements_.load(std::memory_order_relaxed);
    const int64_t bytes = tunable->bytes_.load(std::memory_order_relaxed);
    const int64_t busy_ns = tunable->busy_ns_.load(std::memory_order_relaxed);
    const int64_t consumer_ns = tunable->consumer_ns_.load(std::memory_order_relaxed);
    const int64_t window_elements = elements - stage.elements;
    if (window_elements <= 0) continue;  // nothing finished: no measurement, keep its value
    // A buffer's consumer times one call in many: with none timed in the
    // window yet, its side is unmeasured (not idle); the window goes on.
    if (tunable->kind() == Tunable::Kind::kBufferSize && consumer_ns == stage.consumer_ns) continue;
    Measured m{&stage, tunable};
    m.ratio = static_cast<double>(window_elements) / window_outputs;
    m.seconds = static_cast<double>(busy_ns - stage.busy_ns) * 1e-9 / window_elements;
    m.bytes = static_cast<double>(bytes - stage.bytes) / window_elements;
    m.consumer_seconds = static_cast<double>(consumer_ns - stage.consumer_ns) * 1e-9 / window_elements;
    stage.elements = elements;
    stage.bytes = bytes;
    stage.busy_ns = busy_ns;
    stage.consumer_ns = consumer_ns;
    if (tunable->kind() == Tunable::Kind::kBufferSize) {
      // A buffer's producer time is its whole input's: not a stage's own work.
      buffers.push_back(std::move(m));
      continue;
    }
    if (m.ratio * m.seconds > 0) stage_limit = std::min(stage_limit, tunable->max() / (m.ratio * m.seconds));
    stage_seconds_per_output += m.ratio * m.seconds;
    measured.push_back(std::move(m));
  }
  // The pool's CPU time beyond the stages' own work is overhead (idle
  // workers spinning, hand-offs) that shrinks as the stages get busier, so
  // it must not hold their parallelism down; the CPU time outside the pool
  // (D) is work their parallelism can't take over. (I/O-bound stages have
  // work far above C: C stands.)
  const double cpu_bound = stage_seconds_per_output > 0
                               ? std::min(cpu_per_output, outside_pool_per_output + stage_seconds_per_output)
                               : cpu_per_output;
  const double reachable = std::min(options_.cpu_budget / cpu_bound, stage_limit);  // X'

  std::vector<int64_t> values;
  double buffered_bytes = 0;
  for (const Measured& m : measured) {
    // + 1: the unit that holds the results the consumer is taking.
    const double wanted = std::ceil(kAutotuneHeadroom * reachable * m.ratio * m.seconds) + 1;
    values.push_back(std::clamp(static_cast<int64_t>(std::min(wanted, 1e9)), m.tunable->min(), m.tunable->max()));
    buffered_bytes += values.back() * m.bytes;
  }
  // Each unit of parallelism may hold one result: scale all down to fit.
  const double room = static_cast<double>(options_.ram_budget->limit());
  const double scale = buffered_bytes > room ? room / buffered_bytes : 1.0;
  for (size_t i = 0; i < measured.size(); ++i) {
    const Measured& m = measured[i];
    const int64_t value =
        std::clamp(static_cast<int64_t>(std::floor(values[i] * scale)), m.tunable->min(), m.tunable->max());
    if (value != m.tunable->value()) {
      SLUICE_LOG(DEBUG) << "autotune: " << m.tunable->name() << " parallelism " << m.tunable->value() << " -> "
                        << value << " (" << m.ratio << " elements per output at " << m.seconds * 1e6
                        << " us each; CPU " << cpu_per_output * 1e6 << " us per output, "
                        << outside_pool_per_output * 1e6 << " us of it outside the pool, budget " << options_.cpu_budget
                        << " cores, reachable " << reachable << " outputs/s"
                        << (scale < 1 ? ", scaled to fit the RAM budget" : "") << ")";
      m.tunable->set_value(value);
    }
    m.stage->decision = {m.tunable->name(), value, m.ratio, m.seconds};
  }
  // Buffers share what the parallel stages leave of the RAM budget.
  const double buffer_room = std::max(0.0, room - std::min(room, buffered_bytes)) /
                             std::max<double>(1, static_cast<double>(buffers.size()));
  for (const Measured& m : buffers) {
    int64_t value = PrefetchBufferSize(m.seconds, m.consumer_seconds, m.tunable->max());
    if (value > 1 && m.bytes > 0) value = std::max<int64_t>(1, std::min<double>(value, buffer_room / m.bytes));
    if (value != m.tunable->value()) {
      SLUICE_LOG(DEBUG) << "autotune: " << m.tunable->name() << " buffer " << m.tunable->value() << " -> " << value
                        << " (producer " << m.seconds * 1e6 << " us, consumer " << m.consumer_seconds * 1e6
                        << " us per element)";
      m.tunable->set_value(value);
    }
    m.stage->decision = {m.tunable->name(), value, m.ratio, m.seconds, m.consumer_seconds};
  }
  return true;
}

std::vector<AutotuneDecision> Autotuner::Decisions() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AutotuneDecision> out;
  for (const Stage& stage : stages_) {
    if (!stage.tunable.expired()) out.push_back(stage.decision);
  }
  return out;
}

double Autotuner::PoolCpuSeconds() const {
  return options_.pool_cpu_seconds == nullptr ? 0.0 : options_.pool_cpu_seconds();
}

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace sluice

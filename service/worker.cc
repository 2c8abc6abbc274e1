#include "sluice/service/worker.h"

#include <unistd.h>

#include <algorithm>
#include <deque>
#include <random>

#include "sluice/core/logging.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/seed_mix.h"
#include "sluice/service/address.h"
#include "sluice/service/dispatcher_state.h"
#include "sluice/service/element_outbox.h"
#include "sluice/service/protocol.h"
#include "sluice/service/split_provider.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;

// RPCs to the dispatcher wait at most this long, so that Stop is prompt.
constexpr milliseconds kRpcTimeout{500};
// How long a session waits for the heartbeat that brings its job (one it
// asks for at once).
constexpr milliseconds kTaskWait{5000};
// The most splits a session remembers sending, to give back when its
// consumer leaves: the latest ones. A consumer reports each split it holds
// whole within its heartbeat interval (100 ms by default), and the splits
// it took before the last few thousand it was sent are long reported, so
// the dispatcher would not hand them out again anyway.
constexpr size_t kMaxSessionSplits = 4096;
// The finished jobs whose tasks were let go that a worker remembers, so
// that a consumer that asks for one later hears its end at once (job ids
// grow, so the oldest are forgotten first; a consumer asking for one of
// those waits kTaskWait and is told the worker has no such job).
constexpr size_t kMaxRetiredJobs = 4096;
// Splits a task's feeder makes ready ahead of the one running: each holds
// a started pipeline (and what its prefetch buffers).
constexpr size_t kReadySplitsAhead = 2;
// The frames a session queues on its connection (of no more than the
// outbox's max_bytes): a quarter of its consumer's credit window (the
// elements it granted before it asked), at least 16 and at most 1024. A
// stream of small elements wakes the session once per hundreds of them
// (each wake-up costs more than a small element's trip) where its consumer
// grants thousands, and a session of a shared job (whose consumers grant
// less) takes no more of its elements than its consumer lets it send soon,
// leaving the rest to the job's other consumers.
uint64_t SessionOutboxFrames(uint64_t credit_window) {
  return std::clamp<uint64_t>(credit_window / 4, 16, 1024);
}
// A split's runner pushes the elements it gathered into the task's buffer
// once it holds this many, or this many bytes (or at once while a session
// waits for them).
constexpr size_t kRunnerPushItems = 16;
constexpr uint64_t kRunnerPushBytes = uint64_t{64} << 10;

// The frame that sends `item` to a consumer: an element encoded with
// `compression` (its stream index is the session's to set), an error or a
// split's end.
Result<OutgoingFrame> ItemFrame(TaskItem item, Compression compression,
                                const std::vector<std::string>& component_names) {
  Frame frame;
  switch (item.kind) {
    case TaskItem::Kind::kSplitEnd:
      frame.mutable_split_end()->set_split_id(item.split_id);
      frame.mutable_split_end()->set_num_elements(item.index);
      frame.mutable_split_end()->set_first_index(item.first_index);
      return OutgoingFrame(std::move(frame));
    case TaskItem::Kind::kError: {
      ElementError* error = frame.mutable_element_error();
      error->set_split_id(item.split_id);
      error->set_index_in_split(item.index);
      error->set_code(static_cast<uint32_t>(item.error.code()));
      error->set_message(item.error.message());
      error->set_first_index(item.first_index);
      return OutgoingFrame(std::move(frame));
    }
    case TaskItem::Kind::kElement:
      break;
  }
  SLUICE_ASSIGN_OR_RETURN(EncodedElement encoded,
                          EncodeElement(std::move(item.element),
                                        {.compression = compression, .component_names = component_names}));
  encoded.header.set_split_id(item.split_id);
  encoded.header.set_index_in_split(item.index);
  encoded.header.set_first_index_in_split(item.first_index);
  return OutgoingFrame(std::move(encoded));
}

// Sends the end of the stream, the stream's `index`-th element, and waits
// until it is written.
Status SendEndOfStream(ElementOutbox& outbox, uint64_t index, milliseconds timeout) {
  EncodedElement end;
  end.header = EndOfStreamHeader(index);
  SLUICE_RETURN_IF_ERROR(outbox.SendElement(std::move(end), timeout));
  return outbox.Flush(timeout);
}

std::string MakeUid() {
  std::random_device random;
  return StrCat(std::hex, ::getpid(), "-", random(), random());
}

}  // namespace

// A split made ready to run: its assignment, its pipeline's iterator and
// the iterator's first result, read ahead so that the pipeline is running
// (a prefetch in the spec fills while the split before it is sent); or why
// the pipeline could not be built.
struct Worker::ReadySplit {
  GetSplitResponse assignment;
  std::unique_ptr<Iterator> iterator;
  std::optional<Result<std::optional<Element>>> first;
  Status failed;
};

struct Worker::Task {
  int64_t job_id = 0;
  spec::Pipeline spec;
  ProcessingMode mode = ProcessingMode::kDistributedEpoch;
  JobSeeds seeds;
  std::vector<std::string> component_names;
  Status refused;  // the spec's paths are not allowed, or it does not build
  std::unique_ptr<TaskBuffer> buffer;
  std::thread thread;
  std::deque<ReadySplit> ready;  // GUARDED_BY(Worker::mu_): made ready by the feeder, not yet run
  bool feeder_done = false;      // GUARDED_BY(Worker::mu_): no more splits will be made ready
  bool finished = false;         // GUARDED_BY(Worker::mu_): the thread has put its last item
  // The task's runner and feeder wait on it (under Worker::mu_) for `ready`
  // to change, or for Stop: a split handed between them wakes no one else.
  std::condition_variable ready_changed;
};

struct Worker::Session {
  uint64_t id = 0;
  ReadJobRequest request;
  std::shared_ptr<Connection> connection;
  // The elements its consumer granted before it asked (read on the io
  // thread, which applies grants in the order they came).
  uint64_t credit_window = 0;
  std::thread thread;
  std::atomic<bool> done{false};
};

Worker::Worker(WorkerOptions options, PathRoots roots)
    : options_(std::move(options)),
      roots_(std::move(roots)),
      uid_(MakeUid()),
      own_seed_(RandomSeed()),
      rpc_io_("sluice-wrk-rpc") {}

Result<std::unique_ptr<Worker>> Worker::Start(WorkerOptions options) {
  SLUICE_RETURN_IF_ERROR(ParseHostPort(options.dispatcher_address).status());
  SLUICE_ASSIGN_OR_RETURN(PathRoots roots, PathRoots::Make(options.allow_roots));
  std::unique_ptr<Worker> worker(new Worker(options, std::move(roots)));
  worker->runtime_ = Runtime::Create(options.runtime);
  worker->dispatcher_ = std::make_unique<RpcChannel>(
      worker->rpc_io_, options.dispatcher_address,
      ConnectOptions{.role = ROLE_WORKER, .name = StrCat("worker ", worker->uid_), .token = options.token});
  Worker* self = worker.get();
  SLUICE_ASSIGN_OR_RETURN(
      worker->server_,
      Server::Start({.host = options.host,
                     .port = options.port,
                     .token = options.token,
                     .role = ROLE_WORKER,
                     .name = StrCat("worker ", worker->uid_),
                     .connection = {.write_timeout = options.write_timeout}},
                    [self](std::shared_ptr<Connection> connection) { return self->Serve(std::move(connection)); }));
  worker->heartbeats_ = std::thread([self] { self->HeartbeatLoop(); });
  return worker;
}

Worker::~Worker() { Stop(); }

std::string Worker::address() const {
  return HostPort{.host = options_.advertised_host.empty() ? options_.host : options_.advertised_host,
                  .port = server_->port()}
      .ToString();
}

bool Worker::Sleep(milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return !stop_cv_.wait_for(lock, timeout, [this] { return Stopping(); });
}

void Worker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (auto& [id, task] : tasks_) {
      task->buffer->Cancel();
      task->ready_changed.notify_all();
    }
  }
  stop_cv_.notify_all();
  rpc_io_.Stop();  // ends RPCs in flight at once
  if (heartbeats_.joinable()) heartbeats_.join();
  if (server_ != nullptr) server_->Stop();
  // No thread adds tasks or sessions any more.
  for (auto& [id, task] : tasks_) {
    if (task->thread.joinable()) task->thread.join();
  }
  for (auto& session : sessions_) {
    if (session->thread.joinable()) session->thread.join();
  }
}

void Worker::HeartbeatLoop() {
  do {
    const Status status = Heartbeat();
    if (!status.ok()) SLUICE_LOG(WARNING) << "worker " << uid_ << ": heartbeat: " << status.message();
    std::lock_guard<std::mutex> lock(mu_);
    ReapLocked();
  } while (AwaitNextHeartbeat());
}

void Worker::ReapLocked() {
  std::set<int64_t> read;  // jobs a session still reads
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (!(*it)->done.load()) {
      read.insert((*it)->request.job_id());
      ++it;
      continue;
    }
    (*it)->thread.join();
    it = sessions_.erase(it);
  }
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    Task& task = *it->second;
    if (!task.finished || read.count(it->first) > 0) {
      ++it;
      continue;
    }
    task.thread.join();  // it has put its last item: it ends at once
    retired_jobs_.insert(it->first);
    if (retired_jobs_.size() > kMaxRetiredJobs) retired_jobs_.erase(retired_jobs_.begin());
    it = tasks_.erase(it);
  }
}

size_t Worker::num_tasks() {
  std::lock_guard<std::mutex> lock(mu_);
  return tasks_.size();
}

bool Worker::AwaitNextHeartbeat() {
  std::unique_lock<std::mutex> lock(mu_);
  stop_cv_.wait_for(lock, options_.heartbeat_interval, [this] { return stopping_ || heartbeat_wanted_; });
  heartbeat_wanted_ = false;
  return !stopping_;
}

Status Worker::Heartbeat() {
  Frame request;
  WorkerHeartbeatRequest* heartbeat = request.mutable_worker_heartbeat_request();
  heartbeat->set_worker_uid(uid_);
  heartbeat->set_address(address());
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, task] : tasks_) heartbeat->add_known_job_ids(id);
  }
  SLUICE_ASSIGN_OR_RETURN(Frame answer, dispatcher_->Call(std::move(request), kRpcTimeout));
  if (!answer.has_worker_heartbeat_response()) return InternalError("the dispatcher answered a heartbeat with kind ", answer.kind_case());
  for (const TaskDef& def : answer.worker_heartbeat_response().new_tasks()) {
    auto task = std::make_unique<Task>();
    task->job_id = def.job_id();
    task->seeds = {.seed = def.seed(), .iteration = def.iteration()};
    // Checked first: the task's queues are sized by it.
    const bool consumers_fit = def.num_consumers() >= 0 && def.num_consumers() <= kMaxConsumersPerJob;
    if (!consumers_fit) {
      task->refused = InvalidArgumentError("job ", def.job_id(), " has ", def.num_consumers(),
                                           " consumers, outside [0, ", kMaxConsumersPerJob, "]");
    }
    Result<ProcessingMode> mode = ParseProcessingMode(def.processing_mode());
    if (task->refused.ok() && !mode.ok()) task->refused = mode.status();
    if (mode.ok()) task->mode = *mode;
    // Every worker of a parallel_epochs job runs the whole spec.
    if (task->mode == ProcessingMode::kParallelEpochs && def.seed() != 0) {
      task->seeds.seed = MixSeed(def.seed(), own_seed_);
    }
    if (task->refused.ok() && !task->spec.ParseFromString(def.spec())) {
      task->refused = InvalidArgumentError("job ", def.job_id(), "'s spec does not parse");
    }
    // Paths are checked before the spec is built: building list_files reads directories.
    if (task->refused.ok()) task->refused = roots_.CheckSpec(task->spec);
    if (task->refused.ok()) {
      Result<DatasetPtr> dataset = DatasetFromSpec(task->spec);
      if (dataset.ok()) {
        for (const ComponentSpec& component : (*dataset)->element_spec().components()) {
          task->component_names.push_back(component.name);
        }
      } else {
        task->refused = dataset.status();
      }
    }
    if (!task->refused.ok()) SLUICE_LOG(WARNING) << "worker " << uid_ << ": job " << def.job_id() << ": " << task->refused;
    task->buffer = std::make_unique<TaskBuffer>(consumers_fit ? def.num_consumers() : 0, options_.buffer_bytes);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) break;
    Task* raw = task.get();
    if (raw->refused.ok()) raw->thread = std::thread([this, raw] { RunTask(raw); });
    tasks_.emplace(def.job_id(), std::move(task));
    stop_cv_.notify_all();  // sessions waiting for this job
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const DepartedConsumers& departed : answer.worker_heartbeat_response().departed_consumers()) {
    auto task = tasks_.find(departed.job_id());
    if (task == tasks_.end()) continue;
    for (int64_t consumer : departed.consumer_indices()) task->second->buffer->DropConsumer(consumer);
  }
  return OkStatus();
}

std::optional<GetSplitResponse> Worker::AskForSplit(const Task& task, int64_t last_split_run) {
  Frame request;
  request.mutable_get_split_request()->set_worker_uid(uid_);
  request.mutable_get_split_request()->set_job_id(task.job_id);
  request.mutable_get_split_request()->set_last_split_run(last_split_run);
  Result<Frame> answer = dispatcher_->Call(std::move(request), kRpcTimeout);
  if (!answer.ok() || !answer->has_get_split_response()) {
    if (!answer.ok()) SLUICE_LOG(DEBUG) << "worker " << uid_ << ": GetSplit: " << answer.status().message();
    return std::nullopt;
  }
  return answer->get_split_response();
}

Worker::ReadySplit Worker::PrepareSplit(const Task& task, GetSplitResponse assignment) {
  ReadySplit ready{.assignment = std::move(assignment)};
  const SourceSplit split = SplitFromProto(ready.assignment.split());
  Status allowed = split.kind == SourceSplit::Kind::kFile ? roots_.CheckPath(split.file) : OkStatus();
  Result<DatasetPtr> dataset =
      allowed.ok() ? MakeSplitDataset(task.spec, task.mode, split, ready.assignment.split_id(), task.seeds) : allowed;
  if (!dataset.ok()) {
    ready.failed = dataset.status().WithContext(StrCat("split ", SplitDebugString(split)));
    return ready;
  }
  IteratorContext context;
  context.runtime = runtime_;
  ready.iterator = (*dataset)->MakeIterator(std::move(context));
  ready.first = ready.iterator->GetNext();
  return ready;
}

// The task's thread runs splits while a feeder thread asks for the next
// ones and makes them ready (the dispatcher's answer and the next
// pipeline's start overlap the sending of this one), at most
// kReadySplitsAhead ahead. The feeder asks with last_split_run = the split
// it was handed last: the worker holds every split it was handed, so one
// still assigned to it but not handed lost its answer (dispatcher_state.h).
void Worker::RunTask(Task* task) {
  std::thread feeder([this, task] { FeedSplits(task); });
  for (;;) {
    std::optional<ReadySplit> ready;
    {
      std::unique_lock<std::mutex> lock(mu_);
      task->ready_changed.wait(lock, [&] { return stopping_ || !task->ready.empty() || task->feeder_done; });
      if (stopping_ || task->ready.empty()) break;
      ready = std::move(task->ready.front());
      task->ready.pop_front();
    }
    task->ready_changed.notify_all();  // the feeder may make the next one
    const Status status = RunSplit(task, *ready);
    if (!status.ok()) {
      SLUICE_LOG(WARNING) << "worker " << uid_ << ": split " << ready->assignment.split_id() << ": " << status;
    }
  }
  feeder.join();
  task->buffer->Finish();
  std::lock_guard<std::mutex> lock(mu_);
  task->finished = true;
}

void Worker::FeedSplits(Task* task) {
  int64_t last_split_run = -1;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      task->ready_changed.wait(lock, [&] { return stopping_ || task->ready.size() < kReadySplitsAhead; });
      if (stopping_) break;
    }
    const std::optional<GetSplitResponse> answer = AskForSplit(*task, last_split_run);
    if (!answer.has_value()) {
      Sleep(milliseconds(50));
      continue;
    }
    if (!answer->assigned()) {
      if (answer->job_finished()) break;
      Sleep(milliseconds(20));  // the others' splits may come back
      continue;
    }
    last_split_run = answer->split_id();
    ReadySplit ready = PrepareSplit(*task, *answer);
    std::lock_guard<std::mutex> lock(mu_);
    task->ready.push_back(std::move(ready));
    task->ready_changed.notify_all();
  }
  std::lock_guard<std::mutex> lock(mu_);
  task->feeder_done = true;
  task->ready_changed.notify_all();
}

Status Worker::RunSplit(Task* task, ReadySplit& ready) {
  const int64_t split_id = ready.assignment.split_id();
  task->buffer->BeginSplit(split_id);
  // Consumers of a restored shared job hold the elements before `first`.
  const uint64_t first = ready.assignment.first_index();
  uint64_t index = 0;
  // Items gathered to push together: at once while a session waits for
  // them, else once there are enough (a small element's push would cost
  // more than the element).
  std::vector<TaskItem> pending;
  uint64_t pending_bytes = 0;
  auto add = [&](TaskItem item) {
    pending_bytes += item.bytes;
    pending.push_back(std::move(item));
    if (pending.size() < kRunnerPushItems && pending_bytes < kRunnerPushBytes && !task->buffer->SessionsWaiting()) {
      return true;
    }
    pending_bytes = 0;
    return task->buffer->Push(pending);
  };
  auto add_error = [&](Status error) {
    const uint64_t at = index++;
    if (at < first) return true;
    const uint64_t bytes = TaskItem::ContentBytes(error);
    return add({.kind = TaskItem::Kind::kError,
                .split_id = split_id,
                .index = at,
                .first_index = first,
                .error = std::move(error),
                .bytes = bytes});
  };
  bool running = true;
  if (ready.iterator != nullptr) {
    while (running && !Stopping()) {
      Result<std::optional<Element>> next = ready.first.has_value() ? *std::move(ready.first) : ready.iterator->GetNext();
      ready.first.reset();
      if (!next.ok()) {
        running = add_error(next.status());
        continue;
      }
      if (!next->has_value()) break;
      if (index < first) {
        ++index;
        continue;
      }
      const uint64_t bytes = TaskItem::ContentBytes(**next);
      running = add({.split_id = split_id, .index = index++, .first_index = first, .element = std::move(**next),
                     .bytes = bytes});
    }
  } else {
    running = add_error(ready.failed);
  }
  if (running) {
    pending.push_back({.kind = TaskItem::Kind::kSplitEnd, .split_id = split_id, .index = index, .first_index = first});
    running = task->buffer->Push(pending);
  }
  return running ? OkStatus() : CancelledError("the worker stops");
}

asio::awaitable<void> Worker::Serve(std::shared_ptr<Connection> connection) {
  Result<ReceivedFrame> request = co_await connection->Receive(DeadlineAfter(kDefaultHandshakeTimeout));
  if (!request.ok()) co_return;
  if (!request->frame.has_read_job_request()) {
    co_await connection->Send(ErrorFrame(
        InvalidArgumentError("a worker's element server expects a ReadJobRequest first"), request->frame.call_id()));
    co_return;
  }
  Session* session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) co_return;
    auto owned = std::make_unique<Session>();
    owned->id = next_session_++;
    owned->request = request->frame.read_job_request();
    owned->connection = connection;
    owned->credit_window = connection->sender_credit().elements();
    session = owned.get();
    sessions_.push_back(std::move(owned));
    session->thread = std::thread([this, session] { RunSession(session); });
  }
  // The session thread sends; this coroutine keeps the connection open
  // until the consumer leaves or the server stops.
  for (;;) {
    Result<ReceivedFrame> frame = co_await connection->Receive(Clock::now() + std::chrono::hours(24));
    if (!frame.ok()) break;
  }
}

void Worker::RunSession(Session* session) {
  const int64_t job_id = session->request.job_id();
  Connection& connection = *session->connection;
  // The outbox's waits last while the connection is open: they wait for the
  // consumer's credit, which it grants as it reads, however long it pauses
  // (a write that stalls closes the connection after its write_timeout, and
  // Stop closes every connection). A wait for room looks every kRoomWait
  // whether the dispatcher left the consumer out of its coordinated job.
  const milliseconds write_timeout = connection.options().write_timeout;
  constexpr milliseconds kOutboxWait = kNoTimeout;
  constexpr milliseconds kRoomWait{1000};
  const int64_t consumer_index = session->request.consumer_index();
  Task* task = nullptr;
  bool retired = false;
  {
    std::unique_lock<std::mutex> lock(mu_);
    retired = tasks_.count(job_id) == 0 && retired_jobs_.count(job_id) > 0;
    if (tasks_.count(job_id) == 0 && !retired) {
      // The job is new here: heartbeat now rather than at the next beat.
      heartbeat_wanted_ = true;
      stop_cv_.notify_all();
      stop_cv_.wait_for(lock, kTaskWait, [&] { return stopping_ || tasks_.count(job_id) > 0; });
    }
    if (tasks_.count(job_id) > 0) task = tasks_.at(job_id).get();
    if (task == nullptr && stopping_) {
      // A worker that stops before it learned the job says nothing: its
      // consumer sees the connection close, as when a worker dies, and
      // reads on from the others (an error would fail the consumer).
      session->done = true;
      return;
    }
  }
  if (retired) {
    // The job finished and its task was let go: nothing is left to send.
    ElementOutbox outbox(session->connection);
    (void)SendEndOfStream(outbox, 0, write_timeout);
    session->done = true;
    return;
  }
  Status status = task == nullptr ? NotFoundError("worker ", uid_, " has no job ", job_id) : task->refused;
  if (status.ok() && !Compression_IsValid(session->request.compression())) {
    status = InvalidArgumentError("worker ", uid_, " knows no compression ", session->request.compression());
  }
  if (!status.ok()) {
    (void)connection.SendBlocking(ErrorFrame(status, 0), write_timeout);
    session->done = true;
    return;
  }
  // Elements are encoded while the last ones are written.
  ElementOutbox outbox(session->connection, SessionOutboxFrames(session->credit_window));
  uint64_t stream_index = 0;
  bool ended = false;
  // The splits this session sent any of (uncoordinated reads), by id, the
  // latest kMaxSessionSplits.
  std::deque<int64_t> sent_splits;
  std::vector<TaskItem> items;
  std::vector<OutgoingFrame> frames;
  while (status.ok() && connection.closed().ok()) {
    // No more than the outbox takes, and elements of no more bytes than
    // one of its writes gathers: what a session holds, the job's other
    // consumers cannot read.
    Result<size_t> room = outbox.AwaitRoom(kRoomWait);
    if (!room.ok() && !task->buffer->ConsumerDropped(consumer_index)) {
      if (room.status().code() == StatusCode::kDeadlineExceeded) continue;  // the consumer pauses
      status = room.status();
      break;
    }
    items.clear();
    const TaskBuffer::PopResult popped =
        room.ok() ? task->buffer->Pop(session->id, consumer_index, milliseconds(100),
                                      {.items = *room, .bytes = ElementOutbox::kMaxGatherBytes}, &items)
                  : TaskBuffer::PopResult::kDropped;
    if (popped == TaskBuffer::PopResult::kTimeout) continue;
    if (popped == TaskBuffer::PopResult::kDropped) {
      status = FailedPreconditionError("worker ", uid_, ": consumer ", consumer_index, " of job ", job_id,
                                       " was left out of its coordinated reads (it missed its heartbeats)");
      if (outbox.Send(ErrorFrame(status, 0), write_timeout).ok()) (void)outbox.Flush(write_timeout);
      break;
    }
    if (popped == TaskBuffer::PopResult::kEnd) {
      status = SendEndOfStream(outbox, stream_index, kOutboxWait);
      ended = status.ok();
      break;
    }
    frames.clear();
    for (TaskItem& item : items) {
      if (task->buffer->num_consumers() == 0 && (sent_splits.empty() || sent_splits.back() != item.split_id)) {
        sent_splits.push_back(item.split_id);
        if (sent_splits.size() > kMaxSessionSplits) sent_splits.pop_front();
      }
      Result<OutgoingFrame> frame = ItemFrame(std::move(item), session->request.compression(), task->component_names);
      if (!frame.ok()) {
        status = frame.status();
        break;
      }
      if (EncodedElement* element = std::get_if<EncodedElement>(&*frame)) {
        element->header.set_index(stream_index++);
      }
      frames.push_back(*std::move(frame));
    }
    // What was encoded before a failure still goes.
    const Status sent = outbox.SendFrames(std::move(frames), kOutboxWait);
    if (status.ok()) status = sent;
  }
  task->buffer->Release(session->id);
  if (!ended && !sent_splits.empty() && !Stopping()) {
    ReturnSplits(job_id, std::vector<int64_t>(sent_splits.begin(), sent_splits.end()));
  }
  session->done = true;
}

void Worker::ReturnSplits(int64_t job_id, const std::vector<int64_t>& split_ids) {
  Frame request;
  ReturnSplitsRequest* splits = request.mutable_return_splits_request();
  splits->set_worker_uid(uid_);
  splits->set_job_id(job_id);
  for (int64_t split_id : split_ids) splits->add_split_ids(split_id);
  // The dispatcher may be restarting: retried for a while, then the splits
  // stay with this worker until it leaves.
  for (int attempt = 0; attempt < 10; ++attempt) {
    const Result<Frame> answer = dispatcher_->Call(request, kRpcTimeout);
    if (answer.ok()) return;
    SLUICE_LOG(DEBUG) << "worker " << uid_ << ": ReturnSplits: " << answer.status().message();
    if (!Sleep(milliseconds(100))) return;
  }
  SLUICE_LOG(WARNING) << "worker " << uid_ << ": could not give back " << split_ids.size() << " split(s) of job "
                      << job_id << " whose consumer left";
}

}  // namespace sluice::service

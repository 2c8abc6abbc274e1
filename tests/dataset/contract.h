// The contract battery every dataset op's test runs, and small helpers to
// build elements and reference sequences. Each op's test compares its
// output against an eager std::vector reference (habit 16), checks its
// element spec and cardinality, its invalid arguments, an error mid-stream
// and early destruction.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <set>
#include <thread>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/pipeline.h"

namespace sluice::testing {

// A scalar int64 element, and lists of them.
inline Element Int(int64_t v) { return Element{Tensor::Scalar<int64_t>(v)}; }
inline std::vector<Element> Ints(std::initializer_list<int64_t> values) {
  std::vector<Element> out;
  for (int64_t v : values) out.push_back(Int(v));
  return out;
}
inline std::vector<Element> IntRange(int64_t begin, int64_t end) {
  std::vector<Element> out;
  for (int64_t v = begin; v < end; ++v) out.push_back(Int(v));
  return out;
}
// Scalar string elements.
inline std::vector<Element> Strings(const std::vector<std::string>& values) {
  std::vector<Element> out;
  for (const std::string& v : values) out.push_back(Element{Tensor::Scalar(v)});
  return out;
}
// A rank-1 int64 tensor.
inline Tensor Vec(std::vector<int64_t> values) { return Tensor::FromVector(values); }

// One-component elements, each a rank-1 int64 tensor of one row's values.
inline std::vector<Element> VecElements(const std::vector<std::vector<int64_t>>& rows) {
  std::vector<Element> out;
  for (const auto& row : rows) out.push_back(Element{Vec(row)});
  return out;
}

// The scalar int64 values of one-component elements (for order checks).
inline std::vector<int64_t> Values(const std::vector<Element>& elements) {
  std::vector<int64_t> out;
  for (const Element& e : elements) out.push_back(e[0].scalar<int64_t>());
  return out;
}

inline DatasetPtr Build(const Pipeline& pipeline) {
  const Result<DatasetPtr>& dataset = pipeline.Build();
  EXPECT_TRUE(dataset.ok()) << dataset.status();
  return dataset.ok() ? *dataset : nullptr;
}

// Reads up to `limit` elements; fails the test on an error.
inline std::vector<Element> Collect(const DatasetPtr& dataset, size_t limit = 1'000'000) {
  std::vector<Element> out;
  auto it = dataset->MakeIterator();
  while (out.size() < limit) {
    Result<std::optional<Element>> next = it->GetNext();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || !next->has_value()) break;
    out.push_back(std::move(**next));
  }
  return out;
}
inline std::vector<Element> Collect(const Pipeline& pipeline, size_t limit = 1'000'000) {
  return Collect(Build(pipeline), limit);
}

// Each result of GetNext until end of sequence: the element, or the error.
inline std::vector<Result<Element>> CollectResults(Iterator& it, size_t limit = 10'000) {
  std::vector<Result<Element>> out;
  while (out.size() < limit) {
    Result<std::optional<Element>> next = it.GetNext();
    if (!next.ok()) {
      out.push_back(next.status());
      continue;
    }
    if (!next->has_value()) break;
    out.push_back(std::move(**next));
  }
  return out;
}
// Every element until end of sequence, or the first error.
inline Result<std::vector<Element>> CollectAll(Iterator& it) {
  std::vector<Element> out;
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> next, it.GetNext());
    if (!next) return out;
    out.push_back(std::move(*next));
  }
}
inline std::vector<Result<Element>> CollectResults(const DatasetPtr& dataset, size_t limit = 10'000) {
  return CollectResults(*dataset->MakeIterator(), limit);
}

inline void ExpectElementsEqual(const std::vector<Element>& actual, const std::vector<Element>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_TRUE(actual[i].Equals(expected[i])) << "element " << i << ": got " << actual[i] << ", expected "
                                               << expected[i];
  }
}

// The dataset produces exactly `expected`, on two separate iterators, every
// element matches the dataset's spec, and a known cardinality matches the
// count.
inline void ExpectProduces(const DatasetPtr& dataset, const std::vector<Element>& expected) {
  ASSERT_NE(dataset, nullptr);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<Element> actual = Collect(dataset, expected.size() + 10);
    ExpectElementsEqual(actual, expected);
    for (const Element& e : actual) {
      Status status = dataset->element_spec().Check(e);
      EXPECT_TRUE(status.ok()) << status;
    }
  }
  if (dataset->cardinality() >= 0) {
    EXPECT_EQ(dataset->cardinality(), static_cast<int64_t>(expected.size()));
  }
}
inline void ExpectProduces(const Pipeline& pipeline, const std::vector<Element>& expected) {
  ExpectProduces(Build(pipeline), expected);
}

// Reading elements through GetNextRun (as batch does) gives the same
// elements as GetNext.
inline void ExpectRunsMatchElements(const DatasetPtr& dataset, int64_t max_rows) {
  std::vector<Element> expected = Collect(dataset);
  std::vector<Element> actual;
  auto it = dataset->MakeIterator();
  while (true) {
    Result<std::optional<Element>> run = it->GetNextRun(max_rows);
    ASSERT_TRUE(run.ok()) << run.status();
    if (!run->has_value()) break;
    const int64_t rows = (**run)[0].dim(0);
    ASSERT_GE(rows, 1);
    ASSERT_LE(rows, max_rows);
    for (int64_t r = 0; r < rows; ++r) {
      Element row;
      for (const Tensor& t : (**run).components) row.components.push_back(t.Row(r));
      actual.push_back(row);
    }
  }
  ExpectElementsEqual(actual, expected);
}

// The value of a Result that must be OK.
template <typename T>
T Ok(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status();
  return std::move(result).value();
}

// A status with exactly this code and message.
inline void ExpectStatus(const Status& status, StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_EQ(status.message(), message);
}

inline void ExpectError(const Result<DatasetPtr>& result, StatusCode code, const std::string& substring) {
  ASSERT_FALSE(result.ok()) << "expected an error containing '" << substring << "'";
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_NE(result.status().message().find(substring), std::string::npos) << result.status();
}
inline void ExpectError(const Pipeline& pipeline, StatusCode code, const std::string& substring) {
  ExpectError(pipeline.Build(), code, substring);
}

// range(n) whose elements at `failing` positions are InvalidArgument errors
// ("element <i> failed"): the mid-stream error source of the battery.
inline Pipeline FailingRange(int64_t n, std::set<int64_t> failing) {
  return Pipeline::Range(n).Map([failing](Element e) -> Result<Element> {
    const int64_t v = e[0].scalar<int64_t>();
    if (failing.count(v)) return InvalidArgumentError("element ", v, " failed");
    return e;
  });
}

// Checks that an error result is the mid-stream error of element v.
inline void ExpectFailedElement(const Result<Element>& result, int64_t v) {
  ASSERT_FALSE(result.ok()) << "expected element " << v << " to fail";
  EXPECT_NE(result.status().message().find(StrCat("element ", v, " failed")), std::string::npos)
      << result.status();
}

// Reads `consume` elements, then destroys the iterator; must return
// promptly (bounded), whatever workers are running.
inline void ExpectEarlyDestructionIsClean(const DatasetPtr& dataset, int consume) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto it = dataset->MakeIterator();
    for (int i = 0; i < consume + attempt; ++i) {
      auto next = it->GetNext();
      if (next.ok() && !next->has_value()) break;
    }
    const auto start = std::chrono::steady_clock::now();
    it.reset();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_LT(elapsed, std::chrono::seconds(5)) << "destroying the iterator took too long";
  }
}

// Two result sequences are equal: the same elements, and the same errors.
inline void ExpectSameResults(const std::vector<Result<Element>>& actual,
                              const std::vector<Result<Element>>& expected, const std::string& where) {
  ASSERT_EQ(actual.size(), expected.size()) << where;
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_EQ(actual[i].ok(), expected[i].ok()) << where << ", result " << i << ": " << actual[i].status();
    if (actual[i].ok()) {
      EXPECT_TRUE(actual[i]->Equals(*expected[i]))
          << where << ", element " << i << ": got " << *actual[i] << ", expected " << *expected[i];
    } else {
      EXPECT_EQ(actual[i].status().ToString(), expected[i].status().ToString()) << where << ", result " << i;
    }
  }
}

// For every k from 0 to past the end: read k results, save, read the rest
// (the reference); a fresh iterator restored from the state, of the same
// dataset and of the pipeline built anew (as in a resumed process), reads
// exactly the same rest.
inline void ExpectResumesEverywhere(const std::function<Pipeline()>& make) {
  const DatasetPtr dataset = Build(make());
  ASSERT_NE(dataset, nullptr);
  const size_t total = [&] {
    auto it = dataset->MakeIterator();
    return CollectResults(*it).size();
  }();
  ASSERT_GT(total, 0u);
  for (size_t k = 0; k <= total + 1; ++k) {
    auto it = dataset->MakeIterator();
    for (size_t i = 0; i < k; ++i) (void)it->GetNext();
    Result<std::string> state = SaveIteratorState(*it);
    ASSERT_TRUE(state.ok()) << state.status();
    const std::vector<Result<Element>> expected = CollectResults(*it);

    auto same = dataset->MakeIterator();
    ASSERT_TRUE(RestoreIteratorState(*same, *state).ok()) << "k=" << k;
    ExpectSameResults(CollectResults(*same), expected, StrCat("same dataset, k=", k));

    const DatasetPtr rebuilt = Build(make());
    auto resumed = rebuilt->MakeIterator();
    Status restored = RestoreIteratorState(*resumed, *state);
    ASSERT_TRUE(restored.ok()) << "k=" << k << ": " << restored;
    ExpectSameResults(CollectResults(*resumed), expected, StrCat("rebuilt pipeline, k=", k));
  }
}

}  // namespace sluice::testing

// WordPiece tokenisation throughput, one thread (so MB/s per core), side by
// side in one run, as medians of --runs runs over English text:
//
//   kernel      WordpieceTokenizer::Tokenize over all words at once
//               (ops/wordpiece.h), ids out
//   reference   the same greedy longest-match-first algorithm as tf.text's
//               wordpiece_tokenizer.cc writes it: each candidate piece
//               built as a string ("##" + piece) and looked up in an
//               unordered_map<std::string, int64>; the same input tensor
//   pipeline    the bound split_whitespace then wordpiece functions applied
//               to each line (scalar string) in turn, as map runs them
//
// MB/s counts the input text's bytes. The text: every file of --text_dir
// (Debian's /usr/share/common-licenses by default), lowercased, repeated to
// --megabytes. The vocabulary, BERT-sized (--vocabulary tokens, 30,000 by
// default), is built at run time from that text: every character and
// "##"-character, the more frequent half of its distinct words, then the
// most frequent word prefixes and "##" word-internal pieces of 2-8 bytes,
// as many as the text has up to the size asked for. Words are tokenized in
// runs of --chunk (256), as a map over batches of words would; the kernel
// and the reference must produce the same ids (checked before timing).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "sluice/dataset/text_functions.h"
#include "sluice/ops/wordpiece.h"

namespace sluice {
namespace {

struct Flags {
  std::string text_dir = "/usr/share/common-licenses";
  int64_t megabytes = 8;
  int64_t vocabulary = 30000;
  int runs = 5;
  int64_t chunk = 256;
};

std::string ReadCorpus(const Flags& flags) {
  std::string text;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(flags.text_dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    text += bytes.str();
  }
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text.empty()) {
    std::fprintf(stderr, "wordpiece_bench: no text in %s\n", flags.text_dir.c_str());
    std::exit(1);
  }
  std::string corpus;
  while (corpus.size() < static_cast<size_t>(flags.megabytes) << 20) corpus += text;
  return corpus;
}

std::vector<std::string> Split(const std::string& text, bool lines) {
  std::vector<std::string> out;
  std::string current;
  for (char c : text) {
    const bool cut = lines ? c == '\n' : std::isspace(static_cast<unsigned char>(c)) != 0;
    if (!cut) {
      current += c;
    } else if (!current.empty()) {
      out.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

// Tokens by descending count (ties by token), appended until `limit`.
void AddByFrequency(const std::map<std::string, int64_t>& counts, size_t limit, std::vector<std::string>& vocabulary,
                    std::set<std::string>& seen) {
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const auto& [token, count] : counts) ranked.push_back({-count, token});
  std::sort(ranked.begin(), ranked.end());
  for (const auto& [count, token] : ranked) {
    if (vocabulary.size() >= limit) return;
    if (seen.insert(token).second) vocabulary.push_back(token);
  }
}

std::vector<std::string> BuildVocabulary(const std::vector<std::string>& words, size_t size) {
  std::vector<std::string> vocabulary = {"[UNK]"};
  std::set<std::string> seen(vocabulary.begin(), vocabulary.end());
  std::map<std::string, int64_t> chars, whole, pieces;
  for (const std::string& word : words) {
    for (char c : word) {
      ++chars[std::string(1, c)];
      ++chars["##" + std::string(1, c)];
    }
    ++whole[word];
  }
  AddByFrequency(chars, size, vocabulary, seen);
  // Half the distinct words whole (the frequent ones), so that the rare
  // half is cut into pieces, as a BERT vocabulary cuts rare words.
  AddByFrequency(whole, vocabulary.size() + whole.size() / 2, vocabulary, seen);
  for (const auto& [word, count] : whole) {
    for (size_t length = 2; length <= 8 && length < word.size(); ++length) {
      ++pieces[word.substr(0, length)];
      for (size_t start = 1; start + length <= word.size(); ++start) ++pieces["##" + word.substr(start, length)];
    }
  }
  AddByFrequency(pieces, size, vocabulary, seen);
  return vocabulary;
}

// tf.text's loop: a candidate string per try.
class ReferenceWordpiece {
 public:
  explicit ReferenceWordpiece(const std::vector<std::string>& vocabulary) {
    for (size_t i = 0; i < vocabulary.size(); ++i) ids_.emplace(vocabulary[i], static_cast<int64_t>(i));
    unknown_ = ids_.at("[UNK]");
  }
  void Tokenize(std::string_view word, std::vector<int64_t>& out) const {
    const size_t begin = out.size();
    if (word.size() > 100) {
      out.push_back(unknown_);
      return;
    }
    for (size_t start = 0; start < word.size();) {
      size_t end = word.size();
      int64_t id = -1;
      for (; end > start; --end) {
        const std::string candidate =
            start > 0 ? StrCat("##", word.substr(start, end - start)) : std::string(word.substr(0, end));
        auto it = ids_.find(candidate);
        if (it != ids_.end()) {
          id = it->second;
          break;
        }
      }
      if (id < 0) {
        out.resize(begin);
        out.push_back(unknown_);
        return;
      }
      out.push_back(id);
      start = end;
    }
  }

 private:
  std::unordered_map<std::string, int64_t> ids_;
  int64_t unknown_ = 0;
};

template <typename Fn>
double MedianSeconds(int runs, Fn fn) {
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

int Run(const Flags& flags) {
  const std::string corpus = ReadCorpus(flags);
  const std::vector<std::string> words = Split(corpus, /*lines=*/false);
  const std::vector<std::string> lines = Split(corpus, /*lines=*/true);
  const std::vector<std::string> vocabulary = BuildVocabulary(words, static_cast<size_t>(flags.vocabulary));
  std::string vocabulary_text;
  for (const std::string& token : vocabulary) vocabulary_text += token + "\n";
  const std::string vocabulary_file = std::filesystem::temp_directory_path() / "sluice_wordpiece_bench_vocab.txt";
  std::ofstream(vocabulary_file, std::ios::binary) << vocabulary_text;

  auto table = Vocabulary::From(vocabulary_text, "benchmark vocabulary");
  if (!table.ok()) return std::fprintf(stderr, "%s\n", table.status().ToString().c_str()), 1;
  auto tokenizer = WordpieceTokenizer::Make(*table, {});
  if (!tokenizer.ok()) return std::fprintf(stderr, "%s\n", tokenizer.status().ToString().c_str()), 1;
  const ReferenceWordpiece reference(vocabulary);
  const Tensor word_tensor = Tensor::FromVector(words);
  std::vector<Tensor> line_tensors;
  int64_t line_bytes = 0;
  for (const std::string& line : lines) {
    line_tensors.push_back(Tensor::Scalar(line));
    line_bytes += static_cast<int64_t>(line.size());
  }
  int64_t word_bytes = 0;
  for (const std::string& word : words) word_bytes += static_cast<int64_t>(word.size());

  // Same ids from both, before any timing.
  Result<Wordpieces> ours = tokenizer->Tokenize(word_tensor, {.ids = true});
  std::vector<int64_t> theirs;
  for (const std::string& word : words) reference.Tokenize(word, theirs);
  if (!ours.ok() || ours->ids.NumElements() != static_cast<int64_t>(theirs.size()) ||
      !std::equal(theirs.begin(), theirs.end(), ours->ids.data<int64_t>())) {
    std::fprintf(stderr, "wordpiece_bench: the kernel and the reference disagree\n");
    return 1;
  }
  const int64_t pieces = static_cast<int64_t>(theirs.size());

  auto split = MakeSplitWhitespaceFunction("");
  auto wordpiece = MakeWordpieceFunction("", {.vocabulary_file = vocabulary_file});
  if (!split.ok() || !wordpiece.ok()) return std::fprintf(stderr, "cannot make the functions\n"), 1;
  auto bound_split = (*split)->Bind(ElementSpec{{"", DType::kString, Shape{}}});
  auto bound_wordpiece = (*wordpiece)->Bind(bound_split->output_spec);
  if (!bound_split.ok() || !bound_wordpiece.ok()) return std::fprintf(stderr, "cannot bind the functions\n"), 1;

  const int64_t n = word_tensor.dim(0);
  const double kernel = MedianSeconds(flags.runs, [&] {
    for (int64_t begin = 0; begin < n; begin += flags.chunk) {
      if (!tokenizer->Tokenize(word_tensor.Slice(begin, std::min(n, begin + flags.chunk)), {.ids = true}).ok()) {
        std::abort();
      }
    }
  });
  const TString* word_strings = word_tensor.data<TString>();
  const double ref = MedianSeconds(flags.runs, [&] {
    std::vector<int64_t> ids;
    for (int64_t begin = 0; begin < n; begin += flags.chunk) {
      ids.clear();
      for (int64_t w = begin; w < std::min(n, begin + flags.chunk); ++w) {
        reference.Tokenize(std::string_view(word_strings[w].data(), word_strings[w].size()), ids);
      }
    }
  });
  const double pipeline = MedianSeconds(flags.runs, [&] {
    for (const Tensor& line : line_tensors) {
      Result<Element> tokens = bound_split->apply(Element{line});
      if (!tokens.ok() || !bound_wordpiece->apply(*std::move(tokens)).ok()) std::abort();
    }
  });
  std::filesystem::remove(vocabulary_file);

  std::printf("text: %.1f MB (%zu words, %zu lines, %lld pieces), vocabulary %zu tokens, 1 thread, median of %d\n",
              static_cast<double>(corpus.size()) / 1e6, words.size(), lines.size(), static_cast<long long>(pieces),
              vocabulary.size(), flags.runs);
  std::printf("%-10s %10s %14s %10s\n", "row", "MB/s", "Mpieces/s", "vs ref");
  auto row = [&](const char* name, double seconds, int64_t bytes) {
    std::printf("%-10s %10.1f %14.2f %9.2fx\n", name, static_cast<double>(bytes) / seconds / 1e6,
                static_cast<double>(pieces) / seconds / 1e6, ref / seconds);
  };
  row("kernel", kernel, word_bytes);
  row("reference", ref, word_bytes);
  row("pipeline", pipeline, line_bytes);
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::Flags flags;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i], value = argv[i + 1];
    if (name == "--text_dir") {
      flags.text_dir = value;
    } else if (name == "--megabytes") {
      flags.megabytes = std::max<int64_t>(1, std::atoll(value.c_str()));
    } else if (name == "--vocabulary") {
      flags.vocabulary = std::max<int64_t>(100, std::atoll(value.c_str()));
    } else if (name == "--chunk") {
      flags.chunk = std::max<int64_t>(1, std::atoll(value.c_str()));
    } else if (name == "--runs") {
      flags.runs = std::max(1, std::atoi(value.c_str()));
    } else {
      std::fprintf(stderr, "usage: wordpiece_bench [--text_dir DIR] [--megabytes N] [--vocabulary N] [--chunk N] [--runs N]\n");
      return 2;
    }
  }
  return sluice::Run(flags);
}

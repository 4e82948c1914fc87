//===- FuzzReplayMain.cpp - A deterministic driver for the fuzz targets ---===//
//
// Links with a fuzz target (FuzzTargets.cpp) where libFuzzer is not
// available (GCC builds) and for the ctest slices:
//
//   kiln-fuzz-<target> [--runs=N] [--seed=S] [--split='// -----'] SEED...
//
// runs the target on every seed file (or every file of a seed directory;
// with --split, on every chunk of a file between separator lines), then on
// N inputs made from the seeds by byte-level mutations drawn from a
// mt19937_64 seeded with S: bit flips, interesting bytes and numbers,
// inserted, erased, duplicated or swapped spans, and splices of two seeds.
// The same S and seeds give the same inputs on every machine. When the
// target crashes or aborts, the input it was running is written to
// `kiln-fuzz-crash-<target>` in the working directory (a signal handler),
// and the process dies with the signal: rerun the target on that file to
// reproduce it, here or under libFuzzer. Prints the number of inputs run.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {
/// The input being run, for the crash handler.
const std::string *currentInput = nullptr;
std::string crashFile;

void writeCurrentInput(void *) {
  if (!currentInput)
    return;
  if (FILE *file = std::fopen(crashFile.c_str(), "wb")) {
    std::fwrite(currentInput->data(), 1, currentInput->size(), file);
    std::fclose(file);
    std::fprintf(stderr, "kiln-fuzz: the crashing input is in %s\n",
                 crashFile.c_str());
  }
}

void run(const std::string &input) {
  currentInput = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(input.data()),
                         input.size());
  currentInput = nullptr;
}

/// Adds the seeds of `path`: the file, or every file of a directory (not
/// recursively), split into chunks at lines equal to `split`.
bool addSeeds(llvm::StringRef path, llvm::StringRef split,
              std::vector<std::string> &seeds) {
  if (llvm::sys::fs::is_directory(path)) {
    std::error_code ec;
    std::vector<std::string> files;
    for (llvm::sys::fs::directory_iterator it(path, ec), end;
         it != end && !ec; it.increment(ec))
      if (llvm::sys::fs::is_regular_file(it->path()))
        files.push_back(it->path());
    if (ec) {
      llvm::errs() << "kiln-fuzz: cannot list '" << path
                   << "': " << ec.message() << "\n";
      return false;
    }
    llvm::sort(files);
    for (const std::string &file : files)
      if (!addSeeds(file, split, seeds))
        return false;
    return true;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer) {
    llvm::errs() << "kiln-fuzz: cannot read '" << path
                 << "': " << buffer.getError().message() << "\n";
    return false;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  if (split.empty()) {
    seeds.push_back(text.str());
    return true;
  }
  std::string chunk;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    if (line.trim() == split) {
      seeds.push_back(std::move(chunk));
      chunk.clear();
      continue;
    }
    chunk += line.str() + "\n";
  }
  seeds.push_back(std::move(chunk));
  return true;
}

/// Byte-level mutations of the seeds, as libFuzzer's default mutators do.
class Mutator {
public:
  Mutator(uint64_t seed, const std::vector<std::string> &seeds)
      : engine(seed), seeds(seeds) {}

  std::string next() {
    std::string input = seeds[below(seeds.size())];
    unsigned count = 1 + below(4);
    for (unsigned i = 0; i < count; ++i)
      mutate(input);
    return input;
  }

private:
  size_t below(size_t n) { return n ? engine() % n : 0; }

  void mutate(std::string &s) {
    static const char *const kNumbers[] = {
        "0",  "-1", "1",  "2147483648", "9223372036854775807",
        "-9223372036854775808", "18446744073709551616", "1e308", "nan"};
    // Inserted tokens: the numbers, then these.
    static const char *const kTokens[] = {
        "inf", "?", "x", ":", ",", "[", "]", "{", "}", "<", ">", "\"",
        "tensor<", "f16", "bf16", "i1", "i64", "0x0", "dense<", "null",
        "true", "false", "\\u0000"};
    size_t pos = below(s.size() + 1);
    switch (below(8)) {
    case 0: // Flip a bit.
      if (!s.empty())
        s[below(s.size())] ^= char(1u << below(8));
      break;
    case 1: // A random byte.
      if (!s.empty())
        s[below(s.size())] = char(below(256));
      break;
    case 2: { // Insert an interesting token.
      size_t k = below(std::size(kNumbers) + std::size(kTokens));
      const char *token = k < std::size(kNumbers)
                              ? kNumbers[k]
                              : kTokens[k - std::size(kNumbers)];
      s.insert(pos, token);
      break;
    }
    case 3: // Erase a span.
      if (!s.empty())
        s.erase(below(s.size()), 1 + below(16));
      break;
    case 4: { // Duplicate a span.
      if (s.empty())
        break;
      size_t from = below(s.size());
      std::string span = s.substr(from, 1 + below(32));
      s.insert(pos, span);
      break;
    }
    case 5: { // Swap two spans.
      if (s.size() < 4)
        break;
      size_t a = below(s.size() / 2), b = s.size() / 2 + below(s.size() / 2);
      size_t n = std::min<size_t>(1 + below(16), std::min(b - a, s.size() - b));
      for (size_t i = 0; i < n; ++i)
        std::swap(s[a + i], s[b + i]);
      break;
    }
    case 6: { // Change a number.
      size_t start = pos;
      while (start < s.size() && !llvm::isDigit(s[start]))
        ++start;
      size_t end = start;
      while (end < s.size() && llvm::isDigit(s[end]))
        ++end;
      if (start < s.size())
        s.replace(start, end - start, kNumbers[below(std::size(kNumbers))]);
      break;
    }
    default: { // Splice with another seed.
      const std::string &other = seeds[below(seeds.size())];
      size_t from = below(other.size() + 1);
      s = s.substr(0, pos) + other.substr(from);
      break;
    }
    }
    // Keep inputs small: a fuzzer explores faster on them.
    if (s.size() > (1u << 16))
      s.resize(1u << 16);
  }

  std::mt19937_64 engine;
  const std::vector<std::string> &seeds;
};
} // namespace

int main(int argc, char **argv) {
  llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
  uint64_t runs = 0, seed = 0;
  std::string split;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--runs=")) {
      if (arg.getAsInteger(10, runs)) {
        llvm::errs() << "kiln-fuzz: --runs needs a number\n";
        return 1;
      }
    } else if (arg.consume_front("--seed=")) {
      if (arg.getAsInteger(10, seed)) {
        llvm::errs() << "kiln-fuzz: --seed needs a number\n";
        return 1;
      }
    } else if (arg.consume_front("--split=")) {
      split = arg.str();
    } else if (arg.starts_with("-")) {
      llvm::errs() << "kiln-fuzz: unknown option '" << arg << "'\n";
      return 1;
    } else if (!addSeeds(arg, split, seeds)) {
      return 1;
    }
  }
  if (seeds.empty()) {
    llvm::errs() << "kiln-fuzz: no seed inputs\n";
    return 1;
  }
  crashFile = "kiln-fuzz-crash-" +
              llvm::sys::path::filename(argv[0]).str();
  llvm::sys::AddSignalHandler(writeCurrentInput, nullptr);
  for (const std::string &input : seeds)
    run(input);
  Mutator mutator(seed, seeds);
  for (uint64_t i = 0; i < runs; ++i)
    run(mutator.next());
  llvm::outs() << "kiln-fuzz: " << seeds.size() << " seeds and " << runs
               << " mutants ran without a crash\n";
  return 0;
}

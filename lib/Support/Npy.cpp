//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//

#include "kiln/Support/Npy.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::kiln;

static constexpr StringLiteral kMagic("\x93NUMPY");

static llvm::Error npyError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Maps a NumPy `descr` string to a dtype.
static llvm::Expected<DType> parseDescr(StringRef descr) {
  if (descr.size() < 2)
    return npyError("unknown dtype '" + descr + "'");
  char order = descr.front();
  StringRef kind = descr.drop_front();
  if (order == '>' && kind != "b1" && kind != "i1")
    return npyError("dtype '" + descr +
                    "' is big-endian; only little-endian data is supported");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    return npyError("unknown dtype '" + descr + "'");
  std::optional<DType> dtype = llvm::StringSwitch<std::optional<DType>>(kind)
                                   .Case("f2", DType::F16)
                                   .Case("V2", DType::BF16)
                                   .Case("f4", DType::F32)
                                   .Case("f8", DType::F64)
                                   .Case("b1", DType::I1)
                                   .Case("i1", DType::I8)
                                   .Case("i4", DType::I32)
                                   .Case("i8", DType::I64)
                                   .Default(std::nullopt);
  if (!dtype)
    return npyError("unsupported dtype '" + descr +
                    "' (kiln reads f2, f4, f8, b1, i1, i4, i8 and V2 as bf16)");
  return *dtype;
}

/// Returns the `descr` of a dtype.
static StringRef getDescr(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "<V2";
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::I1:
    return "|b1";
  case DType::I8:
    return "|i1";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  }
  llvm_unreachable("unknown dtype");
}

namespace {
/// A tiny parser for the header dict literal, e.g.
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : rest(text) {}

  llvm::Error parse(std::string &descr, bool &fortranOrder,
                    SmallVectorImpl<int64_t> &shape) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    if (!consume('{'))
      return npyError("header is not a dict literal");
    while (!consume('}')) {
      std::string key;
      if (!parseString(key))
        return npyError("header has a malformed key");
      if (!consume(':'))
        return npyError("header has no ':' after key '" + key + "'");
      if (key == "descr") {
        if (!parseString(descr))
          return npyError("header 'descr' is not a string (structured "
                          "dtypes are not supported)");
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (consumeWord("True"))
          fortranOrder = true;
        else if (consumeWord("False"))
          fortranOrder = false;
        else
          return npyError("header 'fortran_order' is not True or False");
        haveOrder = true;
      } else if (key == "shape") {
        if (llvm::Error error = parseShape(shape))
          return error;
        haveShape = true;
      } else {
        return npyError("header has an unknown key '" + key + "'");
      }
      if (!consume(',')) {
        if (!consume('}'))
          return npyError("header dict is not terminated");
        break;
      }
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return npyError("header lacks one of 'descr', 'fortran_order', 'shape'");
    skipSpace();
    if (!rest.empty())
      return npyError("header has trailing characters after the dict");
    return llvm::Error::success();
  }

private:
  void skipSpace() { rest = rest.ltrim(" \t\n"); }

  bool consume(char c) {
    skipSpace();
    if (!rest.starts_with(StringRef(&c, 1)))
      return false;
    rest = rest.drop_front();
    return true;
  }

  bool consumeWord(StringRef word) {
    skipSpace();
    return rest.consume_front(word);
  }

  bool parseString(std::string &out) {
    skipSpace();
    if (rest.empty() || (rest.front() != '\'' && rest.front() != '"'))
      return false;
    char quote = rest.front();
    size_t end = rest.find(quote, 1);
    if (end == StringRef::npos)
      return false;
    out = rest.slice(1, end).str();
    rest = rest.drop_front(end + 1);
    return true;
  }

  llvm::Error parseShape(SmallVectorImpl<int64_t> &shape) {
    if (!consume('('))
      return npyError("header 'shape' is not a tuple");
    while (!consume(')')) {
      skipSpace();
      size_t digits = rest.find_first_not_of("0123456789");
      if (digits == 0 || rest.empty())
        return npyError("header 'shape' holds a non-integer dimension");
      uint64_t dim;
      if (rest.take_front(digits).getAsInteger(10, dim) ||
          dim > uint64_t(INT64_MAX))
        return npyError("header 'shape' holds a dimension out of range");
      rest = rest.drop_front(std::min(digits, rest.size()));
      // Python longs may carry an `L` suffix in files written by Python 2.
      rest.consume_front("L");
      shape.push_back(int64_t(dim));
      if (!consume(',')) {
        if (!consume(')'))
          return npyError("header 'shape' tuple is not terminated");
        break;
      }
    }
    return llvm::Error::success();
  }

  StringRef rest;
};
} // namespace

namespace {
/// What the header of a .npy file declares: the data's type and where it
/// starts.
struct NpyLayout {
  DType dtype;
  SmallVector<int64_t> shape;
  size_t dataOffset;
  uint64_t dataBytes;
};
} // namespace

namespace {
/// Where the header of a .npy file starts and how long it is.
struct NpyPreamble {
  size_t headerOffset;
  size_t headerLength;
};
} // namespace

/// The longest preamble: the magic string, the version and a 4-byte header
/// length (versions 2 and 3; version 1 has 2 bytes).
static constexpr size_t kMaxPreambleBytes = kMagic.size() + 2 + 4;

/// Parses the magic string, the version and the header length of `bytes`,
/// which need not hold the header.
static llvm::Expected<NpyPreamble> parsePreamble(StringRef bytes) {
  if (!bytes.starts_with(kMagic))
    return npyError("not a .npy file (bad magic string)");
  if (bytes.size() < kMagic.size() + 2)
    return npyError("truncated .npy file: no version");
  unsigned major = uint8_t(bytes[kMagic.size()]);
  size_t offset = kMagic.size() + 2;
  if (major == 1) {
    if (bytes.size() < offset + 2)
      return npyError("truncated .npy file: no header length");
    return NpyPreamble{offset + 2,
                       llvm::support::endian::read16le(bytes.data() + offset)};
  }
  if (major == 2 || major == 3) {
    if (bytes.size() < offset + 4)
      return npyError("truncated .npy file: no header length");
    return NpyPreamble{offset + 4,
                       llvm::support::endian::read32le(bytes.data() + offset)};
  }
  return npyError("unsupported .npy format version " + Twine(major) + "." +
                  Twine(unsigned(uint8_t(bytes[kMagic.size() + 1]))));
}

/// Parses the magic string, version and header of `bytes`, which need not
/// hold the data.
static llvm::Expected<NpyLayout> parseLayout(StringRef bytes) {
  llvm::Expected<NpyPreamble> preamble = parsePreamble(bytes);
  if (!preamble)
    return preamble.takeError();
  size_t offset = preamble->headerOffset;
  size_t headerLength = preamble->headerLength;
  if (bytes.size() - offset < headerLength)
    return npyError("truncated .npy file: header of " + Twine(headerLength) +
                    " bytes, " + Twine(bytes.size() - offset) + " left");
  StringRef header = bytes.substr(offset, headerLength);
  offset += headerLength;

  std::string descr;
  bool fortranOrder = false;
  SmallVector<int64_t> shape;
  if (llvm::Error error =
          HeaderParser(header).parse(descr, fortranOrder, shape))
    return std::move(error);
  llvm::Expected<DType> dtype = parseDescr(descr);
  if (!dtype)
    return dtype.takeError();
  if (fortranOrder && shape.size() > 1)
    return npyError("fortran_order arrays are not supported; save a "
                    "C-order array (numpy.ascontiguousarray)");
  llvm::Expected<int64_t> elements = checkedNumElements(*dtype, shape);
  if (!elements)
    return elements.takeError();
  return NpyLayout{*dtype, std::move(shape), offset,
                   uint64_t(*elements) * getDTypeSize(*dtype)};
}

llvm::Expected<HostTensor> mlir::kiln::parseNpy(StringRef bytes) {
  llvm::Expected<NpyLayout> layout = parseLayout(bytes);
  if (!layout)
    return layout.takeError();
  std::string type = formatTensorType(layout->dtype, layout->shape);
  uint64_t expected = layout->dataBytes;
  uint64_t available = bytes.size() - layout->dataOffset;
  if (available < expected)
    return npyError("truncated .npy file: " + type + " needs " +
                    Twine(expected) + " data bytes, " + Twine(available) +
                    " present");
  if (available > expected)
    return npyError(".npy file has " + Twine(available - expected) +
                    " bytes after the data of " + type);
  llvm::Expected<HostTensor> tensor = HostTensor::fromBytes(
      layout->dtype, layout->shape,
      ArrayRef<char>(bytes.data() + layout->dataOffset, expected));
  // NumPy reads any nonzero byte of a bool array as True; the runtime's i1
  // is one byte holding 0 or 1, which the compiled code relies on (a 2
  // would convert to the i8 2, not 1).
  if (tensor && tensor->getDType() == DType::I1)
    for (uint8_t &byte : tensor->getValues<uint8_t>())
      byte = byte != 0;
  return tensor;
}

/// Appends up to `size` bytes read from `file` to `bytes` (fewer at the
/// end of the file).
static llvm::Error readMore(llvm::sys::fs::file_t file, std::string &bytes,
                            size_t size) {
  size_t start = bytes.size(), done = 0;
  bytes.resize(start + size);
  while (done < size) {
    llvm::Expected<size_t> n = llvm::sys::fs::readNativeFile(
        file, llvm::MutableArrayRef<char>(&bytes[start + done], size - done));
    if (!n) {
      bytes.resize(start + done);
      return n.takeError();
    }
    if (*n == 0)
      break;
    done += *n;
  }
  bytes.resize(start + done);
  return llvm::Error::success();
}

/// The longest header read from a stream: NumPy's own limit is 10000
/// bytes.
static constexpr size_t kMaxStreamHeaderBytes = 1 << 20;

/// Reads a .npy file that is not a regular file (a pipe, a device) only up
/// to the end of the data its header declares, plus one byte to tell that
/// there is more: reading to the end first would never end on /dev/zero.
static llvm::Expected<HostTensor> readNpyStream(llvm::sys::fs::file_t file) {
  std::string bytes;
  if (llvm::Error error = readMore(file, bytes, kMaxPreambleBytes))
    return std::move(error);
  llvm::Expected<NpyPreamble> preamble = parsePreamble(bytes);
  if (!preamble)
    return preamble.takeError();
  if (preamble->headerLength > kMaxStreamHeaderBytes)
    return npyError("header of " + Twine(preamble->headerLength) +
                    " bytes is too long (more than " +
                    Twine(kMaxStreamHeaderBytes) + ")");
  size_t headerEnd = preamble->headerOffset + preamble->headerLength;
  if (bytes.size() < headerEnd)
    if (llvm::Error error = readMore(file, bytes, headerEnd - bytes.size()))
      return std::move(error);
  llvm::Expected<NpyLayout> layout = parseLayout(bytes);
  if (!layout)
    return layout.takeError();
  uint64_t have = bytes.size() - layout->dataOffset;
  if (have < layout->dataBytes + 1)
    if (llvm::Error error =
            readMore(file, bytes, layout->dataBytes + 1 - have))
      return std::move(error);
  if (bytes.size() - layout->dataOffset > layout->dataBytes)
    return npyError(".npy file has bytes after the data of " +
                    formatTensorType(layout->dtype, layout->shape));
  return parseNpy(bytes);
}

llvm::Expected<HostTensor> mlir::kiln::readNpy(StringRef path) {
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      !llvm::sys::fs::is_regular_file(status) &&
      !llvm::sys::fs::is_directory(status)) {
    llvm::Expected<llvm::sys::fs::file_t> file =
        llvm::sys::fs::openNativeFileForRead(path);
    if (!file)
      return npyError("cannot read '" + path +
                      "': " + llvm::toString(file.takeError()));
    llvm::Expected<HostTensor> tensor = readNpyStream(*file);
    llvm::sys::fs::closeFile(*file);
    if (!tensor)
      return npyError("'" + path + "': " + llvm::toString(tensor.takeError()));
    return tensor;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return npyError("cannot read '" + path +
                    "': " + buffer.getError().message());
  llvm::Expected<HostTensor> tensor = parseNpy((*buffer)->getBuffer());
  if (!tensor)
    return npyError("'" + path + "': " + llvm::toString(tensor.takeError()));
  return tensor;
}

std::string mlir::kiln::serializeNpy(const HostTensor &tensor) {
  std::string dict;
  llvm::raw_string_ostream os(dict);
  os << "{'descr': '" << getDescr(tensor.getDType())
     << "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : tensor.getShape())
    os << dim << (tensor.getRank() == 1 ? ",)" : ", ");
  if (tensor.getRank() != 1) {
    if (tensor.getRank() > 1)
      dict.resize(dict.size() - 2);
    os << ")";
  }
  os << ", }";

  // Pad with spaces so that the data starts at a multiple of 64 bytes, and
  // end the header with a newline.
  size_t prefix = kMagic.size() + 2 + 2;
  bool version2 = dict.size() + 1 + prefix + 64 > 65535;
  if (version2)
    prefix += 2;
  size_t total = llvm::alignTo(prefix + dict.size() + 1, 64);
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');

  std::string bytes(kMagic);
  bytes.push_back(version2 ? 2 : 1);
  bytes.push_back(0);
  // The header length, little-endian, in 2 (v1.0) or 4 (v2.0) bytes.
  for (unsigned i = 0, e = version2 ? 4 : 2; i < e; ++i)
    bytes.push_back(char((dict.size() >> (8 * i)) & 0xff));
  bytes += dict;
  bytes.append(tensor.getData(), tensor.getNumBytes());
  return bytes;
}

llvm::Error mlir::kiln::writeNpy(const HostTensor &tensor, StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return npyError("cannot write '" + path + "': " + ec.message());
  os << serializeNpy(tensor);
  os.close();
  if (os.has_error())
    return npyError("cannot write '" + path + "': " + os.error().message());
  return llvm::Error::success();
}

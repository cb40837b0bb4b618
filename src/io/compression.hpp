// Compressed inputs and outputs (docs/errors.md, "Compressed files"): gzip and zstd,
// recognised by their magic bytes on input and by the name's suffix on output. Private to
// the I/O layer: ByteReader decodes, AtomicFile encodes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace hrw::io {

enum class Compression { kNone, kGzip, kZstd };

const char* compression_name(Compression c);  // "gzip", "zstd"

// Bytes enough to recognise every format sniff_compression knows.
inline constexpr std::size_t kMagicBytes = 10;

// What the first bytes of a file say it is. A format hrw does not decode (xz, bzip2, lz4)
// is an InputError naming the file and a command that decodes it: read as text it would
// give keys that are garbage.
Compression sniff_compression(std::string_view head, const std::string& name);

// What an output path asks for: ".gz" gzip, ".zst" zstd, anything else none.
Compression compression_for_output(std::string_view path);

// One whole gzip member or zstd frame holding `plain`. Members and frames concatenated are
// one valid stream, so pieces of an output may be compressed on many threads at once.
std::string compress_piece(Compression c, std::string_view plain);

// A streaming decoder. Offsets in messages count the compressed file's bytes from its start.
class Decoder {
 public:
  static std::unique_ptr<Decoder> make(Compression c, std::string name);
  virtual ~Decoder() = default;

  struct Step {
    std::size_t consumed = 0, produced = 0;
  };
  // Decodes from in[0, in_size) into out[0, out_size); `at` is in's offset in the file.
  // InputError "NAME: corrupt gzip data at byte N: ..." on bad input.
  virtual Step decode(const char* in, std::size_t in_size, char* out, std::size_t out_size,
                      std::uint64_t at) = 0;
  // At the end of the compressed bytes (`at` of them): InputError "NAME: truncated ..."
  // when a member or frame is unfinished.
  virtual void finish(std::uint64_t at) = 0;
};

}  // namespace hrw::io

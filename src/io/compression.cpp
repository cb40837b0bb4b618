#include "compression.hpp"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <new>
#include <stdexcept>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw::io {

namespace {

// The tools' own defaults (gzip -6, zstd -3): what an operator gets from `gzip`/`zstd`.
constexpr int kGzipLevel = 6;
constexpr int kZstdLevel = 3;

bool starts(std::string_view head, std::string_view magic) { return head.substr(0, magic.size()) == magic; }

class GzipDecoder final : public Decoder {
 public:
  explicit GzipDecoder(std::string name) : name_(std::move(name)) {
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw std::bad_alloc();  // 16: gzip wrapper only
  }
  ~GzipDecoder() override { inflateEnd(&z_); }

  Step decode(const char* in, std::size_t in_size, char* out, std::size_t out_size, std::uint64_t at) override {
    // zlib counts in uInt: larger buffers are taken a part at a time by the caller's loop.
    const uInt in_n = static_cast<uInt>(std::min<std::size_t>(in_size, 1u << 30));
    const uInt out_n = static_cast<uInt>(std::min<std::size_t>(out_size, 1u << 30));
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
    z_.avail_in = in_n;
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = out_n;
    for (;;) {
      const uInt before = z_.avail_in;
      const int r = inflate(&z_, Z_NO_FLUSH);
      if (z_.avail_in != before) in_member_ = true;
      if (r == Z_STREAM_END) {
        // Members may follow one another (`cat a.gz b.gz`): the next one starts here.
        in_member_ = false;
        inflateReset(&z_);
        if (z_.avail_in > 0 && z_.avail_out > 0) continue;
      } else if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_STREAM_ERROR) {
        throw InputError(fmt::format("{}: corrupt gzip data at byte offset {}: {}", name_,
                                     at + (in_n - z_.avail_in), z_.msg ? z_.msg : "invalid stream"));
      } else if (r == Z_MEM_ERROR) {
        throw std::bad_alloc();
      }
      break;  // Z_OK, Z_BUF_ERROR: more input or more room needed
    }
    return {in_n - z_.avail_in, out_n - z_.avail_out};
  }

  void finish(std::uint64_t at) override {
    if (in_member_)
      throw InputError(fmt::format("{}: truncated gzip data: the file ends at byte offset {} inside a member",
                                   name_, at));
  }

 private:
  std::string name_;
  z_stream z_{};
  bool in_member_ = false;
};

class ZstdDecoder final : public Decoder {
 public:
  explicit ZstdDecoder(std::string name) : name_(std::move(name)), d_(ZSTD_createDCtx()) {
    if (!d_) throw std::bad_alloc();
  }
  ~ZstdDecoder() override { ZSTD_freeDCtx(d_); }

  Step decode(const char* in, std::size_t in_size, char* out, std::size_t out_size, std::uint64_t at) override {
    ZSTD_inBuffer ib{in, in_size, 0};
    ZSTD_outBuffer ob{out, out_size, 0};
    const std::size_t r = ZSTD_decompressStream(d_, &ob, &ib);
    if (ZSTD_isError(r))
      throw InputError(fmt::format("{}: corrupt zstd data at byte offset {}: {}", name_, at + ib.pos,
                                   ZSTD_getErrorName(r)));
    // 0: a frame ended and is flushed. A call that moved nothing says nothing new.
    if (ib.pos > 0 || ob.pos > 0) frame_done_ = r == 0;
    return {ib.pos, ob.pos};
  }

  void finish(std::uint64_t at) override {
    if (!frame_done_)
      throw InputError(fmt::format("{}: truncated zstd data: the file ends at byte offset {} inside a frame",
                                   name_, at));
  }

 private:
  std::string name_;
  ZSTD_DCtx* d_;
  bool frame_done_ = false;
};

std::string gzip_piece(std::string_view plain) {
  z_stream z{};
  if (deflateInit2(&z, kGzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::bad_alloc();
  std::string out(deflateBound(&z, plain.size()), '\0');
  constexpr std::size_t kStep = std::size_t{1} << 30;  // zlib counts in uInt
  std::size_t in_at = 0, out_at = 0;
  for (int r = Z_OK; r != Z_STREAM_END;) {
    if (out_at == out.size()) out.resize(2 * out.size() + 64);
    const std::size_t in_n = std::min(kStep, plain.size() - in_at);
    const std::size_t out_n = std::min(kStep, out.size() - out_at);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data() + in_at));
    z.avail_in = static_cast<uInt>(in_n);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + out_at);
    z.avail_out = static_cast<uInt>(out_n);
    r = deflate(&z, in_at + in_n == plain.size() ? Z_FINISH : Z_NO_FLUSH);
    in_at += in_n - z.avail_in;
    out_at += out_n - z.avail_out;
    if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
      deflateEnd(&z);
      throw std::runtime_error(fmt::format("gzip compression failed ({})", r));
    }
  }
  deflateEnd(&z);
  out.resize(out_at);
  return out;
}

std::string zstd_piece(std::string_view plain) {
  struct Free {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  };
  // One context per thread: pieces are compressed on every thread of a run at once.
  thread_local std::unique_ptr<ZSTD_CCtx, Free> cctx(ZSTD_createCCtx());
  if (!cctx) throw std::bad_alloc();
  std::string out(ZSTD_compressBound(plain.size()), '\0');
  const std::size_t n = ZSTD_compressCCtx(cctx.get(), out.data(), out.size(), plain.data(), plain.size(), kZstdLevel);
  if (ZSTD_isError(n)) throw std::runtime_error(fmt::format("zstd compression failed: {}", ZSTD_getErrorName(n)));
  out.resize(n);
  return out;
}

}  // namespace

const char* compression_name(Compression c) {
  return c == Compression::kGzip ? "gzip" : c == Compression::kZstd ? "zstd" : "none";
}

Compression sniff_compression(std::string_view head, const std::string& name) {
  using namespace std::literals;
  if (starts(head, "\x1f\x8b\x08"sv)) return Compression::kGzip;  // RFC 1952: ID1 ID2, CM = deflate
  if (starts(head, "\x28\xb5\x2f\xfd"sv)) return Compression::kZstd;  // RFC 8878 frame
  // A skippable zstd frame (RFC 8878 3.1.2): 0x184D2A50 to 0x184D2A5F, little-endian.
  if (head.size() >= 4 && (static_cast<unsigned char>(head[0]) & 0xf0) == 0x50 && head.substr(1, 3) == "\x2a\x4d\x18"sv)
    return Compression::kZstd;
  const char* tool = nullptr;
  if (starts(head, "\xfd" "7zXZ\x00"sv)) tool = "xz";
  else if (starts(head, "\x04\x22\x4d\x18"sv)) tool = "lz4";
  else if (head.size() >= 10 && starts(head, "BZh"sv) && head[3] >= '1' && head[3] <= '9' &&
           (head.substr(4, 6) == "\x31\x41\x59\x26\x53\x59"sv || head.substr(4, 6) == "\x17\x72\x45\x38\x50\x90"sv))
    tool = "bzip2";
  if (tool)
    throw InputError(fmt::format("{}: {}-compressed: hrw decodes gzip and zstd only; decode it first "
                                 "({} -dc FILE | hrw ... -) or recompress it",
                                 name, tool, tool));
  return Compression::kNone;
}

Compression compression_for_output(std::string_view path) {
  if (path.ends_with(".gz")) return Compression::kGzip;
  if (path.ends_with(".zst")) return Compression::kZstd;
  return Compression::kNone;
}

std::string compress_piece(Compression c, std::string_view plain) {
  switch (c) {
    case Compression::kGzip: return gzip_piece(plain);
    case Compression::kZstd: return zstd_piece(plain);
    case Compression::kNone: break;
  }
  return std::string(plain);
}

std::unique_ptr<Decoder> Decoder::make(Compression c, std::string name) {
  if (c == Compression::kGzip) return std::make_unique<GzipDecoder>(std::move(name));
  if (c == Compression::kZstd) return std::make_unique<ZstdDecoder>(std::move(name));
  throw std::logic_error("Decoder::make: not compressed");
}

}  // namespace hrw::io

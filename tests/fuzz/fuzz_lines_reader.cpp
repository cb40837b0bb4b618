// The lines reader (SIMD LF masks, chunking, refills) against a plain split of the same
// bytes: every key equal, for any chunk size, read whole and in byte ranges
// (hrw::ByteRange). The first byte picks the chunk size.
#include <cstdlib>
#include <string>
#include <vector>

#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"
#include "key_file.hpp"

namespace {

std::vector<std::string> plain_split(std::string_view text) {
  std::vector<std::string> keys;
  while (!text.empty()) {
    const auto lf = text.find('\n');
    std::string_view line = text.substr(0, lf);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    keys.emplace_back(line);
    if (lf == std::string_view::npos) break;
    text.remove_prefix(lf + 1);
  }
  return keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 64;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (hrw::fuzz::compressed(hrw::fuzz::key_file(text))) {
    // Decoded whole: keys, or one InputError line (a cut or damaged stream), never a crash.
    try {
      hrw::KeySource source(hrw::fuzz::key_file(text), hrw::KeyFormat::lines);
      for (hrw::KeyChunk c; source.next(c, chunk);) {
      }
    } catch (const hrw::InputError& e) {
      hrw::fuzz::check_message(e.what());
    }
    return 0;
  }
  std::vector<std::string> got;
  try {
    hrw::KeySource source(hrw::fuzz::key_file(text), hrw::KeyFormat::lines);
    for (hrw::KeyChunk c; source.next(c, chunk);) {
      if (c.size() > chunk || c.first != got.size()) std::abort();
      for (std::size_t i = 0; i < c.size(); ++i) got.emplace_back(c.keys[i]);
    }
    if (source.keys_read() != got.size()) std::abort();
  } catch (const hrw::InputError& e) {
    std::abort();  // no input this small is refused
  }
  if (got != plain_split(text)) std::abort();
  const std::string path = hrw::fuzz::key_file(text);
  std::vector<std::string> ranged;
  for (const hrw::ByteRange& range : hrw::fuzz::ranges_of(path, text)) {
    hrw::KeySource source(path, hrw::KeyFormat::lines, range);
    for (hrw::KeyChunk c; source.next(c, chunk);)
      for (std::size_t i = 0; i < c.size(); ++i) ranged.emplace_back(c.keys[i]);
  }
  if (ranged != got) std::abort();
  return 0;
}

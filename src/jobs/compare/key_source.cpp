// Where the compared keys come from: generated, or read from a file or stdin.
#include "hrw/compare.hpp"
#include "hrw/key_source.hpp"

namespace hrw::compare {

KeyBatch sample_keys(std::size_t n) {
  KeyBatch keys;
  keys.reserve(n, n * 10);
  std::string key;
  for (std::size_t i = 0; i < n; ++i) {
    key = "key-";
    key += std::to_string(i);
    keys.add(key);
  }
  return keys;
}

KeyBatch read_key_file(const std::string& path, const std::vector<std::string>& ignored_columns) {
  // The same streaming reader as place/plan (lines, or CSV for a .csv name), gathered into
  // one batch: a comparison needs every key twice, once per view.
  KeySource source(path, key_format_for(path), ignored_columns);
  KeyBatch all;
  KeyChunk chunk;
  while (source.next(chunk, kDefaultChunkKeys))
    for (std::size_t i = 0; i < chunk.size(); ++i) all.add(chunk.keys[i]);
  return all;
}

}  // namespace hrw::compare

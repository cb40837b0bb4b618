// place_keys CLUSTER.json KEYS: the owner of every key of a file, as `hrw place` prints it
// (CSV key,owner). A program built against the installed hrw package (docs/api.md, "Getting
// it"); CI builds it with find_package and with pkg-config and compares its output with
// the CLI's.
#include <cstdio>
#include <exception>
#include <string>

#include <hrw/bulk.hpp>
#include <hrw/cluster_view.hpp>
#include <hrw/errors.hpp>
#include <hrw/key_source.hpp>
#include <hrw/output.hpp>
#include <hrw/placement.hpp>
#include <hrw/version.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CLUSTER.json KEYS (hrw %s)\n", argv[0], HRW_VERSION);
    return 2;
  }
  try {
    const hrw::ClusterView view(hrw::load_cluster_file(argv[1]));
    hrw::KeySource keys(argv[2], hrw::key_format_for(argv[2]));
    const hrw::PlaceOptions options;  // owner only, all cores, best SIMD target
    const hrw::BatchPlacer placer(view, options);
    const hrw::PlacementCsv csv(view, options.replicas);

    std::string out = csv.header();
    hrw::KeyChunk chunk;
    hrw::Placement placement;
    while (keys.next(chunk, hrw::kDefaultChunkKeys)) {
      placer.place(chunk.keys, placement);
      csv.append_rows(out, chunk, placement);
      if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) throw std::runtime_error("stdout: write failed");
      out.clear();
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
  } catch (const hrw::InputError& e) {
    std::fprintf(stderr, "place_keys: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "place_keys: %s\n", e.what());
    return 1;
  }
}

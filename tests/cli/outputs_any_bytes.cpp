// Outputs stay well-formed whatever bytes the keys and ids hold: CSV parses back to the
// same bytes, JSON parses (invalid UTF-8 shown as U+FFFD), SVG is well-formed UTF-8 XML.
#include <catch2/catch.hpp>

#include <random>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/csv.hpp"
#include "hrw/reference.hpp"
#include "bulk_support.hpp"
#include "svg_xml_check.hpp"

using hrw::test::read_file;
using hrw::test::run_hrw;
using hrw::test::TempDir;

namespace {

std::string random_bytes(std::mt19937_64& rng, std::size_t max_len, bool allow_comma) {
  std::string s;
  const std::size_t len = 1 + rng() % max_len;
  while (s.size() < len) {
    char c = static_cast<char>(rng() % 256);
    if (c == '\0' || (!allow_comma && c == ',')) continue;  // argv cannot hold NUL; --nodes splits on ','
    s.push_back(c);
  }
  return s;
}

// Valid UTF-8 with no control characters but LF and tab: what any XML or JSON reader takes.
bool clean_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return false;
      ++i;
      continue;
    }
    const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

}  // namespace

TEST_CASE("place, plan and select outputs are well-formed for random key and id bytes",
          "[cli][outputs][bytes]") {
  std::mt19937_64 rng(1414);
  const int rounds = static_cast<int>(hrw::test::scaled(6, hrw::test::kEmulatedScale));
  for (int round = 0; round < std::max(rounds, 2); ++round) {
    TempDir dir;
    std::string node_list;
    std::set<std::string> seen;
    while (seen.size() < 4) {
      std::string id = random_bytes(rng, 6, false);
      if (seen.insert(id).second) node_list += (node_list.empty() ? "" : ",") + id;
    }
    std::vector<std::string> keys;
    std::string csv = "key,bytes\n";
    for (int i = 0; i < 200; ++i) {
      keys.push_back(random_bytes(rng, 12, true));
      csv += hrw::csv::quoted(keys.back()) + "," + std::to_string(i) + "\n";
    }
    const std::string input = dir.write("k.csv", csv);
    const hrw::ClusterView view(hrw::cluster_from_id_list(node_list));
    INFO("round " << round);

    auto res = run_hrw({"place", "--nodes", node_list, "--keys", input, "--out", dir.file("o.csv"),
                        "--stats", dir.file("s.json")});
    REQUIRE(res.exit_code == 0);
    const auto rows = hrw::test::parse_csv_file(dir.file("o.csv"));
    REQUIRE(rows.size() == keys.size() + 1);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      REQUIRE(rows[i + 1].size() >= 2);  // then bytes/requests when the keys have them
      CHECK(rows[i + 1][0] == keys[i]);
      CHECK(rows[i + 1][1] == view.node(hrw::reference::owner(view, keys[i])).id);
    }
    const auto stats = nlohmann::json::parse(read_file(dir.file("s.json")));
    CHECK(stats["nodes"].size() == 4);
    CHECK(stats["bytes"] == 199 * 200 / 2);

    const std::string a = dir.write("a.json", R"({"version": 1, "nodes": ["x", "y"]})");
    res = run_hrw({"plan", "--from", a, "--to", a, "--keys", input, "--out", dir.file("p")});
    REQUIRE(res.exit_code == 0);
    // Views from --nodes have no version: the ids go through the SVG via compare below, and
    // through moves.csv with views whose ids are random bytes written as JSON escapes.
    nlohmann::json from, to;
    from["version"] = 1;
    to["version"] = 2;
    for (int i = 0; i < 3; ++i) {
      std::string id = random_bytes(rng, 6, true);
      std::string valid = nlohmann::json(id).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      from["nodes"].push_back(nlohmann::json::parse(valid));
      to["nodes"].push_back(nlohmann::json::parse(valid));
    }
    to["nodes"].push_back("new\n\"<node>\"&");
    const std::string fa = dir.write("from.json", from.dump()), fb = dir.write("to.json", to.dump());
    res = run_hrw({"plan", "--from", fa, "--to", fb, "--keys", input, "--out", dir.file("q"), "--svg",
                   dir.file("q.svg")});
    REQUIRE(res.exit_code == 0);
    const auto moves = hrw::test::parse_csv_file(dir.file("q/moves.csv"));
    // The input has a bytes column, so the move rows carry it too.
    REQUIRE(moves.at(0) == std::vector<std::string>{"batch", "key", "from", "to", "bytes"});
    for (std::size_t i = 1; i < moves.size(); ++i) {
      REQUIRE(moves[i].size() == 5);
      CHECK(std::find(keys.begin(), keys.end(), moves[i][1]) != keys.end());
      CHECK(moves[i][3] == "new\n\"<node>\"&");
    }
    const auto summary = nlohmann::json::parse(read_file(dir.file("q/summary.json")));
    CHECK(summary["nodes"].size() == 4);
    const std::string svg = read_file(dir.file("q.svg"));
    CHECK(hrw::test::xml_wellformedness_error(svg).empty());
    CHECK(clean_utf8(svg));

    res = run_hrw({"select", keys[0], "--nodes", node_list, "--format", "json"});
    REQUIRE(res.exit_code == 0);
    const auto sel = nlohmann::json::parse(res.out);
    CHECK(sel["scores"].size() == 4);

    res = run_hrw({"compare", "--keys", input, "--from-cluster", fa, "--to-cluster", fb, "--format",
                   "json", "--svg", dir.file("c.svg")});
    REQUIRE(res.exit_code == 0);
    CHECK_NOTHROW(nlohmann::json::parse(res.out));
    const std::string csvd = run_hrw({"compare", "--keys", input, "--from-cluster", fa, "--to-cluster", fb,
                                      "--format", "csv"}).out;
    CHECK(!csvd.empty());
    const std::string csv_out = dir.write("c.csv", csvd);
    CHECK(hrw::test::parse_csv_file(csv_out).size() > 1);
    const std::string csvg = read_file(dir.file("c.svg"));
    CHECK(hrw::test::xml_wellformedness_error(csvg).empty());
    CHECK(clean_utf8(csvg));
  }
}

TEST_CASE("SVG outputs parse for ids with characters XML 1.0 forbids (U+FFFE, U+FFFF, C0)",
          "[cli][outputs][bytes][svg]") {
  // Valid JSON and valid UTF-8, but not XML 1.0 characters: they are replaced by U+FFFD.
  CHECK(!hrw::test::xml_chars_error("<a>\xEF\xBF\xBE</a>").empty());  // the check can fail
  CHECK(!hrw::test::xml_chars_error("<a>\xEF\xBF\xBF</a>").empty());
  CHECK(!hrw::test::xml_wellformedness_error("<a>&#xFFFE;</a>").empty());
  TempDir dir;
  nlohmann::json from, to;
  from["version"] = 1;
  to["version"] = 2;
  from["nodes"] = {"a", "b\xEF\xBF\xBE", "c\xEF\xBF\xBF"};
  to["nodes"] = {"a", "b\xEF\xBF\xBE", "c\xEF\xBF\xBF", "d\x01\xEF\xBF\xBE\xEF\xBF\xBF<&>"};
  const std::string fa = dir.write("from.json", from.dump()), fb = dir.write("to.json", to.dump());
  std::string keys;
  for (int i = 0; i < 500; ++i) keys += "k" + std::to_string(i) + "\n";
  const std::string input = dir.write("k.txt", keys);
  auto res = run_hrw({"plan", "--from", fa, "--to", fb, "--keys", input, "--out", dir.file("p"), "--svg",
                      dir.file("p.svg"), "--quiet"});
  REQUIRE(res.exit_code == 0);
  const std::string svg = read_file(dir.file("p.svg"));
  CHECK(hrw::test::xml_wellformedness_error(svg) == "");
  CHECK(svg.find("\xEF\xBF\xBE") == std::string::npos);
  CHECK(svg.find("\xEF\xBF\xBF") == std::string::npos);
  CHECK(svg.find("b\xEF\xBF\xBD") != std::string::npos);  // replaced, one for one
  res = run_hrw({"compare", "--keys", input, "--from-cluster", fa, "--to-cluster", fb, "--svg", dir.file("c.svg")});
  REQUIRE(res.exit_code == 0);
  const std::string csvg = read_file(dir.file("c.svg"));
  CHECK(hrw::test::xml_wellformedness_error(csvg) == "");
  CHECK(csvg.find("\xEF\xBF\xBE") == std::string::npos);
}

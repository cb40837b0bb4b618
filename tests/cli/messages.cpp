// Every message is exactly one printable line: input bytes quoted and escaped, long values
// cut, positions given as file + line or node + field, no parser internals.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "hrw/errors.hpp"

using hrw::quote_for_message;
using hrw::test::run_hrw;
using hrw::test::TempDir;
using Catch::Matchers::Contains;

TEST_CASE("quote_for_message: exact escapes, UTF-8 kept, invisible characters shown, long values cut",
          "[messages]") {
  CHECK(quote_for_message("abc") == "\"abc\"");
  CHECK(quote_for_message("") == "\"\"");
  CHECK(quote_for_message("a\nb\r\t") == "\"a\\nb\\r\\t\"");
  CHECK(quote_for_message("q\"\\") == "\"q\\\"\\\\\"");
  CHECK(quote_for_message(std::string("\x00\x01\x7f", 3)) == "\"\\x00\\x01\\x7f\"");
  CHECK(quote_for_message("\xff\xfe") == "\"\\xff\\xfe\"");
  CHECK(quote_for_message("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82") == "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82\"");
  CHECK(quote_for_message("\xc3") == "\"\\xc3\"");              // truncated sequence
  CHECK(quote_for_message("\xc0\xaf") == "\"\\xc0\\xaf\"");     // overlong
  CHECK(quote_for_message("\xed\xa0\x80") == "\"\\xed\\xa0\\x80\"");  // surrogate
  CHECK(quote_for_message("\xef\xbb\xbfkey") == "\"\\u{feff}key\"");
  CHECK(quote_for_message("a\xe2\x80\xa8z") == "\"a\\u{2028}z\"");
  CHECK(quote_for_message("\xc2\x85") == "\"\\u{0085}\"");
  CHECK(quote_for_message(std::string(100, 'x'), 10) == "\"xxxxxxxxxx...\" (100 bytes)");
  CHECK(quote_for_message(std::string(10, 'x'), 10) == "\"xxxxxxxxxx\"");
}

TEST_CASE("CLI messages stay one line for any bytes, and short for any size", "[cli][messages]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 1, "nodes": ["a", "b"]})");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string big(1 << 20, '7');
  const std::vector<Case> cases = {
      {{"select", "k", "--cluster", dir.write("dup.json", "{\"nodes\": [\"a\\nb\", \"a\\nb\"]}")},
       "dup.json: duplicate node id \"a\\nb\""},
      {{"select", "k", "--nodes", "\xff,b", "--weights", "-1,1"}, "--nodes: node \"\\xff\": weight must be finite and > 0"},
      {{"select", "k", "--cluster", dir.write("lbl.json", "{\"nodes\": [{\"id\": \"a\", \"z\\u000a\": 1}]}")},
       "lbl.json: nodes[0] (\"a\"): label \"z\\n\" must be a string, got number"},
      {{"select", "k", "--cluster", dir.write("top.json", "{\"nodes\": [\"a\"], \"\\u0000\": 1}")},
       "unknown top-level field \"\\x00\""},
      {{"select", "k", "--cluster", dir.write("raw.json", "{\"nodes\": [\"a\"],\n \"seed\": \"x\ny\"}")},
       "raw.json: line 2, column 12: malformed JSON: invalid string: control character U+000A (LF) must be escaped"},
      {{"select", "k", "--cluster", dir.write("tok.json", "{\"nodes\": [\"a\"], \"seed\": \xff}")},
       "tok.json: line 1, column 26: malformed JSON: invalid literal"},
      {{"place", "--cluster", view, "--keys", dir.write("cell.csv", "key,bytes\nx,\xff\n\n")},
       "cell.csv: line 2: bytes must be a non-negative integer, got \"\\xff\""},
      {{"place", "--cluster", view, "--keys", dir.write("nl.csv", "key,bytes\nx,\"1\n2\"\n")},
       "nl.csv: line 2: bytes must be a non-negative integer, got \"1\\n2\""},
      {{"place", "--cluster", view, "--keys", dir.write("big.csv", "key,bytes\nx," + big + "x\n")},
       "big.csv: line 2: bytes must be a non-negative integer, got \"7777"},
      {{"place", "--cluster", view, "--keys", dir.write("hdr.csv", "id,\"a\nb\"\nx,y\n")},
       "hdr.csv: line 1: the CSV header has no \"key\" column (columns: \"id\", \"a\\nb\")"},
      {{"place", "--cluster", view, "--keys", dir.file("no\nsuch")}, "no\\x0asuch: cannot open"},
      {{"place", "--cluster", view, "--keys", dir.write("ok.txt", "x\n"), "--keys-format", "a\nb"},
       "--keys-format: a\\x0ab not in {lines,csv}"},
      {{"select", "k", "--nodes", "a,b", "--hash", "md\n5"}, "unknown hash mode \"md\\n5\""},
      {{"select", "k", "--nodes", "a,b", "--weights", "1,x\ny"}, "is not a number: \"x\\ny\""},
      {{"select", "k", "--cluster", dir.write("zz.json", R"({"nodes": [{"id": "a", "z\nz": "1"}, {"id": "b", "z\nz": "1"}]})"),
        "--replicas", "2", "--distinct", "z\nz"},
       "with distinct \"z\\nz\" needs 2 failure domains"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    const auto res = run_hrw(c.args);
    CHECK(res.exit_code == 2);
    CHECK(std::count(res.err.begin(), res.err.end(), '\n') == 1);
    CHECK(res.err.size() < 300);
    CHECK_THAT(res.err, Contains(c.message));
    CHECK_THAT(res.err, !Contains("json.exception") && !Contains("last read"));
  }
}

TEST_CASE("a CSV starting with a byte-order mark reads its header", "[cli][messages]") {
  TempDir dir;
  const std::string keys = dir.write("bom.csv", "\xef\xbb\xbfkey,bytes\nx,5\n");
  const auto res = run_hrw({"place", "--nodes", "a,b", "--keys", keys});
  CHECK(res.exit_code == 0);
  CHECK(res.out.substr(0, 16) == "key,owner,bytes\n");  // place carries the bytes column
  const auto bad = run_hrw({"place", "--nodes", "a,b", "--keys", dir.write("bom2.csv", "\xef\xbb\xbfid\nx\n")});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Contains("no \"key\" column (columns: \"id\")"));
}

TEST_CASE("nodes are numbered the same way from a file and from --nodes", "[cli][messages]") {
  TempDir dir;
  const auto file = run_hrw({"select", "k", "--cluster", dir.write("e.json", R"({"nodes": ["a", ""]})")});
  const auto list = run_hrw({"select", "k", "--nodes", "a,"});
  CHECK_THAT(file.err, Contains("e.json: nodes[1] has an empty id"));
  CHECK_THAT(list.err, Contains("--nodes: nodes[1] has an empty id"));
  const auto weights = run_hrw({"select", "k", "--nodes", "a,b", "--weights", "1,x"});
  CHECK_THAT(weights.err, Contains("weight of nodes[1] (\"b\")"));
  const auto json = run_hrw({"select", "k", "--cluster", dir.write("w.json", R"({"nodes": ["a", {"id": "b", "weight": "x"}]})")});
  CHECK_THAT(json.err, Contains("nodes[1] (\"b\"): weight must be a number"));
}

// A small XML well-formedness check for the SVG tests, in C++ so that it also runs where
// python is absent (ARM emulation). It checks what a renderer can get wrong: nesting,
// quoting, escaping, duplicate attributes, one root element. Not a validating parser.
#pragma once
#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace hrw::test {

// XML 1.0 §2.2: Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
inline bool xml_char(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

// "" when every character of `xml` is valid UTF-8 and an XML 1.0 Char, else the offset.
inline std::string xml_chars_error(const std::string& xml) {
  for (std::size_t i = 0; i < xml.size();) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(xml[k]); };
    const unsigned char c = b(i);
    const std::size_t n = c < 0x80 ? 1 : c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || i + n > xml.size()) return "invalid UTF-8 at byte " + std::to_string(i);
    char32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (std::size_t k = 1; k < n; ++k) {
      if ((b(i + k) & 0xC0) != 0x80) return "invalid UTF-8 at byte " + std::to_string(i);
      cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n]) return "overlong UTF-8 at byte " + std::to_string(i);
    if (!xml_char(cp)) return "character U+" + std::to_string(static_cast<unsigned long>(cp)) +
                              " (decimal) not allowed in XML 1.0 at byte " + std::to_string(i);
    i += n;
  }
  return "";
}

// "" when `xml` is well-formed, else a message naming the byte offset.
inline std::string xml_wellformedness_error(const std::string& xml) {
  if (std::string chars = xml_chars_error(xml); !chars.empty()) return chars;
  std::size_t i = 0;
  std::vector<std::string> open;
  int roots = 0;
  auto fail = [&](const std::string& what) { return what + " at byte " + std::to_string(i); };
  auto is_name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.' || (static_cast<unsigned char>(c) >= 0x80);
  };
  // Checks an entity reference starting at xml[i] == '&'; advances past ';'.
  auto entity = [&]() -> bool {
    const auto end = xml.find(';', i);
    if (end == std::string::npos || end - i > 10) return false;
    const std::string name = xml.substr(i + 1, end - i - 1);
    static const std::set<std::string> known = {"amp", "lt", "gt", "quot", "apos"};
    bool ok = known.count(name) > 0;
    if (!ok && name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x';
      const std::string digits = name.substr(hex ? 2 : 1);
      ok = !digits.empty() && digits.size() <= 7;
      for (char c : digits)
        ok = ok && (hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c)));
      // A character reference must name an XML Char too (&#xFFFE; is as bad as the bytes).
      if (ok) ok = xml_char(static_cast<char32_t>(std::stoul(digits, nullptr, hex ? 16 : 10)));
    }
    i = end + 1;
    return ok;
  };
  auto read_name = [&]() {
    const std::size_t start = i;
    while (i < xml.size() && is_name_char(xml[i])) ++i;
    return xml.substr(start, i - start);
  };
  auto skip_space = [&]() {
    while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
  };
  if (xml.compare(0, 5, "<?xml") == 0) {
    i = xml.find("?>");
    if (i == std::string::npos) return std::string("unterminated XML declaration");
    i += 2;
  }
  while (i < xml.size()) {
    const char c = xml[i];
    if (c == '&') {
      if (!entity()) return fail("bad entity reference");
      continue;
    }
    if (c != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(c)))
        return fail("text outside the root element");
      if (c == '>') return fail("raw '>' in text");  // legal in XML, but a sign of a bug here
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      const auto end = xml.find("-->", i + 4);
      if (end == std::string::npos) return fail("unterminated comment");
      i = end + 3;
      continue;
    }
    ++i;
    if (i < xml.size() && xml[i] == '/') {
      ++i;
      const std::string name = read_name();
      skip_space();
      if (i >= xml.size() || xml[i] != '>') return fail("malformed end tag");
      if (open.empty() || open.back() != name) return fail("mismatched end tag </" + name + ">");
      open.pop_back();
      ++i;
      continue;
    }
    const std::string name = read_name();
    if (name.empty()) return fail("malformed start tag");
    if (open.empty() && ++roots > 1) return fail("second root element");
    std::set<std::string> attributes;
    for (;;) {
      skip_space();
      if (i >= xml.size()) return fail("unterminated tag");
      if (xml[i] == '>') {
        open.push_back(name);
        ++i;
        break;
      }
      if (xml.compare(i, 2, "/>") == 0) {
        i += 2;
        break;
      }
      const std::string attribute = read_name();
      if (attribute.empty()) return fail("malformed attribute");
      if (!attributes.insert(attribute).second) return fail("duplicate attribute " + attribute);
      skip_space();
      if (i >= xml.size() || xml[i] != '=') return fail("attribute without '='");
      ++i;
      skip_space();
      if (i >= xml.size() || (xml[i] != '"' && xml[i] != '\'')) return fail("unquoted attribute");
      const char quote = xml[i++];
      while (i < xml.size() && xml[i] != quote) {
        if (xml[i] == '<') return fail("'<' in attribute value");
        if (xml[i] == '&') {
          if (!entity()) return fail("bad entity reference in attribute");
        } else {
          ++i;
        }
      }
      if (i >= xml.size()) return fail("unterminated attribute value");
      ++i;
    }
  }
  if (!open.empty()) return "unclosed element <" + open.back() + ">";
  if (roots != 1) return "no root element";
  return "";
}

// Occurrences of `needle` in the i-th <g class="panel"> ... </g> of an hrw SVG chart.
inline std::size_t count_in_panel(const std::string& svg, std::size_t panel,
                                  const std::string& needle) {
  std::size_t start = 0;
  for (std::size_t p = 0; p <= panel; ++p) {
    start = svg.find("<g class=\"panel\">", p == 0 ? 0 : start + 1);
    if (start == std::string::npos) return 0;
  }
  const std::size_t end = svg.find("</g>", start);
  std::size_t count = 0;
  for (std::size_t at = svg.find(needle, start); at < end; at = svg.find(needle, at + 1)) ++count;
  return count;
}

}  // namespace hrw::test

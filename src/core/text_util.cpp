#include "text_util.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "hrw/input_file.hpp"

namespace hrw {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = text.find(sep, start);
    if (end == std::string_view::npos) {
      out.push_back(text.substr(start));
      return out;
    }
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

std::optional<double> parse_double(std::string_view text) {
  std::string copy(text);  // strtod needs a terminator
  if (copy.empty() || std::isspace(static_cast<unsigned char>(copy[0]))) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return value;
}

OpenedInput open_input(const std::string& path, const std::string& name) {
  // O_NONBLOCK: opening a FIFO nobody writes to would wait for ever.
  OpenedInput in;
  in.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (in.fd < 0) throw InputError(fmt::format("{}: cannot open: {}", name, std::strerror(errno)));
  auto fail = [&](const std::string& message) {
    ::close(in.fd);
    throw InputError(message);
  };
  struct stat st {};
  if (::fstat(in.fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(fmt::format("{}: cannot read: is a directory", name));
    in.fifo = S_ISFIFO(st.st_mode);
    in.regular = S_ISREG(st.st_mode);
    if (in.regular) in.size = static_cast<unsigned long long>(st.st_size);
  }
  // A FIFO: a non-blocking read gives data or EAGAIN once a writer is there, 0 while there is
  // none; poll reports POLLHUP only for a writer that came and went.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kFifoWaitSeconds);
  while (in.fifo) {
    char buf[1 << 12];
    const ssize_t n = ::read(in.fd, buf, sizeof buf);
    if (n > 0) {
      in.first.append(buf, static_cast<std::size_t>(n));
      break;
    }
    if (n < 0 && errno == EAGAIN) break;
    if (n < 0 && errno != EINTR) fail(fmt::format("{}: cannot read: {}", name, std::strerror(errno)));
    if (n < 0) continue;
    pollfd p{in.fd, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0 && (p.revents & POLLHUP) && !(p.revents & POLLIN)) break;  // empty
    if (std::chrono::steady_clock::now() >= deadline)
      fail(fmt::format("{}: no writer opened the FIFO within {} s", name, kFifoWaitSeconds));
  }
  ::fcntl(in.fd, F_SETFL, ::fcntl(in.fd, F_GETFL) & ~O_NONBLOCK);  // a stream from here on
  return in;
}

std::string read_whole_file(const std::string& path, std::size_t max_bytes) {
  OpenedInput in = open_input(path, path);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{in.fd};
  const int fd = in.fd;
  std::string text = std::move(in.first);
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes)
      throw InputError(fmt::format("{}: larger than the {} MiB limit", path, max_bytes >> 20));
    text.append(buf, static_cast<std::size_t>(n));
  }
  if (text.empty() && in.fifo)
    throw InputError(fmt::format("{}: a FIFO with nothing written to it", path));
  return text;
}

}  // namespace hrw

namespace hrw {

namespace {

// Length of the valid UTF-8 sequence at s[0] (2 to 4 bytes), 0 if there is none.
std::size_t utf8_sequence(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto cont = [&](std::size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2) || (c == 0xE0 && b(1) < 0xA0) || (c == 0xED && b(1) > 0x9F)) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3) || (c == 0xF0 && b(1) < 0x90) || (c == 0xF4 && b(1) > 0x8F))
      return 0;
    return 4;
  }
  return 0;
}

char32_t code_point(std::string_view seq) {
  const auto b = [&](std::size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(seq[i])); };
  if (seq.size() == 2) return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
  if (seq.size() == 3) return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
}

// Characters a terminal shows as nothing (or as a line break): C1 controls, zero-width and
// direction marks, line/paragraph separators, the byte-order mark.
bool invisible(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

}  // namespace

bool valid_utf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    if (static_cast<unsigned char>(bytes[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(bytes.substr(i));
    if (!n) return false;
    i += n;
  }
  return true;
}

std::string quote_for_message(std::string_view bytes, std::size_t max_bytes) {
  std::string out = "\"";
  std::size_t i = 0;
  for (; i < bytes.size() && i < max_bytes;) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x80) {
      if (const std::size_t n = utf8_sequence(bytes.substr(i))) {
        if (const char32_t cp = code_point(bytes.substr(i, n)); invisible(cp))
          out += fmt::format("\\u{{{:04x}}}", static_cast<std::uint32_t>(cp));
        else
          out.append(bytes.substr(i, n));
        i += n;
        continue;
      }
      out += fmt::format("\\x{:02x}", c);
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
  if (i < bytes.size()) {
    out.insert(out.size() - 1, "...");
    out += fmt::format(" ({} bytes)", bytes.size());
  }
  return out;
}

}  // namespace hrw

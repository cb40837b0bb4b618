#include "decode_ahead.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw::io {

namespace {
// Four blocks of a MiB: enough that the decoder rarely waits for the reader or the reader
// for the decoder, little enough to stay in L2/L3 between the two.
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
constexpr std::size_t kBlocks = 4;
constexpr int kPollMs = 100;  // how long the destructor may wait for a silent pipe
}  // namespace

DecodeAhead::DecodeAhead(int fd, bool positioned, std::uint64_t at, std::string head, Compression c,
                         std::string name)
    : fd_(fd), positioned_(positioned), at_(at), raw_(std::move(head)),
      decoder_(Decoder::make(c, name)), name_(std::move(name)), blocks_(kBlocks) {
  raw_end_ = raw_.size();
  raw_.resize(std::max(kBlockBytes, raw_.size()));
  for (Block& b : blocks_) free_.push_back(&b);
  thread_ = std::thread([this] { run(); });
}

DecodeAhead::~DecodeAhead() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

DecodeAhead::Block* DecodeAhead::take_free() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return stop_ || !free_.empty(); });
  if (stop_) return nullptr;
  Block* b = free_.front();
  free_.pop_front();
  return b;
}

void DecodeAhead::run() {
  for (bool last = false; !last;) {
    Block* b = take_free();
    if (!b) return;
    b->bytes.resize(kBlockBytes);
    b->error = nullptr;
    std::size_t filled = 0;
    try {
      while (filled < kBlockBytes) {
        const Decoder::Step step = decoder_->decode(raw_.data() + raw_pos_, raw_end_ - raw_pos_,
                                                    b->bytes.data() + filled, kBlockBytes - filled, consumed());
        raw_pos_ += step.consumed;
        consumed_.fetch_add(step.consumed, std::memory_order_relaxed);
        filled += step.produced;
        if (step.produced > 0 || step.consumed > 0) continue;
        if (!read_raw()) {
          decoder_->finish(consumed());
          last = true;
          break;
        }
      }
    } catch (...) {
      b->error = std::current_exception();
      last = true;
    }
    b->bytes.resize(filled);
    b->last = last;
    {
      std::lock_guard lock(mutex_);
      ready_.push_back(b);
    }
    changed_.notify_all();
  }
}

bool DecodeAhead::read_raw() {
  if (raw_pos_ > 0) {
    std::memmove(raw_.data(), raw_.data() + raw_pos_, raw_end_ - raw_pos_);
    raw_end_ -= raw_pos_;
    raw_pos_ = 0;
  }
  if (raw_end_ == raw_.size()) raw_.resize(2 * raw_.size());  // a decoder that wants more before it decodes
  for (;;) {
    if (!positioned_) {
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, kPollMs);
      if (ready == 0 || (ready < 0 && errno == EINTR)) {
        std::lock_guard lock(mutex_);
        if (stop_) throw std::runtime_error("stopped");  // the reader is gone: nobody sees it
        continue;
      }
    }
    const std::size_t room = raw_.size() - raw_end_;
    const ssize_t n = positioned_ ? ::pread(fd_, raw_.data() + raw_end_, room, static_cast<off_t>(at_))
                                  : ::read(fd_, raw_.data() + raw_end_, room);
    if (n > 0) {
      raw_end_ += static_cast<std::size_t>(n);
      at_ += static_cast<std::uint64_t>(n);
      return true;
    }
    if (n == 0) return false;
    if (errno == EINTR || errno == EAGAIN) continue;
    throw InputError(fmt::format("{}: cannot read: {}", name_, std::strerror(errno)));
  }
}

std::size_t DecodeAhead::read(char* out, std::size_t n) {
  for (;;) {
    if (current_ && current_pos_ < current_->bytes.size()) {
      const std::size_t k = std::min(n, current_->bytes.size() - current_pos_);
      std::memcpy(out, current_->bytes.data() + current_pos_, k);
      current_pos_ += k;
      return k;
    }
    if (current_) {
      if (current_->error) std::rethrow_exception(current_->error);
      if (current_->last) return 0;
      {
        std::lock_guard lock(mutex_);
        free_.push_back(current_);
      }
      changed_.notify_all();
      current_ = nullptr;
    }
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !ready_.empty(); });
    current_ = ready_.front();
    ready_.pop_front();
    current_pos_ = 0;
  }
}

}  // namespace hrw::io

// Redis Cluster's key hash slot (cluster spec, "Keys distribution model"):
// HASH_SLOT = CRC16(key) mod 16384, CRC16 being the XMODEM variant (polynomial 0x1021,
// initial value 0, no reflection, no final XOR; "123456789" -> 0x31C3). When the key holds
// a non-empty "{...}" hash tag, only the bytes between the first '{' and the next '}' are
// hashed, so related keys can share a slot.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace hrw::compare {

inline constexpr std::uint32_t kRedisSlots = 16384;

namespace detail {
constexpr std::array<std::uint16_t, 256> make_crc16_table() {
  std::array<std::uint16_t, 256> table{};
  for (std::uint32_t byte = 0; byte < 256; ++byte) {
    std::uint16_t crc = static_cast<std::uint16_t>(byte << 8);
    for (int bit = 0; bit < 8; ++bit)
      crc = static_cast<std::uint16_t>(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    table[byte] = crc;
  }
  return table;
}
inline constexpr auto kCrc16Table = make_crc16_table();
}  // namespace detail

constexpr std::uint16_t crc16_xmodem(std::string_view bytes) {
  std::uint16_t crc = 0;
  for (unsigned char b : bytes)
    crc = static_cast<std::uint16_t>((crc << 8) ^ detail::kCrc16Table[((crc >> 8) ^ b) & 0xFF]);
  return crc;
}

constexpr std::uint32_t redis_key_slot(std::string_view key) {
  const auto open = key.find('{');
  if (open != std::string_view::npos) {
    const auto close = key.find('}', open + 1);
    if (close != std::string_view::npos && close != open + 1)
      key = key.substr(open + 1, close - open - 1);
  }
  return crc16_xmodem(key) & (kRedisSlots - 1);
}

}  // namespace hrw::compare

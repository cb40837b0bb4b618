// The one rule for CSV header columns (docs/errors.md, "CSV columns"): a column hrw does not
// read is refused, naming it, the columns read and the nearest one, unless the caller lists
// it among the columns to skip. A misspelled `bytes` column silently ignored would drop every
// byte count. Private to the I/O layer: the keys and placement readers use it.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace hrw::io {

// Whether `name` is one of the columns to skip (exact bytes: a header is data).
bool skipped_column(std::string_view name, const std::vector<std::string>& skipped);

// InputError "FILE: line 1: unknown column "Bytes" (did you mean "bytes"?): the columns read
// are key, bytes, requests; to skip it, add it to <the ignored columns>", the last words the
// caller's name for Setting::ignored_columns.
[[noreturn]] void refuse_unknown_column(const std::string& file, std::string_view name,
                                        const std::vector<std::string_view>& known);

}  // namespace hrw::io

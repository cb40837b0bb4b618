// The hrw subcommands. Each file tools/hrw/cmd_*.cpp adds one subcommand to the app and
// returns what runs it after parsing; main.cpp owns parsing and the exit-code policy.
#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace hrw::cli {

using Runner = std::function<int()>;

Runner add_select(CLI::App& app);
Runner add_place(CLI::App& app);
Runner add_plan(CLI::App& app);
Runner add_compare(CLI::App& app);
Runner add_verify(CLI::App& app);
Runner add_sample(CLI::App& app);
Runner add_check(CLI::App& app);
Runner add_view(CLI::App& app);
Runner add_balance(CLI::App& app);
Runner add_bench(CLI::App& app);

}  // namespace hrw::cli

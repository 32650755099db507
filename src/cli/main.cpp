#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/allocator_tuning.hpp"
#include "cli/commands.hpp"
#include "cli/mpi_process_group.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"

namespace distsim::cli {

namespace {

constexpr int kExitInputError = 2;
constexpr int kExitInternalError = 70;

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(command->get_name());
  }
  return names;
}

std::vector<std::string> flag_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const auto* option : command.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

//! What CLI11 calls an unexpected argument, said as a misspelt command or flag with the closest
//! name; empty when the arguments hold neither.
std::string misspelling_message(const CLI::App& app, int argc, char** argv) {
  const CLI::App* command = &app;
  std::string path;  // the subcommands given, "db list"
  int at = 1;
  for (; at < argc && argv[at][0] != '-'; ++at) {
    const std::vector<std::string> names = subcommand_names(*command);
    if (names.empty()) break;
    if (std::find(names.begin(), names.end(), argv[at]) == names.end()) {
      return "distsim: error: " + (path.empty() ? "" : path + ": ") + unknown_name_message("command", argv[at], names);
    }
    command = command->get_subcommand(argv[at]);
    path += (path.empty() ? "" : " ") + std::string(argv[at]);
  }
  const std::vector<std::string> known = flag_names(*command);
  for (; at < argc; ++at) {
    const std::string word = argv[at];
    if (word.rfind("--", 0) != 0 || word == "--") continue;
    const std::string flag = word.substr(0, word.find('='));
    if (std::find(known.begin(), known.end(), flag) == known.end()) {
      return "distsim: error: " + path + ": unknown flag '" + flag + "'; did you mean '" + closest_name(flag, known) +
             "'? (`distsim " + path + " --help` lists them)";
    }
  }
  return "";
}

//! An empty value (`--trace ''`) is a slip, never "not given": every option that takes a value
//! refuses one, in every command.
void refuse_empty_values(CLI::App& app) {
  const CLI::Validator non_empty(
      [](const std::string& value) { return value.empty() ? std::string("expected a value, got an empty one") : ""; },
      "", "non-empty");
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_size_min() > 0 && option->get_expected_min() > 0) option->check(non_empty);
  }
  for (CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) refuse_empty_values(*command);
}

//! The option named `name` ("--max-tasks") in `app` or any of its commands; none when none is.
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->check_name(name)) return option;
  }
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (const CLI::Option* found = find_option(*command, name)) return found;
  }
  return nullptr;
}

//! CLI11's own message for a parse error, said as distsim's: prefixed, and a value of the wrong
//! type ("Could not convert: --max-tasks = 1e9") named with the flag and what it expects.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error) {
  std::string message = error.what();
  const std::string not_converted = "Could not convert: ";
  const std::size_t equals = message.find(" = ");
  if (message.rfind(not_converted, 0) == 0 && equals != std::string::npos) {
    const std::string name = message.substr(not_converted.size(), equals - not_converted.size());
    const CLI::Option* option = find_option(app, name);
    const std::string type = option != nullptr ? option->get_type_name() : "";
    const std::string expected = type == "INT" || type == "UINT" ? "a whole number"
                                 : type == "FLOAT"               ? "a number"
                                                                 : "a value";
    message = name + ": expected " + expected + ", got '" + message.substr(equals + 3) + "'";
  }
  return "distsim: error: " + message;
}

//! Every command writes its results to standard output; with it closed, the first file distsim
//! opened would take its descriptor and receive them.
void require_standard_output() {
  if (fcntl(STDOUT_FILENO, F_GETFD) == -1 && errno == EBADF) {
    throw InputError(
        "standard output is closed; distsim writes its results there (redirect it to a file or to /dev/null)");
  }
}

//! `status`, or an input error when what was written to standard output did not reach it (a full
//! disk, an I/O error): a result that was lost is not a success.
int with_standard_output_checked(int status) {
  errno = 0;
  std::cout.flush();
  if (std::cout && std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return status;
  const int error = errno;
  std::cerr << "distsim: error: cannot write standard output" << (error != 0 ? ": " : "")
            << (error != 0 ? std::strerror(error) : "") << "\n";
  return status == 0 ? kExitInputError : status;
}

int run(int argc, char** argv) {
  CLI::App app{"distsim: predicts how a hybrid-parallel DNN training job runs on a GPU cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "distsim 0.1.0");
  add_simulate_command(app);
  add_events_command(app);
  add_list_command(app);
  add_show_command(app);
  add_db_command(app);
  add_search_command(app);
  add_sweep_command(app);
  add_validate_command(app);
  add_compare_command(app);
  add_whatif_command(app);
  refuse_empty_values(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string misspelling = misspelling_message(app, argc, argv);
    std::cerr << (misspelling.empty() ? parse_error_message(app, e) : misspelling) << "\n";
    return kExitInputError;
  }
  return 0;
}

}  // namespace

}  // namespace distsim::cli

int main(int argc, char** argv) {
  int status = 0;
  try {
    distsim::cli::require_standard_output();
    distsim::cli::keep_freed_memory_for_reuse();
    distsim::cli::start_mpi(argc, argv);
    status = distsim::cli::run(argc, argv);
  } catch (const distsim::InputError& e) {
    std::cerr << "distsim: error: " << e.what() << "\n";
    status = distsim::cli::kExitInputError;
  } catch (const std::bad_alloc&) {
    // The size checks refuse what they can foresee (--max-tasks); what they did not is still the
    // input's size, not a defect to report.
    std::cerr << "distsim: error: out of memory: the input is larger than this machine's memory holds; lower "
                 "--max-tasks to have such jobs refused before they are built, or run on a machine with more memory\n";
    status = distsim::cli::kExitInputError;
  } catch (const std::exception& e) {
    std::cerr << "distsim: internal error: " << e.what() << " (please report)\n";
    status = distsim::cli::kExitInternalError;
  }
  distsim::cli::stop_mpi();
  return distsim::cli::with_standard_output_checked(status);
}

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/file_output.hpp"
#include "cli/path_overlap.hpp"
#include "cli/profile_options.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/plain_text.hpp"
#include "events/event_key.hpp"
#include "profile_db/profile_database.hpp"

namespace distsim::cli {

namespace {

using profile_db::ProfileDatabase;

struct DbOptions {
  ProfileOptions profile;
  std::string file;
  std::string hardware;
  std::string output;
};

//! Pads to `width` columns, counting UTF-8 characters rather than bytes ("µ" is two bytes).
std::string padded(const std::string& text, size_t width, bool right_aligned = false) {
  const auto columns = static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  const std::string fill(columns < width ? width - columns : 0, ' ');
  return right_aligned ? fill + text : text + fill;
}

//! The hardware the user asked for, refused with the closest stored name when it has no events.
std::optional<std::string> chosen_hardware(const DbOptions& options, const ProfileDatabase& db) {
  if (options.hardware.empty()) {
    return std::nullopt;
  }
  const auto names = db.hardware_names();
  if (std::find(names.begin(), names.end(), options.hardware) == names.end()) {
    throw InputError("--hardware: " + unknown_name_message("hardware", options.hardware, names) +
                     " in profile database '" + db.path() + "'");
  }
  return options.hardware;
}

//! A bad file is refused before the database is opened, so it never creates one. A failed
//! import rolls back and leaves the file in place: another import may be filling it at the same
//! moment, and an empty file reads as holding no events.
void run_import(const DbOptions& options) {
  const std::string path = options.profile.database_path();
  try {
    const profile_db::ProfileFile file = profile_db::read_profile_file(options.file);
    profile_db::check_profile_records(file, options.file);
    if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty()) {
      std::filesystem::create_directories(parent);
    }
    ProfileDatabase db(path, ProfileDatabase::Access::create);
    const profile_db::ImportResult result = db.import(file, options.file);
    std::cout << "imported " << result.imported << (result.imported == 1 ? " event" : " events") << " for hardware '"
              << file.hardware << "' into '" << path << "'";
    if (result.replaced > 0) {
      std::cout << " (" << result.replaced << " replaced earlier measurements)";
    }
    std::cout << "\n";
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + "; nothing was imported");
  } catch (const std::filesystem::filesystem_error& e) {
    throw InputError("cannot create the directory of profile database '" + path + "': " + e.code().message());
  }
}

//! The hardware to export: the one asked for, or the only one stored.
std::string export_hardware(const DbOptions& options, const ProfileDatabase& db) {
  if (auto chosen = chosen_hardware(options, db)) {
    return *chosen;
  }
  const auto names = db.hardware_names();
  if (names.empty()) {
    throw InputError("profile database '" + db.path() + "' holds no events to export");
  }
  if (names.size() > 1) {
    throw InputError("profile database '" + db.path() + "' holds events for several hardware names (" +
                     comma_joined(names) + "); choose one with --hardware");
  }
  return names.front();
}

profile_db::ProfileFile exported_file(const ProfileDatabase& db, const std::string& hardware) {
  profile_db::ProfileFile file;
  file.hardware = hardware;
  file.records = db.records(hardware);
  file.device_seconds = db.device_seconds(hardware);
  // The newest measurement names the top level; older ones keep their own fields per event.
  const auto newest = std::max_element(file.records.begin(), file.records.end(),
                                       [](const auto& a, const auto& b) { return a.measured_at < b.measured_at; });
  file.profiler = newest->profiler;
  file.library = newest->library;
  file.measured_at = newest->measured_at;
  return file;
}

void run_export(const DbOptions& options) {
  const ProfileDatabase db(options.profile.database_path(), ProfileDatabase::Access::read);
  const profile_db::ProfileFile file = exported_file(db, export_hardware(options, db));
  const std::string text = profile_db::profile_file_json(file).dump(2) + "\n";
  if (options.output.empty()) {
    std::cout << text;
    return;
  }
  write_output_file("--output", options.output, [&](std::ostream& out) { out << text; });
  std::cout << "exported " << file.records.size() << " events for hardware '" << file.hardware << "' to '"
            << options.output << "'\n";
}

void run_list(const DbOptions& options) {
  const ProfileDatabase db(options.profile.database_path(), ProfileDatabase::Access::read);
  const auto records = db.records(chosen_hardware(options, db));
  if (records.empty()) {
    std::cout << "profile database '" << db.path() << "' holds no events\n";
    return;
  }
  size_t hardware_width = 8;
  size_t key_width = 3;
  for (const auto& record : records) {
    hardware_width = std::max(hardware_width, record.hardware.size());
    key_width = std::max(key_width, record.key.size());
  }
  std::cout << padded("hardware", hardware_width) << "  " << padded("key", key_width) << "  "
            << padded("median µs", 14, true) << "  " << padded("samples", 8, true) << "  measured_at\n";
  for (const auto& record : records) {
    std::cout << padded(record.hardware, hardware_width) << "  " << padded(record.key, key_width) << "  "
              << fmt::format("{:>14.3f}  {:>8}  {}", record.median_us, record.samples, record.measured_at) << "\n";
  }
}

std::string hardware_stats(const ProfileDatabase& db, const std::string& hardware) {
  const auto records = db.records(hardware);
  std::map<events::EventClass, int> by_class;
  std::int64_t samples = 0;
  std::string oldest = records.front().measured_at;
  std::string newest = oldest;
  for (const auto& record : records) {
    ++by_class[events::parse_event_key(record.key).event_class];
    samples += record.samples;
    oldest = std::min(oldest, record.measured_at);
    newest = std::max(newest, record.measured_at);
  }
  std::string classes;
  for (const auto& [event_class, count] : by_class) {
    classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", events::event_class_name(event_class), count);
  }
  return fmt::format("{}\n  events       {} ({})\n  samples      {}\n  measured     {} .. {}\n"
                     "  device time  {:.3f} s of profiling\n",
                     hardware, records.size(), classes, samples, oldest, newest, db.device_seconds(hardware));
}

void run_stats(const DbOptions& options) {
  const ProfileDatabase db(options.profile.database_path(), ProfileDatabase::Access::read);
  const auto names = db.hardware_names();
  std::cout << "profile database '" << db.path() << "': " << names.size() << " hardware, " << db.records().size()
            << " events\n";
  for (const auto& hardware : names) {
    std::cout << hardware_stats(db, hardware);
  }
}

//! `writes`: the flags naming the files the subcommand writes (the database it imports into,
//! the file it exports to).
CLI::App* add_db_subcommand(CLI::App& db, const std::string& name, const std::string& description,
                            const std::shared_ptr<DbOptions>& options, void (*run)(const DbOptions&),
                            const std::vector<std::string>& writes = {}) {
  auto* command = db.add_subcommand(name, description);
  options->profile.add_to(*command);
  command->callback([options, run, command, writes] {
    refuse_outputs_onto_inputs(*command, writes);
    run(*options);
  });
  return command;
}

}  // namespace

void add_db_command(CLI::App& app) {
  auto* db = app.add_subcommand("db", "manage the profile database of measured events");
  db->require_subcommand(1);
  auto import = std::make_shared<DbOptions>();
  add_db_subcommand(*db, "import", "import a profile file (replaces stored measurements of the same events)", import,
                    run_import, {"--profile-db"})
      ->add_option("file", import->file, "profile JSON written by the profiler or `distsim db export`")
      ->required();
  auto exported = std::make_shared<DbOptions>();
  auto* export_command = add_db_subcommand(*db, "export", "write one hardware's events as a profile file", exported,
                                           run_export, {"--output"});
  export_command->add_option("--hardware", exported->hardware, "hardware to export (needed when several are stored)");
  export_command->add_option("--output", exported->output, "write to this file instead of stdout");
  auto list = std::make_shared<DbOptions>();
  add_db_subcommand(*db, "list", "list stored events sorted by hardware and key", list, run_list)
      ->add_option("--hardware", list->hardware, "only this hardware");
  auto stats = std::make_shared<DbOptions>();
  add_db_subcommand(*db, "stats", "per hardware: events by class, samples, measurement dates, device time", stats,
                    run_stats);
}

}  // namespace distsim::cli

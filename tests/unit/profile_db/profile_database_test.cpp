#include "profile_db/profile_database.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <iterator>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/input_error.hpp"
#include "profile_db_test_support.hpp"

namespace distsim::profile_db {

namespace {

using profile::ProfileRecord;
using testing::a40_file;
using testing::record;
using testing::scratch_dir;

std::string open_error(const std::string& path, ProfileDatabase::Access access = ProfileDatabase::Access::read) {
  try {
    ProfileDatabase db(path, access);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

//! Runs SQL on a file directly, bypassing ProfileDatabase, to make files it must refuse.
void raw_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

std::string file_with_two_events(const std::string& dir) {
  const std::string path = dir + "/p.sqlite";
  ProfileDatabase db(path, ProfileDatabase::Access::create);
  db.import(a40_file({record("gemm m=1 n=2 k=3 bf16", 10), record("all_reduce bytes=64 group=8 intra", 20)}), "a.json");
  return path;
}


std::string file_with_many_events(const std::string& dir, int count) {
  const std::string path = dir + "/p.sqlite";
  ProfileDatabase db(path, ProfileDatabase::Access::create);
  std::vector<ProfileRecord> many;
  for (int m = 1; m <= count; ++m) {
    many.push_back(record("gemm m=" + std::to_string(m) + " n=2 k=3 bf16", 1));
  }
  db.import(a40_file(many), "many.json");
  return path;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

//! What `kill -9` during `distsim db import` leaves behind: a child process changes every row in
//! one transaction, with a page cache so small that SQLite must write changed pages into the file
//! before the commit, and is killed before it commits.
void kill_midway_through_an_import(const std::string& path) {
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN IMMEDIATE; UPDATE events SET median_us = median_us + 1;", nullptr,
                 nullptr, nullptr);
    kill(getpid(), SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

//! open_error() in a child process that cannot write `path`: as the user nobody when the test runs
//! as root (root may write any file), else as the test's own user.
std::string open_error_as_another_user(const std::string& path) {
  constexpr uid_t kNobody = 65534;
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return "no pipe";
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_ends[0]);
    if (geteuid() == 0 && (setgid(kNobody) != 0 || setuid(kNobody) != 0)) _exit(1);
    const std::string error = open_error(path);
    const ssize_t written = write(pipe_ends[1], error.data(), error.size());
    _exit(written == static_cast<ssize_t>(error.size()) ? 0 : 1);
  }
  close(pipe_ends[1]);
  std::string error;
  char buffer[512];
  for (ssize_t got; (got = read(pipe_ends[0], buffer, sizeof buffer)) > 0;) error.append(buffer, static_cast<size_t>(got));
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return error;
}
}  // namespace

TEST(ProfileDatabase, ReadsBackWhatItImported) {
  const std::string path = scratch_dir().string() + "/p.sqlite";
  ProfileRecord gemm = record("gemm m=1 n=2 k=3 bf16", 10.5);
  gemm.mean_us = 10.75;
  gemm.min_us = 10.25;
  gemm.max_us = 12;
  gemm.stdev_us = 0.5;
  gemm.samples = 20;
  ProfileRecord h100 = record("gemm m=1 n=2 k=3 bf16", 3);
  h100.hardware = "h100";
  {
    ProfileDatabase db(path, ProfileDatabase::Access::create);
    const ImportResult result = db.import(a40_file({record("layernorm rows=2 cols=4 bf16", 1), gemm}), "a.json");
    EXPECT_EQ(result.imported, 2);
    EXPECT_EQ(result.replaced, 0);
    ProfileFile other = a40_file({h100});
    other.hardware = "h100";
    db.import(other, "h.json");
  }
  const ProfileDatabase db(path, ProfileDatabase::Access::read);
  EXPECT_EQ(db.hardware_names(), (std::vector<std::string>{"a40", "h100"}));
  const auto a40 = db.records("a40");
  ASSERT_EQ(a40.size(), 2u);
  EXPECT_EQ(a40[0], gemm);  // sorted by key: "gemm ..." before "layernorm ..."
  EXPECT_EQ(a40[1].key, "layernorm rows=2 cols=4 bf16");
  EXPECT_EQ(db.records().size(), 3u);
  EXPECT_EQ(db.device_seconds("a40"), 12.5);
}

TEST(ProfileDatabase, ReimportReplacesTheSameKey) {
  const std::string path = file_with_two_events(scratch_dir().string());
  ProfileDatabase db(path, ProfileDatabase::Access::create);
  ProfileFile newer = a40_file({record("gemm m=1 n=2 k=3 bf16", 7)});
  newer.measured_at = "2026-12-01T00:00:00Z";
  const ImportResult result = db.import(newer, "b.json");
  EXPECT_EQ(result.imported, 1);
  EXPECT_EQ(result.replaced, 1);
  const auto records = db.records("a40");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].key, "gemm m=1 n=2 k=3 bf16");  // "all_reduce ..." sorts first
  EXPECT_EQ(records[1].median_us, 7);
  // Two profiling runs (different measured_at): 12.5 + 12.5 device-seconds.
  EXPECT_EQ(db.device_seconds("a40"), 25);
}

TEST(ProfileDatabase, ABadRecordRollsBackTheWholeImport) {
  const std::string path = file_with_two_events(scratch_dir().string());
  ProfileDatabase db(path, ProfileDatabase::Access::create);
  // The first record is good and would replace a stored one; the second has a zero duration.
  ProfileFile bad = a40_file({record("gemm m=1 n=2 k=3 bf16", 99), record("layernorm rows=2 cols=4 bf16", 0)});
  bad.measured_at = "2027-01-01T00:00:00Z";
  try {
    db.import(bad, "bad.json");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "profile 'bad.json': events[1] ('layernorm rows=2 cols=4 bf16'): median_us must be a positive duration up to 9.2e+12 us (292 years, the range of distsim's clock), got 0");
  }
  const auto records = db.records("a40");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].median_us, 10);  // unchanged
  EXPECT_EQ(db.device_seconds("a40"), 12.5);  // the failed run was not recorded
}

TEST(ProfileDatabase, RefusesAKeyTwiceInOneFile) {
  ProfileDatabase db(scratch_dir().string() + "/p.sqlite", ProfileDatabase::Access::create);
  try {
    db.import(a40_file({record("gemm m=1 n=2 k=3 bf16", 1), record("gemm m=1 n=2 k=3 bf16", 2)}), "twice.json");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "profile 'twice.json': events[1] ('gemm m=1 n=2 k=3 bf16'): the same key appears earlier in the file");
  }
  EXPECT_TRUE(db.records().empty());
}

TEST(ProfileDatabase, RefusesANewerSchema) {
  const std::string path = file_with_two_events(scratch_dir().string());
  raw_sql(path, "PRAGMA user_version = 7");
  EXPECT_EQ(open_error(path), "profile database '" + path +
                                  "' has schema version 7, newer than version 1 that this distsim reads; use a newer distsim");
  EXPECT_EQ(open_error(path, ProfileDatabase::Access::create), open_error(path));
}

TEST(ProfileDatabase, RefusesAnotherApplicationsDatabase) {
  const std::string path = scratch_dir().string() + "/other.sqlite";
  raw_sql(path, "CREATE TABLE t (x INTEGER)");
  EXPECT_EQ(open_error(path, ProfileDatabase::Access::create),
            "profile database '" + path + "' is a SQLite database but not a distsim profile database");
}

TEST(ProfileDatabase, RefusesAFileThatIsNotADatabase) {
  const std::string path = scratch_dir().string() + "/text.sqlite";
  std::ofstream(path) << "this is a text file, long enough to hold a SQLite header of one hundred bytes or more, "
                         "which it does not.\n";
  EXPECT_EQ(open_error(path), "profile database '" + path + "' is not a SQLite database (SQLite: file is not a database)");
}

TEST(ProfileDatabase, RefusesATruncatedDatabase) {
  const std::string dir = scratch_dir().string();
  const std::string path = dir + "/p.sqlite";
  {
    ProfileDatabase db(path, ProfileDatabase::Access::create);
    std::vector<ProfileRecord> many;
    for (int m = 1; m <= 400; ++m) {
      many.push_back(record("gemm m=" + std::to_string(m) + " n=2 k=3 bf16", 1));
    }
    db.import(a40_file(many), "many.json");
  }
  // Keep the header and the first page only: the tables' later pages are gone.
  std::filesystem::resize_file(path, 4096);
  const std::string error = open_error(path);
  EXPECT_EQ(error.rfind("profile database '" + path + "' is corrupt or truncated (SQLite: ", 0), 0u) << error;
}

TEST(ProfileDatabase, ReadingNeedsAnExistingNonEmptyFile) {
  const std::string dir = scratch_dir().string();
  EXPECT_EQ(open_error(dir + "/missing.sqlite"), "profile database '" + dir +
                                                  "/missing.sqlite' does not exist; create it with `distsim db import FILE "
                                                  "--profile-db " + dir + "/missing.sqlite`");
  std::ofstream(dir + "/empty.sqlite").close();
  EXPECT_EQ(open_error(dir + "/empty.sqlite"),
            "profile database '" + dir + "/empty.sqlite' is empty; fill it with `distsim db import FILE --profile-db " +
                dir + "/empty.sqlite`");
  EXPECT_EQ(open_error(dir + "/empty.sqlite", ProfileDatabase::Access::create), "no error");
}

TEST(ProfileDatabase, RefusesADirectory) {
  const std::string dir = scratch_dir().string();
  const std::string expected =
      "profile database '" + dir + "' is a directory; expected a SQLite file such as '" + dir + "/profiles.sqlite'";
  EXPECT_EQ(open_error(dir), expected);
  EXPECT_EQ(open_error(dir, ProfileDatabase::Access::create), expected);
}

TEST(ProfileDatabase, TwoImportsIntoTheSameNewFileBothLand) {
  // Both connections open the file while it is still empty, as two `db import` processes started
  // together do; the second import must find the schema the first one created, not create it again.
  const std::string path = scratch_dir().string() + "/p.sqlite";
  ProfileDatabase first(path, ProfileDatabase::Access::create);
  ProfileDatabase second(path, ProfileDatabase::Access::create);
  first.import(a40_file({record("gemm m=1 n=2 k=3 bf16", 10)}), "a.json");
  ProfileFile h100 = a40_file({record("gemm m=1 n=2 k=3 bf16", 3)});
  h100.hardware = "h100";
  h100.records.front().hardware = "h100";
  EXPECT_EQ(second.import(h100, "h.json").imported, 1);
  const ProfileDatabase db(path, ProfileDatabase::Access::read);
  EXPECT_EQ(db.hardware_names(), (std::vector<std::string>{"a40", "h100"}));
}

TEST(ProfileDatabase, AnEmptyFileCanBeOpenedForReadingWhenAllowed) {
  const std::string path = scratch_dir().string() + "/empty.sqlite";
  std::ofstream(path).close();
  const ProfileDatabase db(path, ProfileDatabase::Access::read_allowing_empty);
  EXPECT_TRUE(db.hardware_names().empty());
  EXPECT_TRUE(db.records().empty());
}

TEST(ProfileDatabase, AReaderRollsBackAnImportThatWasKilled) {
  const std::string path = file_with_many_events(scratch_dir().string(), 400);
  const std::string before = file_bytes(path);
  kill_midway_through_an_import(path);
  ASSERT_TRUE(std::filesystem::exists(path + "-journal")) << "the killed writer left no journal";
  ASSERT_NE(file_bytes(path), before) << "the killed writer changed nothing in the file; the test would prove nothing";
  const ProfileDatabase db(path, ProfileDatabase::Access::read);
  const auto records = db.records("a40");
  ASSERT_EQ(records.size(), 400u);  // every row the import deleted is back
  EXPECT_EQ(records.front().median_us, 1);
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
}

TEST(ProfileDatabase, AReaderWhoCannotRollBackSaysWhatToRun) {
  const std::string dir = scratch_dir().string();
  const std::string path = file_with_many_events(dir, 400);
  kill_midway_through_an_import(path);
  ASSERT_TRUE(std::filesystem::exists(path + "-journal"));
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                         std::filesystem::perms::others_read);
  EXPECT_EQ(open_error_as_another_user(path),
            "profile database '" + path + "' holds an import that was stopped before it finished ('" + path +
                "-journal' is its undo log); undoing it needs write access to the file and its directory, which this "
                "user lacks: run `distsim db stats --profile-db " + path + "` once as a user who can write there");
}

TEST(ProfileDatabase, SaysWhenAnotherProcessKeepsItLocked) {
  // Another connection holds the exclusive lock, as an import does while it commits; a reader
  // waits its five seconds, then says what is wrong.
  const std::string path = file_with_two_events(scratch_dir().string());
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(open_error(path), "profile database '" + path +
                                  "' stayed locked by another process (an import, most likely) for longer than distsim "
                                  "waits; try again when it has finished (SQLite: database is locked)");
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
}

}  // namespace distsim::profile_db

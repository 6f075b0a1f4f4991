// The check catalog (suites/check_catalog.hpp) is generated from the GPUQUAL_REGISTER_CHECK lines
// of suites/*.cpp (cmake/write_check_catalog.cmake): in this binary, which links every check, it
// is the registry, name for name and description for description. The generator itself is run on
// crafted check files: the forms it accepts, what it ignores, and the forms it refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "process_helpers.hpp"
#include "suites/check.hpp"
#include "suites/check_catalog.hpp"

namespace gpuqual {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

TEST(CheckCatalog, IsTheRegistryOfEveryBuiltInCheck) {
  std::set<std::string> registered;
  for (const CheckInfo* info : CheckRegistry::instance().all(false)) {
    registered.insert(info->name);
    const auto entry = std::find_if(check_catalog().begin(), check_catalog().end(),
                                    [&](const CatalogEntry& e) { return e.name == info->name; });
    ASSERT_NE(entry, check_catalog().end()) << info->name << " is registered but not in the catalog";
    EXPECT_EQ(entry->description, info->description) << info->name;
    EXPECT_EQ(check_availability(info->name), CheckAvailability::built_in) << info->name;
  }
  // The unit tests link every suites/*.cpp, so nothing of the catalog is missing here either.
  std::set<std::string> catalogued;
  for (const auto& e : check_catalog()) catalogued.emplace(e.name);
  EXPECT_EQ(catalogued, registered);
  EXPECT_GE(catalogued.size(), 17u);
  EXPECT_EQ(check_availability("no_such_check"), CheckAvailability::unknown);
  EXPECT_FALSE(in_check_catalog("no_such_check"));
}

TEST(CheckCatalog, IsSortedByNameOnceEach) {
  const auto catalog = check_catalog();
  for (std::size_t i = 1; i < catalog.size(); ++i)
    EXPECT_LT(catalog[i - 1].name, catalog[i].name) << "entry " << i;
}

// cmake -P cmake/write_check_catalog.cmake on a folder of crafted check files.
class CatalogGenerator : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::temp_dir("catalog");
    fs::create_directories(fs::path(dir_) / "suites");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(fs::path(dir_) / "suites" / name) << text;
  }
  testing::ProcResult generate() {
    return testing::run_process({GPUQUAL_CMAKE, "-DDIR=" + dir_ + "/suites", "-DOUT=" + out(), "-P",
                                 std::string(GPUQUAL_SOURCE_DIR) + "/cmake/write_check_catalog.cmake"},
                                dir_);
  }
  std::string out() const { return dir_ + "/catalog.cpp"; }

  std::string dir_;
};

TEST_F(CatalogGenerator, CopiesEachRegistrationSortedByName) {
  // A description of several literals over several lines, with a ';', an escaped quote and a
  // backslash; a clean-up form; a mention in a comment and a file with no check are ignored.
  write("zeta.cpp",
        "// GPUQUAL_REGISTER_CHECK(Old, \"old\", \"a comment, not a check\")\n"
        "GPUQUAL_REGISTER_CHECK(\n    Zeta, \"zeta\",\n    \"first; part \\\"quoted\\\" \"\n"
        "    \"then a \\\\ backslash\");\n");
  write("alpha.cpp",
        "namespace {\n  GPUQUAL_REGISTER_CHECK_WITH_CLEANUP(Alpha, \"alpha\", \"alpha's description\",\n"
        "                                    alpha_after_abort);\n}\n");
  write("loader.cpp", "int not_a_check() { return 0; }\n");
  write("notes.txt", "GPUQUAL_REGISTER_CHECK(Txt, \"txt\", \"not a .cpp file\");\n");
  const auto r = generate();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string text = testing::read_all(out());
  EXPECT_THAT(text, HasSubstr("std::array<CatalogEntry, 2> kCatalog"));
  EXPECT_THAT(text, HasSubstr("{\"alpha\",\n     \"alpha's description\"},\n"
                              "    {\"zeta\",\n     \"first; part \\\"quoted\\\" \"\n"
                              "     \"then a \\\\ backslash\"},\n}};"));
  EXPECT_THAT(text, Not(HasSubstr("\"old\"")));
  EXPECT_THAT(text, Not(HasSubstr("\"txt\"")));
}

TEST_F(CatalogGenerator, RefusesARegistrationItCannotRead) {
  write("good.cpp", "GPUQUAL_REGISTER_CHECK(Good, \"good\", \"fine\");\n");
  write("bad.cpp", "// a check\n\nGPUQUAL_REGISTER_CHECK(Bad, kName, \"a name that is not a literal\");\n");
  const auto r = generate();
  EXPECT_NE(r.exit_code, 0);
  // CMake wraps a long message over indented lines.
  EXPECT_THAT(testing::blanks_as_one(r.err), HasSubstr("suites/bad.cpp:3: a check registration must read"));
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(CatalogGenerator, RefusesANameRegisteredTwice) {
  write("one.cpp", "GPUQUAL_REGISTER_CHECK(One, \"same\", \"first\");\n");
  write("two.cpp", "GPUQUAL_REGISTER_CHECK(Two, \"same\", \"second\");\n");
  const auto r = generate();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(testing::blanks_as_one(r.err), HasSubstr("check \"same\" is registered twice"));
}

TEST_F(CatalogGenerator, RefusesAFolderWithoutChecks) {
  write("loader.cpp", "int not_a_check() { return 0; }\n");
  const auto r = generate();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(testing::blanks_as_one(r.err), HasSubstr("no GPUQUAL_REGISTER_CHECK line"));
}

TEST_F(CatalogGenerator, LeavesAnUnchangedCatalogUntouched) {
  // Rewritten only when its content changes, so editing a check's code recompiles no catalog.
  write("good.cpp", "GPUQUAL_REGISTER_CHECK(Good, \"good\", \"fine\");\n");
  ASSERT_EQ(generate().exit_code, 0);
  const auto before = fs::last_write_time(out());
  fs::last_write_time(out(), before - std::chrono::hours(1));
  write("good.cpp", "int code_changed = 1;\nGPUQUAL_REGISTER_CHECK(Good, \"good\", \"fine\");\n");
  ASSERT_EQ(generate().exit_code, 0);
  EXPECT_EQ(fs::last_write_time(out()), before - std::chrono::hours(1));
  write("good.cpp", "GPUQUAL_REGISTER_CHECK(Good, \"good\", \"changed\");\n");
  ASSERT_EQ(generate().exit_code, 0);
  EXPECT_THAT(testing::read_all(out()), HasSubstr("\"changed\""));
}

}  // namespace
}  // namespace gpuqual

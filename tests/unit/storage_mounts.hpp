#pragma once
// Real filesystems for the storage tests, made and removed by the test (root on the development
// and CI machines): a tmpfs with options, an ext4 image on a loop device, a read-only bind
// mount. Each owner unmounts and removes what it made in its destructor.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "process_helpers.hpp"

namespace gpuqual::testing {

inline int sh(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()); }

class TestMount {
 public:
  // `mount_args`: what goes between `mount` and the directory, e.g. "-t tmpfs -o size=8m tmpfs".
  explicit TestMount(const std::string& tag, const std::string& mount_args) : dir_(temp_dir(tag)) {
    ok_ = sh("mount " + mount_args + " " + dir_) == 0;
  }
  // An ext4 filesystem in a `size_mib` image file, loop-mounted.
  static TestMount ext4(const std::string& tag, int size_mib) {
    const std::string img = temp_dir(tag + "-img") + "/fs.img";
    const bool made =
        sh("truncate -s " + std::to_string(size_mib) + "M " + img) == 0 && sh("mkfs.ext4 -q -F " + img) == 0;
    TestMount m(tag, made ? "-o loop " + img : "--no-such-flag");
    m.image_ = img;
    return m;
  }
  TestMount(TestMount&& o) noexcept : dir_(std::move(o.dir_)), image_(std::move(o.image_)), ok_(o.ok_) {
    o.ok_ = false;
    o.dir_.clear();
  }
  TestMount(const TestMount&) = delete;
  ~TestMount() {
    if (ok_) sh("umount " + dir_);
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove(dir_, ec);
    if (!image_.empty()) std::filesystem::remove_all(std::filesystem::path(image_).parent_path(), ec);
  }
  bool ok() const { return ok_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, image_;
  bool ok_ = false;
};

// Files the storage check leaves in `dir` (there should be none).
inline int storage_leftovers(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(".gpuqual-storage-", 0) == 0) ++n;
  return n;
}

}  // namespace gpuqual::testing

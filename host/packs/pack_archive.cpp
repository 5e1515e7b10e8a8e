// Reading checks every header before any byte of the entry is written, and
// counts the bytes actually read too (a header's size can lie); files are
// created with O_EXCL | O_NOFOLLOW inside a directory only we have written to.
#include "packs/pack_archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

namespace airlock::host {
namespace {

struct ReadCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriteCloser {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

// libarchive's error text, which is null when the failing step set none
// (fmt refuses a null C string, and std::string would crash on one).
std::string_view error_text(archive* a) {
  const char* text = archive_error_string(a);
  return text ? std::string_view(text) : std::string_view("unknown libarchive error");
}

bool plain_name(std::string_view name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") return false;
  return std::none_of(name.begin(), name.end(),
                      [](char c) { return c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

std::string entry_kind(mode_t type) {
  switch (type) {
    case AE_IFLNK: return "a symlink";
    case AE_IFDIR: return "a directory";
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a FIFO";
    case AE_IFSOCK: return "a socket";
    default: return "not a regular file";
  }
}

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

}  // namespace

bool is_archive_path(const std::filesystem::path& path) {
  const std::string s = path.filename().string();
  return s.ends_with(".tar.gz") || s.ends_with(".tgz");
}

Result<void> extract_pack_archive(const std::filesystem::path& archive_path, const std::filesystem::path& dest,
                                  const ArchiveLimits& limits) {
  const std::string where = archive_path.string();
  std::unique_ptr<archive, ReadCloser> a(archive_read_new());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), where.c_str(), 64 * 1024) != ARCHIVE_OK)
    return Error{fmt::format("{}: not a readable .tar.gz: {}", where, error_text(a.get()))};

  std::optional<std::string> top;  // the one top-level directory, when used
  bool root_files = false;
  std::set<std::string> seen;
  std::uint64_t total = 0;
  std::size_t entries = 0;
  archive_entry* entry = nullptr;
  for (;;) {
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) return Error{fmt::format("{}: not a readable .tar.gz: {}", where, error_text(a.get()))};
    const char* raw = archive_entry_pathname(entry);
    std::string name = raw ? raw : "";
    const std::string shown = name.empty() ? "(unnamed entry)" : name;
    auto refuse = [&](std::string_view what) { return Error{fmt::format("{}: {}: {}", where, shown, what)}; };
    if (++entries > limits.max_entries) return refuse(fmt::format("more than {} entries", limits.max_entries));
    if (name.starts_with('/')) return refuse("absolute path");
    while (name.starts_with("./")) name.erase(0, 2);
    const mode_t type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) {
      while (name.ends_with('/')) name.pop_back();
      if (name.empty() || name == ".") continue;  // the archive's own root
      if (name == ".." || name.find("/") != std::string::npos) return refuse("nested directory (a pack is flat)");
      if (!plain_name(name)) return refuse("not a plain directory name");
      if (top && *top != name) return refuse(fmt::format("second top-level directory (the first is '{}')", *top));
      if (root_files) return refuse("top-level directory next to top-level files");
      top = name;
      continue;
    }
    // Components, for ".." and the one allowed directory level.
    std::string file = name;
    if (const std::size_t slash = name.find('/'); slash != std::string::npos) {
      const std::string dir = name.substr(0, slash);
      file = name.substr(slash + 1);
      if (dir == ".." || file == ".." || file.starts_with("../") || file.find("/../") != std::string::npos)
        return refuse("path contains \"..\"");
      if (file.find('/') != std::string::npos) return refuse("nested directory (a pack is flat)");
      if (!plain_name(dir)) return refuse("not a plain directory name");
      if (root_files) return refuse("file inside a directory next to top-level files");
      if (top && *top != dir) return refuse(fmt::format("second top-level directory (the first is '{}')", *top));
      top = dir;
    } else {
      if (name == "..") return refuse("path contains \"..\"");
      if (top) return refuse(fmt::format("top-level file next to the directory '{}'", *top));
      root_files = true;
    }
    if (archive_entry_hardlink(entry)) return refuse("hard link");
    if (type != AE_IFREG) return refuse(entry_kind(type));
    if (!plain_name(file)) return refuse("not a plain file name");
    if (!seen.insert(file).second) return refuse("appears twice");
    if (archive_entry_size_is_set(entry) && archive_entry_size(entry) > 0 &&
        static_cast<std::uint64_t>(archive_entry_size(entry)) > limits.max_file_bytes)
      return refuse(fmt::format("{} bytes, more than the limit of {}", archive_entry_size(entry), limits.max_file_bytes));

    const std::filesystem::path out_path = dest / file;
    FdCloser fd(::open(out_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd.get() < 0) return refuse(fmt::format("cannot create {}: {}", out_path.string(), std::strerror(errno)));
    std::uint64_t written = 0;
    std::array<char, 64 * 1024> buffer{};
    for (;;) {
      const la_ssize_t n = archive_read_data(a.get(), buffer.data(), buffer.size());
      if (n < 0) return refuse(fmt::format("cannot read: {}", error_text(a.get())));
      if (n == 0) break;
      written += static_cast<std::uint64_t>(n);
      total += static_cast<std::uint64_t>(n);
      if (written > limits.max_file_bytes)
        return refuse(fmt::format("more than the limit of {} bytes", limits.max_file_bytes));
      if (total > limits.max_total_bytes)
        return refuse(fmt::format("the archive holds more than the limit of {} bytes", limits.max_total_bytes));
      for (la_ssize_t done = 0; done < n;) {
        const ssize_t w = ::write(fd.get(), buffer.data() + done, static_cast<std::size_t>(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return refuse(fmt::format("cannot write {}: {}", out_path.string(), std::strerror(errno)));
        done += w;
      }
    }
    if (::close(fd.release()) != 0) return refuse(fmt::format("cannot write {}", out_path.string()));
  }
  return {};
}

Result<void> write_pack_archive(const std::filesystem::path& archive_path, const std::filesystem::path& dir,
                                std::vector<std::string> names) {
  const std::string where = archive_path.string();
  std::sort(names.begin(), names.end());
  std::unique_ptr<archive, WriteCloser> a(archive_write_new());
  archive_write_add_filter_gzip(a.get());
  archive_write_set_format_pax_restricted(a.get());
  // The gzip header's timestamp would make every build differ.
  archive_write_set_filter_option(a.get(), "gzip", "timestamp", nullptr);
  if (archive_write_open_filename(a.get(), where.c_str()) != ARCHIVE_OK)
    return Error{fmt::format("{}: cannot create: {}", where, error_text(a.get()))};
  for (const std::string& name : names) {
    if (!plain_name(name)) return Error{fmt::format("{}: '{}' is not a plain file name", where, name)};
    const std::filesystem::path file = dir / name;
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error{fmt::format("{}: cannot read", file.string())};
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::unique_ptr<archive_entry, EntryFree> e(archive_entry_new());
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(bytes.size()));
    archive_entry_set_mtime(e.get(), 0, 0);
    archive_entry_set_uid(e.get(), 0);
    archive_entry_set_gid(e.get(), 0);
    if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK ||
        archive_write_data(a.get(), bytes.data(), bytes.size()) != static_cast<la_ssize_t>(bytes.size()))
      return Error{fmt::format("{}: cannot write {}: {}", where, name, error_text(a.get()))};
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK)
    return Error{fmt::format("{}: cannot finish: {}", where, error_text(a.get()))};
  return {};
}

}  // namespace airlock::host

// Aligned plain-text tables for terminal output: numbers right, text left.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace hpn {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  size_t size() const { return rows_.size(); }
  void render(std::ostream& out, const std::string& indent = "") const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// A count as a sentence prints it, thousands grouped: "6,720".
std::string grouped(int64_t n);

}  // namespace hpn

#include "probe/observation.h"

#include "blueprint/input_file.h"
#include "probe/payload.h"

#include <sys/stat.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace hpn::probe {

using json = nlohmann::ordered_json;

std::string_view to_string(ProbeDirection direction) {
  switch (direction) {
    case ProbeDirection::forward: return "forward";
    case ProbeDirection::reverse: return "reverse";
    case ProbeDirection::expired: return "expired";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& out, ProbeDirection direction) { return out << to_string(direction); }

bool parse_probe_direction(std::string_view text, ProbeDirection& out) {
  for (ProbeDirection d : {ProbeDirection::forward, ProbeDirection::reverse, ProbeDirection::expired}) {
    if (to_string(d) == text) {
      out = d;
      return true;
    }
  }
  return false;
}

namespace {

json opt(int64_t v) { return v < 0 ? json() : json(v); }

}  // namespace

std::string to_json_line(const Observation& o) {
  json j;
  j["run"] = o.run;
  j["probe"] = o.probe;
  j["direction"] = to_string(o.direction);
  j["src"] = {{"device", o.src_device}, {"port", o.src_port}, {"address", o.src_address},
              {"udp_port", o.src_udp_port}};
  j["dst"] = {{"device", o.dst_device}, {"address", o.dst_address}, {"udp_port", o.dst_udp_port}};
  j["received"] = o.received;
  j["rx_port"] = o.received && o.direction != ProbeDirection::expired ? json(o.rx_port) : json();
  auto hops = json::array();
  for (const auto& h : o.hops) {
    hops.push_back({{"node_id", opt(h.node_id)}, {"ingress_if", opt(h.ingress_if)},
                    {"egress_if", opt(h.egress_if)}, {"hop_limit", opt(h.hop_limit)}});
  }
  j["hops"] = hops;
  j["sent_ns"] = o.sent_ns;
  j["received_ns"] = o.received ? json(o.received_ns) : json();
  if (o.direction == ProbeDirection::expired) {
    j["expired"] = {{"hop_limit", o.hop_limit == 0 ? json() : json(o.hop_limit)},
                    {"reporter", o.received ? json(o.reporter) : json()},
                    {"icmp_type", o.received ? json(o.icmp_type) : json()}};
  }
  if (o.entry >= 0) j["entry"] = o.entry;
  if (o.attempt > 1) j["attempt"] = o.attempt;  // absent: the first
  if (o.train > 0) j["train"] = {{"sent", o.train}, {"arrived", o.arrived < 0 ? json() : json(o.arrived)}};
  return j.dump();
}

namespace {

// Field access that says which field was wrong, for the located error.
struct Reader {
  const json& j;
  std::string error;

  const json* at(const json& obj, const char* key, bool required = true) {
    if (!obj.is_object()) {
      if (error.empty()) error = "expected an object";
      return nullptr;
    }
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
      if (required && error.empty()) error = fmt::format("missing '{}'", key);
      return nullptr;
    }
    return &*it;
  }
  // A view of the string in the document, which outlives the record's use of it.
  std::string_view text(const json& obj, const char* key, bool required = true) {
    const json* v = at(obj, key, required);
    if (!v) return {};
    if (!v->is_string()) {
      if (error.empty()) error = fmt::format("'{}' must be a string", key);
      return {};
    }
    return v->get_ref<const std::string&>();
  }
  int64_t integer(const json& obj, const char* key, int64_t min, int64_t max, bool required = true,
                  int64_t absent = -1) {
    const json* v = at(obj, key, required);
    if (!v) return absent;
    if (!v->is_number_integer() || v->get<int64_t>() < min || v->get<int64_t>() > max) {
      if (error.empty()) error = fmt::format("'{}' must be an integer from {} to {}", key, min, max);
      return absent;
    }
    return v->get<int64_t>();
  }
};

}  // namespace

hpn::Status read_observations_into(std::istream& in, const std::string& name, ObservationSet& into,
                                   const ObservationLimits& limits) {
  const std::size_t first = into.size(), skipped = into.skipped_long_paths();
  std::vector<char> buffer(kMaxObservationLine + 2);
  std::vector<ObservedHop> hops;  // the line's, reused
  int number = 0;
  for (;;) {
    // Bounded: std::getline would grow without end on input that has no
    // newline (a device such as /dev/zero, a binary file).
    in.getline(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.fail() && !in.eof() && in.gcount() == static_cast<std::streamsize>(buffer.size()) - 1) {
      return Error{fmt::format("{}:{}: a line longer than {} bytes: not an observation file", name, number + 1,
                               kMaxObservationLine)};
    }
    if (in.gcount() == 0 && !in.good()) break;
    // getline counts the newline it took; a NUL before that is binary.
    const auto taken = static_cast<size_t>(in.gcount()) - (in.eof() ? 0 : 1);
    const std::string_view line(buffer.data(), std::strlen(buffer.data()));
    if (line.size() < taken) return Error{fmt::format("{}: binary content, not an observation file", name)};
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      if (!in.good()) break;
      continue;
    }
    if (into.size() - first >= limits.records) {
      return Error{fmt::format("{}:{}: more than {} observations in one verify: split the run (--scope)", name,
                               number, kMaxObservations)};
    }
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) return Error{fmt::format("{}:{}: not a JSON object", name, number)};
    Reader r{j, {}};
    Observation o;
    o.run = r.text(j, "run");
    o.probe = static_cast<uint64_t>(r.integer(j, "probe", 0, INT64_MAX));
    const std::string_view direction = r.text(j, "direction");
    o.entry = r.integer(j, "entry", 0, INT64_MAX, false, -1);
    o.attempt = static_cast<int>(r.integer(j, "attempt", 1, 256, false, 1));
    if (r.error.empty() && !parse_probe_direction(direction, o.direction)) {
      r.error = "'direction' must be \"forward\", \"reverse\" or \"expired\"";
    }
    if (const json* src = r.at(j, "src")) {
      o.src_device = r.text(*src, "device");
      o.src_port = r.text(*src, "port");
      o.src_address = r.text(*src, "address");
      o.src_udp_port = static_cast<int>(r.integer(*src, "udp_port", 0, 65535));
    }
    if (const json* dst = r.at(j, "dst")) {
      o.dst_device = r.text(*dst, "device");
      o.dst_address = r.text(*dst, "address");
      o.dst_udp_port = static_cast<int>(r.integer(*dst, "udp_port", 0, 65535));
    }
    if (const json* received = r.at(j, "received")) {
      if (!received->is_boolean()) r.error = r.error.empty() ? "'received' must be true or false" : r.error;
      else o.received = received->get<bool>();
    }
    if (o.received && o.direction != ProbeDirection::expired) o.rx_port = r.text(j, "rx_port");
    if (o.direction == ProbeDirection::expired) {
      if (const json* e = r.at(j, "expired")) {
        o.hop_limit = static_cast<int>(r.integer(*e, "hop_limit", 1, 255, false, 0));
        if (o.received) {
          o.reporter = r.text(*e, "reporter");
          o.icmp_type = static_cast<int>(r.integer(*e, "icmp_type", 0, 255));
        }
      }
    }
    hops.clear();
    bool too_long = false;
    if (const json* list = r.at(j, "hops")) {
      if (!list->is_array()) {
        if (r.error.empty()) r.error = "'hops' must be a list";
      } else if (list->size() > limits.hops) {
        too_long = true;
      } else {
        for (const auto& h : *list) {
          ObservedHop hop;
          hop.node_id = static_cast<std::int32_t>(r.integer(h, "node_id", 0, 0xFFFFFF, false));
          hop.ingress_if = static_cast<std::int32_t>(r.integer(h, "ingress_if", 0, 0xFFFF, false));
          hop.egress_if = static_cast<std::int32_t>(r.integer(h, "egress_if", 0, 0xFFFF, false));
          hop.hop_limit = static_cast<std::int32_t>(r.integer(h, "hop_limit", 0, 255, false));
          hops.push_back(hop);
        }
        o.hops = hops;
      }
    }
    if (const json* train = r.at(j, "train", false)) {
      o.train = static_cast<std::int32_t>(r.integer(*train, "sent", 0, kMaxTrainLength));
      o.arrived = static_cast<std::int32_t>(r.integer(*train, "arrived", 0, kMaxTrainLength, false, -1));
      if (r.error.empty() && o.arrived > o.train) r.error = "'train': more arrived than were sent";
      if (r.error.empty() && o.direction != ProbeDirection::forward) r.error = "'train' is for forward records only";
    }
    o.sent_ns = r.integer(j, "sent_ns", 0, INT64_MAX, false, 0);
    o.received_ns = r.integer(j, "received_ns", 0, INT64_MAX, false, 0);
    if (!r.error.empty()) return Error{fmt::format("{}:{}: {}", name, number, r.error)};
    // More hops than the caller's bound (the plan's longest path): no
    // path of the fabric, so no evidence about it; counted for the report.
    if (too_long) into.note_skipped_long_path(fmt::format("{}:{}", name, number));
    else into.add(o);
    if (!in.good()) break;
  }
  if (into.size() == first && into.skipped_long_paths() == skipped) {
    return Error{fmt::format("{}: no observation records (an empty file is no evidence)", name)};
  }
  return {};
}

hpn::Result<ObservationSet> read_observations(std::istream& in, const std::string& name, std::size_t limit) {
  ObservationSet out;
  if (auto st = read_observations_into(in, name, out, {limit, kMaxObservedHops}); !st) return st.error();
  return out;
}

hpn::Status read_observation_file_into(const std::string& path, ObservationSet& into, const ObservationLimits& limits) {
  InputFileStream in;
  if (auto st = in.open(path, "an observation file"); !st) return st.error();
  return read_observations_into(in, path, into, limits);
}

hpn::Result<ObservationSet> read_observation_file(const std::string& path, std::size_t limit) {
  ObservationSet out;
  if (auto st = read_observation_file_into(path, out, {limit, kMaxObservedHops}); !st) return st.error();
  return out;
}

hpn::Result<ObservationSet> read_observation_inputs(const std::vector<std::string>& inputs, std::size_t max_hops) {
  std::vector<std::string> files;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(input, ec)) {
      files.push_back(input);
      continue;
    }
    // An empty file in a directory is an agent that saw nothing (a
    // listener no probe reached): no error, and no evidence either.
    std::vector<std::string> here;
    bool any = false;
    for (const auto& e : std::filesystem::directory_iterator(input, ec)) {
      if (e.path().extension() != ".jsonl" || !e.is_regular_file(ec)) continue;
      any = true;
      if (e.file_size(ec) > 0) here.push_back(e.path().string());
    }
    if (ec) return Error{fmt::format("{}: {}", input, ec.message())};
    if (!any) return Error{fmt::format("{}: no observation file (*.jsonl) in it", input)};
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  // One set for every file: a name or address seen in many is held once.
  ObservationSet all;
  for (const auto& file : files) {
    const ObservationLimits limits{kMaxObservations - std::min(all.size(), kMaxObservations), max_hops};
    if (auto st = read_observation_file_into(file, all, limits); !st) return st.error();
  }
  if (all.empty() && all.skipped_long_paths() == 0) {
    return Error{fmt::format("{}: no observation records (the files are empty)", fmt::join(inputs, ", "))};
  }
  return all;
}

}  // namespace hpn::probe

#include "blueprint/pull_list.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace hpn {

PulledEnd PullEntry::near() const {
  const CableRow& c = cable;
  return near_is_a ? PulledEnd{c.a_rack, c.a_ru, c.a_device, c.a_port, c.label_a}
                   : PulledEnd{c.z_rack, c.z_ru, c.z_device, c.z_port, c.label_z};
}

PulledEnd PullEntry::far() const {
  const CableRow& c = cable;
  return near_is_a ? PulledEnd{c.z_rack, c.z_ru, c.z_device, c.z_port, c.label_z}
                   : PulledEnd{c.a_rack, c.a_ru, c.a_device, c.a_port, c.label_a};
}

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      // Leading zeros do not count; then the longer run is the larger number.
      size_t si = i, sj = j;
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      if (int c = a.compare(si, ei - si, b, sj, ej - sj); c != 0) return c < 0;
      if (ei - i != ej - j) return ei - i < ej - j;  // "01" after "1": still a total order
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

namespace {

// A rack's place on the floor; racks the floor does not list go last, by name.
std::unordered_map<std::string, size_t> floor_order(const std::vector<Rack>& floor) {
  std::unordered_map<std::string, size_t> order;
  for (size_t i = 0; i < floor.size(); ++i) order.emplace(floor[i].name, i);
  return order;
}

size_t place(const std::unordered_map<std::string, size_t>& order, const std::string& rack) {
  auto it = order.find(rack);
  return it == order.end() ? order.size() : it->second;
}

// rack, unit, device, port: the order a rack is worked in.
bool place_less(const std::unordered_map<std::string, size_t>& order, const PulledEnd& x, const PulledEnd& y) {
  const size_t px = place(order, x.rack), py = place(order, y.rack);
  if (px != py) return px < py;
  if (x.rack != y.rack) return x.rack < y.rack;
  if (x.ru != y.ru) return x.ru < y.ru;
  if (x.device != y.device) return natural_less(x.device, y.device);
  return natural_less(x.port, y.port);
}

}  // namespace

std::vector<PullEntry> pull_list(std::vector<CableRow> cables, const std::vector<Rack>& floor,
                                 const std::optional<std::string>& rack) {
  std::vector<PullEntry> list;
  list.reserve(cables.size());
  for (auto& c : cables) {
    const bool near_is_a = !rack || c.a_rack == *rack || c.z_rack != *rack;
    list.push_back({std::move(c), near_is_a});
  }
  const auto order = floor_order(floor);
  std::vector<PulledEnd> near;
  near.reserve(list.size());
  for (const auto& e : list) near.push_back(e.near());
  std::vector<size_t> index(list.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(), [&](size_t x, size_t y) {
    if (place_less(order, near[x], near[y])) return true;
    if (place_less(order, near[y], near[x])) return false;
    return list[x].cable.cable_id < list[y].cable.cable_id;
  });
  std::vector<PullEntry> sorted;
  sorted.reserve(list.size());
  for (size_t i : index) sorted.push_back(std::move(list[i]));
  return sorted;
}

void sort_by_place(std::vector<DeviceRow>& devices, const std::vector<Rack>& floor) {
  const auto order = floor_order(floor);
  std::stable_sort(devices.begin(), devices.end(), [&](const DeviceRow& x, const DeviceRow& y) {
    return place_less(order, {x.rack, x.ru, x.name, "", ""}, {y.rack, y.ru, y.name, "", ""});
  });
}

}  // namespace hpn

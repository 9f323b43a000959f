// Reading a pod spec: YAML in, a complete Spec out, or located errors.
#pragma once

#include <string>
#include <string_view>

#include "blueprint/result.h"
#include "planner/spec.h"

namespace hpn {

// The built-in default pod, byte for byte examples/hpn-pod.yaml.
std::string_view default_spec_text();
Result<Spec> default_spec();

// Parses `text` over the built-in defaults: keys the text leaves out keep the
// default values; lists are replaced whole. Errors are rendered diagnostics
// (`name:line:col: message`, source line, caret), one after another.
Result<Spec> load_spec(std::string_view text, const std::string& source_name);
Result<Spec> load_spec_file(const std::string& path);

// Spec files are short; anything larger is refused before parsing.
inline constexpr size_t kMaxSpecBytes = 1 << 20;

}  // namespace hpn

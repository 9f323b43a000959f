#include "cli/completion.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <sstream>

#include "cli/exit.h"

namespace hpn::cli {

namespace {

// The fixed set of an option's values, as CLI11 describes a CLI::IsMember
// check in the option's type name: "TEXT:{text,table,csv,json}".
std::vector<std::string> fixed_values(const CLI::Option& opt) {
  std::vector<std::string> values;
  const std::string type = opt.get_type_name();
  size_t open = type.find(":{");
  if (open == std::string::npos) return values;
  size_t close = type.find('}', open);
  if (close == std::string::npos) return values;
  std::string list = type.substr(open + 2, close - open - 2);
  std::stringstream in(list);
  for (std::string v; std::getline(in, v, ',');) {
    if (!v.empty()) values.push_back(v);
  }
  return values;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The roles a with_devices() option takes, or "-" for none.
std::string device_roles(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  if (type == "DEVICE") return "";
  if (type == "HOST") return "host";
  if (type == "SWITCH") return "tor agg core";
  return "-";
}

CompletionOption option_entry(const CLI::Option& opt) {
  CompletionOption o;
  for (const auto& s : opt.get_snames()) o.names.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) o.names.push_back("--" + l);
  o.description = first_line(opt.get_description());
  o.takes_value = opt.get_items_expected_max() > 0;  // a flag expects none (its type size is not 0)
  if (o.takes_value) o.values = fixed_values(opt);
  o.devices = o.takes_value ? device_roles(opt) : "-";
  return o;
}

void walk(CLI::App& app, const std::string& path, std::vector<CompletionCommand>& out) {
  CompletionCommand c;
  c.path = path;
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_group().empty() || sub->get_name().empty()) continue;  // hidden or an option group
    c.subcommands.emplace_back(sub->get_name(), first_line(sub->get_description()));
  }
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    if (!opt->nonpositional()) {
      if (c.arguments.empty()) c.arguments = fixed_values(*opt);
      if (c.argument_devices == "-") c.argument_devices = device_roles(*opt);
      continue;
    }
    c.options.push_back(option_entry(*opt));
  }
  // Options an ancestor accepts here through fallthrough (--quiet,
  // --verbose), but not its --help or --version: those are the ancestor's.
  std::vector<std::string> own;
  for (const auto& o : c.options) own.insert(own.end(), o.names.begin(), o.names.end());
  for (const CLI::App* up = app.get_fallthrough() ? app.get_parent() : nullptr; up != nullptr;
       up = up->get_fallthrough() ? up->get_parent() : nullptr) {
    for (const CLI::Option* opt : up->get_options()) {
      if (!opt->nonpositional() || opt->get_group().empty()) continue;
      if (opt == up->get_help_ptr() || opt == up->get_help_all_ptr() || opt == up->get_version_ptr()) continue;
      CompletionOption o = option_entry(*opt);
      bool shadowed = false;
      for (const auto& n : o.names) shadowed = shadowed || std::find(own.begin(), own.end(), n) != own.end();
      if (!shadowed) c.options.push_back(std::move(o));
    }
  }
  out.push_back(std::move(c));
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_group().empty() || sub->get_name().empty()) continue;
    walk(*sub, path + " " + sub->get_name(), out);
  }
}

// A POSIX shell single-quoted word (bash and zsh read it the same).
std::string sq(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string joined(const std::vector<std::string>& words, const char* sep = " ") {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? sep : "") + words[i];
  return out;
}

struct Tables {
  std::vector<std::pair<std::string, std::string>> subs, subs_described, opts, opts_described, valued, values, args;
  std::vector<std::pair<std::string, std::string>> devices;  // "PATH" or "PATH OPTION" -> roles ("" any)
};

Tables tables(const std::vector<CompletionCommand>& commands) {
  Tables t;
  for (const auto& c : commands) {
    std::vector<std::string> subs, subs_d, opts, opts_d, valued;
    for (const auto& [name, desc] : c.subcommands) {
      subs.push_back(name);
      subs_d.push_back(name + ":" + desc);
    }
    for (const auto& o : c.options) {
      for (const auto& n : o.names) {
        opts.push_back(n);
        opts_d.push_back(n + ":" + o.description);
        if (o.takes_value) valued.push_back(n);
        if (!o.values.empty()) t.values.emplace_back(c.path + " " + n, joined(o.values));
        if (o.devices != "-") t.devices.emplace_back(c.path + " " + n, o.devices.empty() ? "any" : o.devices);
      }
    }
    if (!subs.empty()) {
      t.subs.emplace_back(c.path, joined(subs));
      t.subs_described.emplace_back(c.path, joined(subs_d, "\n"));
    }
    t.opts.emplace_back(c.path, joined(opts));
    t.opts_described.emplace_back(c.path, joined(opts_d, "\n"));
    if (!valued.empty()) t.valued.emplace_back(c.path, joined(valued));
    if (!c.arguments.empty()) t.args.emplace_back(c.path, joined(c.arguments));
    if (c.argument_devices != "-") {
      t.devices.emplace_back(c.path, c.argument_devices.empty() ? "any" : c.argument_devices);
    }
  }
  return t;
}

void bash_array(std::ostream& out, const char* name, const std::vector<std::pair<std::string, std::string>>& rows) {
  out << "declare -gA " << name << "=(\n";
  for (const auto& [key, value] : rows) out << "  [" << sq(key) << "]=" << sq(value) << '\n';
  out << ")\n";
}

void zsh_array(std::ostream& out, const char* name, const std::vector<std::pair<std::string, std::string>>& rows) {
  out << name << "=(\n";
  for (const auto& [key, value] : rows) out << "  " << sq(key) << ' ' << sq(value) << '\n';
  out << ")\n";
}

// The command path is found by walking the words before the cursor: a word
// that names a subcommand of the path so far extends it; an option that
// takes a value swallows the next word (readline splits "--opt=value" into
// three words, "--opt", "=" and "value").
constexpr const char* kBashFunction = R"SH(
# The names of the plan's devices of ROLES ("any": all), from the
# --blueprint on the line (default hpn-plan), by hpnctl itself.
_hpnctl_devices() {
  local bp=hpn-plan i
  for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
    case ${COMP_WORDS[i]} in
      --blueprint) bp=${COMP_WORDS[i+1]}; [[ $bp == = ]] && bp=${COMP_WORDS[i+2]} ;;
      --blueprint=*) bp=${COMP_WORDS[i]#*=} ;;
    esac
  done
  "${COMP_WORDS[0]}" devices --blueprint "${bp/#\~/$HOME}" --format csv 2>/dev/null |
    awk -F, -v roles=" $1 " 'NR > 1 && (roles == " any " || index(roles, " " $2 " ")) { print $1 }'
}

_hpnctl() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=hpnctl word opt i skip=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ $word == = ]]; then skip=1; continue; fi
    if ((skip)); then skip=0; continue; fi
    if [[ $word == -* ]]; then
      [[ " ${_hpnctl_valued[$cmd]} " == *" $word "* ]] && skip=1
      continue
    fi
    [[ " ${_hpnctl_subs[$cmd]} " == *" $word "* ]] && cmd="$cmd $word"
  done
  COMPREPLY=()
  if [[ $cur == = ]]; then
    opt=${COMP_WORDS[COMP_CWORD-1]}
    cur=
  elif ((skip)); then
    opt=${COMP_WORDS[COMP_CWORD-1]}
    [[ $opt == = ]] && opt=${COMP_WORDS[COMP_CWORD-2]}
  fi
  if [[ -n $opt ]]; then
    # An open value (a file, a directory, a name) falls back to file names.
    local values=${_hpnctl_values["$cmd $opt"]}
    [[ -n ${_hpnctl_devices["$cmd $opt"]} ]] && values=$(_hpnctl_devices "${_hpnctl_devices["$cmd $opt"]}")
    [[ -n $values ]] && COMPREPLY=($(compgen -W "$values" -- "$cur"))
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "${_hpnctl_opts[$cmd]}" -- "$cur"))
  elif [[ -n ${_hpnctl_subs[$cmd]} ]]; then
    COMPREPLY=($(compgen -W "${_hpnctl_subs[$cmd]}" -- "$cur"))
  elif [[ -n ${_hpnctl_args[$cmd]} ]]; then
    COMPREPLY=($(compgen -W "${_hpnctl_args[$cmd]}" -- "$cur"))
  elif [[ -n ${_hpnctl_devices[$cmd]} ]]; then
    COMPREPLY=($(compgen -W "$(_hpnctl_devices "${_hpnctl_devices[$cmd]}")" -- "$cur"))
  fi
  return 0
}
complete -o default -F _hpnctl hpnctl
)SH";

constexpr const char* kZshFunction = R"SH(
# The names of the plan's devices of ROLES ("any": all), from the
# --blueprint on the line (default hpn-plan), by hpnctl itself.
_hpnctl_devices() {
  local bp=hpn-plan
  local -i i
  for ((i = 2; i <= ${#words}; i++)); do
    case ${words[i]} in
      --blueprint) bp=${words[i+1]} ;;
      --blueprint=*) bp=${words[i]#*=} ;;
    esac
  done
  ${words[1]} devices --blueprint ${~bp} --format csv 2>/dev/null |
    awk -F, -v roles=" $1 " 'NR > 1 && (roles == " any " || index(roles, " " $2 " ")) { print $1 }'
}

_hpnctl() {
  local cmd=hpnctl word opt cur=${words[CURRENT]}
  local -i i skip=0
  local -a entries values
  for ((i = 2; i < CURRENT; i++)); do
    word=${words[i]}
    if ((skip)); then skip=0; continue; fi
    if [[ $word == -* ]]; then
      [[ $word != *=* && " ${_hpnctl_valued[$cmd]} " == *" $word "* ]] && skip=1
      continue
    fi
    [[ " ${_hpnctl_subs[$cmd]} " == *" $word "* ]] && cmd="$cmd $word"
  done
  if ((skip)); then
    opt=${words[CURRENT-1]}
  elif [[ $cur == -*=* ]]; then
    opt=${cur%%=*}
    compset -P '*='
  fi
  if [[ -n $opt ]]; then
    values=(${=_hpnctl_values[$cmd $opt]})
    [[ -n ${_hpnctl_devices[$cmd $opt]} ]] && values=(${(f)"$(_hpnctl_devices ${_hpnctl_devices[$cmd $opt]})"})
    if ((${#values})); then
      compadd -a values
    else
      _files
    fi
    return
  fi
  if [[ $cur == -* ]]; then
    entries=(${(f)_hpnctl_opts_described[$cmd]})
    _describe -t options option entries
  elif [[ -n ${_hpnctl_subs[$cmd]} ]]; then
    entries=(${(f)_hpnctl_subs_described[$cmd]})
    _describe -t commands command entries
  elif [[ -n ${_hpnctl_args[$cmd]} ]]; then
    values=(${=_hpnctl_args[$cmd]})
    compadd -a values
  elif [[ -n ${_hpnctl_devices[$cmd]} ]]; then
    values=(${(f)"$(_hpnctl_devices ${_hpnctl_devices[$cmd]})"})
    compadd -a values
  else
    _files
  fi
}

# Autoloaded from $fpath this file is the body of _hpnctl; sourced, it registers it.
if [[ ${funcstack[1]} == _hpnctl ]]; then
  _hpnctl "$@"
else
  compdef _hpnctl hpnctl
fi
)SH";

}  // namespace

std::vector<CompletionCommand> completion_table(CLI::App& app) {
  std::vector<CompletionCommand> out;
  walk(app, "hpnctl", out);
  return out;
}

std::string completion_script(CLI::App& app, std::string_view shell) {
  Tables t = tables(completion_table(app));
  std::ostringstream out;
  if (shell == "zsh") {
    out << "#compdef hpnctl\n";
    out << "# zsh completion for hpnctl, generated from its command table by `hpnctl completion zsh`.\n";
    out << "typeset -gA _hpnctl_subs _hpnctl_subs_described _hpnctl_opts_described _hpnctl_valued _hpnctl_values"
           " _hpnctl_args _hpnctl_devices\n";
    zsh_array(out, "_hpnctl_subs", t.subs);
    zsh_array(out, "_hpnctl_subs_described", t.subs_described);
    zsh_array(out, "_hpnctl_opts_described", t.opts_described);
    zsh_array(out, "_hpnctl_valued", t.valued);
    zsh_array(out, "_hpnctl_values", t.values);
    zsh_array(out, "_hpnctl_args", t.args);
    zsh_array(out, "_hpnctl_devices", t.devices);
    out << kZshFunction;
  } else {
    out << "# bash completion for hpnctl, generated from its command table by `hpnctl completion bash`.\n";
    bash_array(out, "_hpnctl_subs", t.subs);
    bash_array(out, "_hpnctl_opts", t.opts);
    bash_array(out, "_hpnctl_valued", t.valued);
    bash_array(out, "_hpnctl_values", t.values);
    bash_array(out, "_hpnctl_args", t.args);
    bash_array(out, "_hpnctl_devices", t.devices);
    out << kBashFunction;
  }
  return out.str();
}

void add_completion_command(CLI::App& app, int& exit_code) {
  auto shell = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("completion", "Print a bash or zsh completion script for hpnctl");
  cmd->add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  cmd->footer("bash: source <(hpnctl completion bash), or install it as\n"
              "  /usr/share/bash-completion/completions/hpnctl\n"
              "zsh:  install it as _hpnctl in a directory of $fpath, before compinit");
  cmd->callback([&app, shell, &exit_code] {
    std::cout << completion_script(app, *shell);
    exit_code = kOk;
  });
}

}  // namespace hpn::cli

#include "cli/probe_command.h"

#include "cli/exit.h"

#include <fmt/format.h>

#include <algorithm>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "blueprint/atomic_file.h"
#include "blueprint/store.h"
#include "probe/agent_listener.h"
#include "probe/agent_output.h"
#include "probe/agent_sender.h"
#include "probe/agent_trace.h"
#include "probe/authenticated_network.h"
#include "probe/plan_dir.h"
#include "probe/privilege.h"
#include "probe/probe_auth.h"
#include "probe/probe_key.h"
#include "probe/socket_udp.h"
#include "validator/loss_estimate.h"

namespace hpn::cli {

namespace {

// Set by SIGINT/SIGTERM; the run loops poll it. Installed without SA_RESTART
// so a wait in ppoll() returns at once.
volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return g_stop != 0; }

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

// The options both commands share: how this host's interfaces are named in
// the blueprint, and the trace's IOAM namespace.
struct Naming {
  std::string device;
  std::string port_names;  // --port-name IF=PORT,...
  std::string ports_from;  // --ports-from FILE
  unsigned ioam_namespace = 123;
  unsigned udp_port = probe::kDefaultProbePort;
};

void add_naming(CLI::App* cmd, Naming& n) {
  cmd->add_option("--device-name", n.device, "This host's name in the blueprint (default: the host name)");
  cmd->add_option("--port-name", n.port_names, "Interface to blueprint port names: IFNAME=PORTNAME,...");
  cmd->add_option("--ports-from", n.ports_from,
                  "Take the names from a JSON file such as `hpnctl lab status --format json`, entry --device-name");
  cmd->add_option("--ioam-namespace", n.ioam_namespace, "IOAM namespace of the traces (the fabric's)")
      ->check(CLI::Range(0, 65535))->capture_default_str();
  cmd->add_option("--udp-port", n.udp_port, "UDP port listeners answer on")
      ->check(CLI::Range(1, 65535))->capture_default_str();
}

hpn::Result<probe::PortNames> port_names(Naming& n) {
  if (n.device.empty()) n.device = host_name();
  probe::PortNames names;
  if (!n.ports_from.empty()) {
    if (auto s = probe::read_port_names_file(n.ports_from, n.device, names); !s) return s.error();
  }
  if (auto s = probe::parse_port_names(n.port_names, names); !s) return Error{"--port-name " + s.error().message};
  return names;
}

// What makes the agent trust nothing (probe_auth.h, privilege.h): the key
// (a file or the environment, never an argument), the user it drops to.
struct Trust {
  std::string key_file;
  std::string key_on_argv;  // only to refuse it with a useful message
  std::string user = "nobody";
  std::string format = "text";
};

void add_trust(CLI::App* cmd, Trust& t) {
  cmd->add_option("--key-file", t.key_file,
                  "File with the probe key in hex, mode 0600 (default: the HPNCTL_PROBE_KEY environment variable)");
  cmd->add_option("--user", t.user, "Unprivileged user to switch to once the sockets are open (keeps CAP_NET_RAW)")
      ->capture_default_str();
  cmd->add_option("--format", t.format, "Summary on stdout: text or json")
      ->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  // Not an option: a key given on the command line is refused (hidden from --help).
  cmd->add_option("--key", t.key_on_argv)->group("");
}

hpn::Result<probe::ProbeKey> load_key(const Trust& t) {
  if (!t.key_on_argv.empty()) {
    return Error{"--key: the probe key is never taken from the command line, where every user of the host can read "
                 "it; give --key-file FILE (mode 0600) or the HPNCTL_PROBE_KEY environment variable"};
  }
  return probe::load_probe_key(t.key_file);
}

// Sockets open, the key read: from here the agent runs as `user` with
// CAP_NET_RAW alone, so an output file must go where that user may write,
// or be a descriptor opened for it before (-o /dev/fd/3 3>FILE: how
// verify --lab and verify.yml give it one, blueprint/atomic_file.h).
hpn::Status drop_and_check_output(const Trust& t, const std::string& output) {
  auto dropped = probe::drop_privileges(t.user);
  if (!dropped) return dropped.error();
  if (output.empty() || hpn::is_open_stream_name(output)) return {};
  std::filesystem::path dir = std::filesystem::path(output).parent_path();
  if (dir.empty()) dir = ".";
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return Error{fmt::format("-o {}: directory {} is not writable by user {}, which the agent runs as once its "
                             "sockets are open (see --user)",
                             output, dir.string(), dropped->user.empty() ? std::to_string(getuid()) : dropped->user)};
  }
  return {};
}

nlohmann::json rejected_json(const probe::AuthCounts& a) {
  return {{"bad_length", a.bad_length}, {"bad_hmac", a.bad_hmac}, {"wrong_run", a.wrong_run},
          {"replay", a.replay}, {"rate_limited", a.rate_limited}};
}

std::string rejected_text(const probe::AuthCounts& a) {
  return fmt::format("rejected: bad length {}, bad hmac {}, wrong run {}, replay {}, rate limited {}", a.bad_length,
                     a.bad_hmac, a.wrong_run, a.replay, a.rate_limited);
}

struct ListenArgs {
  Naming naming;
  Trust trust;
  std::string run;
  double source_rate = 20000;
  double duration_s = 0;
  std::string interfaces;
  std::string output;
};

int run_listen(ListenArgs& a) {
  auto names = port_names(a.naming);
  if (!names) return fail(kInputError, names.error().message);
  auto key = load_key(a.trust);
  if (!key) return fail(kInputError, key.error().message);
  probe::GuardOptions guarding;
  guarding.run_id = probe::run_id_of(a.run);
  guarding.source_rate = a.source_rate;
  auto guard = probe::ProbeGuard::create(key.value(), guarding);
  if (!guard) return fail(kEnvironmentError, guard.error().message);
  probe::ListenerOptions o;
  o.udp_port = static_cast<std::uint16_t>(a.naming.udp_port);
  o.port_names = std::move(names.value());
  o.duration_ns = static_cast<std::int64_t>(a.duration_s * probe::kNsPerSecond);
  o.interfaces = probe::split_list(a.interfaces);
  if (o.interfaces.empty()) {
    auto all = probe::probe_interfaces();
    if (!all) return fail(kEnvironmentError, all.error().message);
    o.interfaces = std::move(all.value());
  }
  probe::UdpNetwork network(probe::probe_hop_by_hop(static_cast<std::uint16_t>(a.naming.ioam_namespace)));
  if (auto s = probe::open_listener(o, network); !s) return fail(kEnvironmentError, s.error().message);
  if (auto s = drop_and_check_output(a.trust, a.output); !s) return fail(kEnvironmentError, s.error().message);
  install_signal_handlers();
  // Scripts wait for this line before they send.
  std::cerr << fmt::format("hpnctl: listening on {} port {} (run {:016x}, pid {})\n", fmt::join(o.interfaces, ", "),
                           o.udp_port, guarding.run_id, getpid())
            << std::flush;
  std::vector<probe::ObservationRecord> seen;
  if (!a.output.empty()) {
    o.device = a.naming.device;
    o.ioam_namespace = static_cast<std::uint16_t>(a.naming.ioam_namespace);
    o.record = [&](const probe::ObservationRecord& obs) { seen.push_back(obs); };
  }
  probe::SystemClock clock;
  probe::AuthenticatedNetwork authenticated(network, *guard.value(), clock);
  const auto c = probe::run_listener(o, authenticated, clock, stop_requested);
  if (!a.output.empty()) {
    if (auto s = probe::write_observation_file(a.output, seen); !s) return fail(kEnvironmentError, s.error().message);
  }
  const auto& r = guard.value()->counts();
  if (a.trust.format == "json") {
    const nlohmann::json j = {
        {"run", fmt::format("{:016x}", guarding.run_id)},
        {"datagrams", r.accepted + r.rejected()},
        {"received", c.received},
        {"answered", c.answered},
        {"train_datagrams", c.train_datagrams},
        {"send_errors", c.send_errors},
        {"ignored", {{"foreign", c.foreign}, {"unknown_version", c.unknown_version}, {"not_a_probe", c.not_a_probe},
                     {"malformed", c.malformed}, {"without_trace", c.without_trace}}},
        {"rejected", rejected_json(r)},
        {"senders_tracked", guard.value()->senders_tracked()},
        {"senders_forgotten", r.senders_forgotten}};
    std::cout << j.dump() << '\n';
    return kOk;
  }
  std::cout << fmt::format(
      "received {}, answered {}, train datagrams counted {}, send errors {}; ignored: foreign {}, unknown version {}, "
      "not a probe {}, malformed {}, without trace {}; {}\n",
      c.received, c.answered, c.train_datagrams, c.send_errors, c.foreign, c.unknown_version, c.not_a_probe, c.malformed,
      c.without_trace, rejected_text(r));
  return kOk;
}

struct SendArgs {
  Naming naming;
  Trust trust;
  std::string from, to, source_ports = "49152-49167", run, output, plan;
  unsigned probes = 16, rate = 1000, timeout_ms = 500, retries = 2;
  bool probes_given = false, source_ports_given = false;
};

int run_send(SendArgs& a) {
  auto names = port_names(a.naming);
  if (!names) return fail(kInputError, names.error().message);
  auto key = load_key(a.trust);
  if (!key) return fail(kInputError, key.error().message);
  probe::SenderOptions o;
  if (a.run.empty()) {
    auto random = probe::random_hex(8);
    if (!random) return fail(kEnvironmentError, random.error().message);
    a.run = *random;
  }
  o.run = a.run;
  o.device = a.naming.device;
  o.probes = a.probes;
  o.rate = a.rate;
  o.timeout_ns = static_cast<std::int64_t>(a.timeout_ms) * probe::kNsPerMs;
  o.retries = a.retries;
  o.udp_port = static_cast<std::uint16_t>(a.naming.udp_port);
  o.ioam_namespace = static_cast<std::uint16_t>(a.naming.ioam_namespace);
  // Either a plan file, or ports x destinations x probes.
  if (a.plan.empty() && (a.from.empty() || a.to.empty())) return fail(kInputError, "give --from and --to, or --plan FILE");
  if (!a.plan.empty() && (!a.from.empty() || !a.to.empty())) {
    return fail(kInputError, "--plan gives the ports and destinations: no --from or --to with it");
  }
  std::vector<std::string> from = probe::split_list(a.from);
  if (!a.plan.empty()) {
    if (a.probes_given || a.source_ports_given) {
      return fail(kInputError, "--plan gives each probe's source port: no --probes or --source-ports with it");
    }
    auto plan = probe::read_send_plan(a.plan);
    if (!plan) return fail_located(kInputError, plan.error().message);
    from = plan->from;
    o.destinations = plan->to;
    for (const auto& p : plan->probes) o.planned.push_back({p.from, p.to, p.source_port, p.entry, p.train});
  } else {
    auto range = probe::parse_port_range(a.source_ports);
    if (!range) return fail(kInputError, "--source-ports " + range.error().message);
    o.source_ports = *range;
    auto destinations = probe::parse_destinations(a.to);
    if (!destinations) return fail(kInputError, "--to " + destinations.error().message);
    o.destinations = std::move(destinations.value());
  }
  // --from takes interface names or, when mapped, blueprint port names.
  for (const auto& entry : from) {
    const std::string ifname = names->interface_of(entry).value_or(entry);
    auto address = probe::interface_global_address(ifname);
    if (!address) return fail(kEnvironmentError, "--from " + address.error().message);
    o.ports.push_back({ifname, names->port_of(ifname), *address});
  }
  o.port_names = std::move(names.value());
  if (auto s = probe::check_sender_options(o); !s) return fail(kInputError, s.error().message);
  // A listener answers each attempt once: replies from one source faster
  // than twice this sender's own rate are not answers.
  probe::GuardOptions guarding;
  guarding.run_id = probe::run_id_of(o.run);
  guarding.source_rate = 2.0 * o.rate;
  auto guard = probe::ProbeGuard::create(key.value(), guarding);
  if (!guard) return fail(kEnvironmentError, guard.error().message);
  probe::UdpNetwork network(probe::probe_hop_by_hop(o.ioam_namespace));
  if (auto s = probe::open_sender(o, network); !s) return fail(kEnvironmentError, s.error().message);
  // Hop-limited probes are answered by the switches' ICMPv6 errors.
  const bool limited = std::any_of(o.destinations.begin(), o.destinations.end(),
                                   [](const probe::Destination& d) { return d.hop_limit > 0; });
  if (limited) {
    if (auto s = network.open_icmp(); !s) return fail(kEnvironmentError, s.error().message);
  }
  if (auto s = drop_and_check_output(a.trust, a.output); !s) return fail(kEnvironmentError, s.error().message);
  install_signal_handlers();
  std::cerr << fmt::format("hpnctl: run {}: {} probes from {} port(s) to {} host(s), done within {:.1f} s\n", o.run,
                           probe::planned_probes(o), o.ports.size(),
                           o.destinations.size(), static_cast<double>(probe::sender_budget_ns(o)) / 1e9);
  probe::SystemClock clock;
  probe::AuthenticatedNetwork authenticated(network, *guard.value(), clock);
  const auto result = probe::run_sender(o, authenticated, clock, stop_requested);
  if (auto s = probe::write_observation_file(a.output, result.observations); !s) {
    return fail(kEnvironmentError, s.error().message);
  }
  const auto& c = result.counts;
  const auto& r = guard.value()->counts();
  if (a.trust.format == "json") {
    const nlohmann::json j = {
        {"run", o.run}, {"probes", c.probes}, {"answered", c.answered}, {"late", c.late}, {"lost", c.lost},
        {"icmp_answers", c.icmp_answers},
        {"unsent", c.unsent}, {"abandoned", c.abandoned}, {"sent", c.sent}, {"train_datagrams", c.train_datagrams},
        {"retries", c.retries}, {"recounts", c.recounts}, {"stragglers", c.stragglers},
        {"send_errors", c.send_errors}, {"unreadable_traces", c.bad_traces},
        {"ignored", {{"foreign", c.foreign}, {"other_run", c.other_run}, {"unexpected", c.unexpected},
                     {"duplicate", c.duplicates}}},
        {"rejected", rejected_json(r)}, {"observations", result.observations.size()}, {"output", a.output}};
    std::cout << j.dump() << '\n';
  } else {
    std::cout << fmt::format(
        "run {}: {} probes, {} answered ({} late), {} lost, {} unsent, {} abandoned; {} datagrams sent ({} of trains), "
        "{} retries, {} recounts ({} stragglers), {} send errors; {} unreadable traces; ignored: foreign {}, other "
        "run {}, unexpected {}, duplicate {}; {}; {} observations in {}\n",
        o.run, c.probes, c.answered, c.late, c.lost, c.unsent, c.abandoned, c.sent, c.train_datagrams, c.retries,
        c.recounts, c.stragglers, c.send_errors,
        c.bad_traces, c.foreign, c.other_run, c.unexpected, c.duplicates, rejected_text(r),
        result.observations.size(), a.output);
  }
  if (result.interrupted) return fail(kEnvironmentError, "interrupted: the run is incomplete");
  return kOk;
}

struct PlanArgs {
  std::string blueprint = "hpn-plan";
  std::string output;
  std::string format = "text";
  std::vector<std::string> observations;
  probe::PlanSettings settings;
  bool no_switch_probes = false;
};

void print_plan_step(const probe::PlanStep& step, const std::string& dir, const std::string& format) {
  const auto& s = step.summary;
  if (format == "json") {
    std::cout << s.dump() << '\n';
    return;
  }
  const auto& sent = s["rounds_sent"];
  if (step.done) {
    std::cout << fmt::format("{}: done after {} rounds ({}): {} entries, {} probes\n", dir, sent.size(),
                             fmt::join(sent.begin(), sent.end(), ", "), s["state"]["entries"].get<std::size_t>(),
                             s["state"]["probes"].get<std::int64_t>());
    return;
  }
  const auto& r = s["round"];
  std::cout << fmt::format("{}: round {}: {} probes from {} senders on {} hosts at {}/s each; listeners on {} "
                           "hosts; plan files in {}/{}\n",
                           dir, r["name"].get<std::string>(), r["probes"].get<int>(), r["senders"].size(),
                           r["hosts"].size(), r["rate"].get<int>(), s["listeners"].size(), dir,
                           r["dir"].get<std::string>());
}

int run_plan(const PlanArgs& a, const std::vector<std::string>& settings_given) {
  auto store = BlueprintStore::open(a.blueprint);
  if (!store) return fail(kInputError, store.error().message);
  auto bp = store->load();
  if (!bp) return fail(kInputError, bp.error().message);
  auto step = [&]() -> Result<probe::PlanStep> {
    if (probe::is_plan_dir(a.output)) {
      // A started plan keeps the settings it was started with.
      if (!settings_given.empty()) {
        return Error{fmt::format("{}: the plan there keeps the settings it was started with; {} would change them "
                                 "(start a new plan in another directory)",
                                 a.output, fmt::join(settings_given, ", "))};
      }
      return probe::next_plan_round(bp.value(), a.output, a.observations, validator::loss_state);
    }
    if (!a.observations.empty()) {
      return Error{fmt::format("{} holds no plan yet: observations are for the rounds after the first", a.output)};
    }
    probe::PlanSettings settings = a.settings;
    settings.switch_probes = !a.no_switch_probes;
    if (settings.lossy_detect > 0 && settings.lossy_detect <= settings.lossy_warn) {
      return Error{fmt::format("--lossy-detect ({}) must be above --lossy-warn ({}), or 0", settings.lossy_detect,
                               settings.lossy_warn)};
    }
    if (settings.lossy_warn > settings.lossy_critical) {
      return Error{fmt::format("--lossy-warn ({}) must not be above --lossy-critical ({})", settings.lossy_warn,
                               settings.lossy_critical)};
    }
    return probe::start_plan(bp.value(), a.output, settings, validator::loss_state);
  }();
  if (!step) return fail_located(kInputError, step.error().message);
  print_plan_step(step.value(), a.output, a.format);
  return kOk;
}

}  // namespace

void add_probe_commands(CLI::App& app, int& exit_code) {
  auto* probe = app.add_subcommand("probe", "Send and answer per-hop telemetry probes (see hpnctl-probe(1))");
  probe->require_subcommand(1);

  auto listen = std::make_shared<ListenArgs>();
  auto* listen_cmd = probe->add_subcommand("listen", "Answer probes with their trace, out of the port they came in on");
  add_naming(listen_cmd, listen->naming);
  add_trust(listen_cmd, listen->trust);
  listen_cmd->add_option("--run", listen->run, "The run to answer (as the senders' --run); probes of others are rejected")
      ->required();
  listen_cmd->add_option("--source-rate", listen->source_rate,
                         "Authenticated datagrams per second taken from one source address; 0: no limit")
      ->check(CLI::Range(0.0, 1e8))->capture_default_str();
  listen_cmd->add_option("--duration", listen->duration_s, "Seconds to run; 0: until SIGINT or SIGTERM")
      ->check(CLI::Range(0.0, 31536000.0))->capture_default_str();
  listen_cmd->add_option("--interfaces", listen->interfaces,
                         "Interfaces to answer on, IF,...; default: every interface up with IPv6");
  listen_cmd->add_option("-o,--output", listen->output,
                         "Also write each probe as it arrived here (observations without the sender's port)");
  listen_cmd->callback([listen, &exit_code] { exit_code = run_listen(*listen); });

  auto send = std::make_shared<SendArgs>();
  auto* send_cmd = probe->add_subcommand("send", "Probe hosts out of chosen NIC ports; write observations");
  add_naming(send_cmd, send->naming);
  add_trust(send_cmd, send->trust);
  send_cmd->add_option("--from", send->from, "Ports to send out of, PORT,... (interface or mapped port names)");
  send_cmd->add_option("--to", send->to, "Hosts to probe, HOST=ADDRESS,... (HOST as the blueprint names it)");
  send_cmd->add_option("--plan", send->plan,
                       "Send exactly a probe plan's probes: JSON lines of entry, from, to, source_ports "
                       "(instead of --from, --to, --probes, --source-ports)");
  send_cmd->add_option("--probes", send->probes, "Probes per port and host")
      ->capture_default_str()
      ->each([send](const std::string&) { send->probes_given = true; });
  send_cmd->add_option("--source-ports", send->source_ports, "UDP source ports to step through, A-B")
      ->capture_default_str()
      ->each([send](const std::string&) { send->source_ports_given = true; });
  send_cmd->add_option("--rate", send->rate, "Datagrams per second, retries included")
      ->check(CLI::Range(1u, 1000000u))->capture_default_str();
  send_cmd->add_option("--timeout", send->timeout_ms, "Milliseconds to wait for each reply")
      ->check(CLI::Range(1u, 600000u))->capture_default_str();
  send_cmd->add_option("--retries", send->retries, "Attempts after the first before a probe counts as lost")
      ->check(CLI::Range(0u, probe::kMaxRetries))->capture_default_str();
  send_cmd->add_option("--run", send->run, "Run identifier (default: 16 random hex digits)");
  send_cmd->add_option("-o,--output", send->output, "Observation file (JSON lines), replaced when the run ends")
      ->required();
  send_cmd->callback([send, &exit_code] { exit_code = run_send(*send); });

  auto plan = std::make_shared<PlanArgs>();
  auto* plan_cmd = probe->add_subcommand(
      "plan", "Write the probe plan's next round as `probe send --plan` files, for a fleet's agents");
  plan_cmd->add_option("observations", plan->observations,
                       "The senders' observation files so far, or directories of them (*.jsonl)");
  plan_cmd->add_option("-o,--output", plan->output, "The plan's directory: new to start a plan, else its next round")
      ->required();
  plan_cmd->add_option("--blueprint", plan->blueprint, "Plan directory")->capture_default_str();
  plan_cmd->add_option("--format", plan->format, "Summary on stdout: text or json")
      ->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  // The settings a plan is started with; later rounds keep them.
  auto& ps = plan->settings;
  std::vector<CLI::Option*> settings{
      plan_cmd->add_option("--scope", ps.scope, "The hosts to verify: pod=N[,segment=N], rack=NAME, devices=A,B,...; "
                                                "default the whole fabric"),
      plan_cmd->add_option("--probes-per-pair", ps.probes_per_pair, "Probes per port and destination in a round")
          ->check(CLI::Range(1, 64))->capture_default_str(),
      plan_cmd->add_option("--max-probes-per-pair", ps.max_probes_per_pair, "The bound later rounds respect")
          ->check(CLI::Range(1, 4096))->capture_default_str(),
      plan_cmd->add_option("--max-rounds", ps.max_rounds, "Rounds per phase (switch probes, hosts, then losses)")
          ->check(CLI::Range(1, 64))->capture_default_str(),
      plan_cmd->add_flag("--no-switch-probes", plan->no_switch_probes, "Leave out the probes the switches answer"),
      plan_cmd->add_option("--lossy-budget", ps.lossy_budget,
                           "Attempts the loss rounds' trains may make across any one direction")
          ->check(CLI::Range(std::int64_t{0}, std::int64_t{100'000'000}))->capture_default_str(),
      plan_cmd->add_option("--lossy-detect", ps.lossy_detect,
                           "Percent loss, above the background, the loss rounds' trains are sized to find; 0: none")
          ->check(CLI::Range(0.0, 100.0))->capture_default_str(),
      plan_cmd->add_option("--assume-loss", ps.assume_loss, "Percent loss a silent direction's probes are allowed")
          ->check(CLI::Range(0.0, 99.0))->capture_default_str(),
      plan_cmd->add_option("--lossy-warn", ps.lossy_warn, "Percent loss of a lossy warning")
          ->check(CLI::Range(0.0, 100.0))->capture_default_str(),
      plan_cmd->add_option("--lossy-critical", ps.lossy_critical, "Percent loss of a critical lossy finding")
          ->check(CLI::Range(0.0, 100.0))->capture_default_str(),
      plan_cmd->add_option("--lossy-max-background", ps.lossy_max_background,
                           "Percent background loss above which no direction is judged lossy")
          ->check(CLI::Range(0.0, 100.0))->capture_default_str(),
      plan_cmd->add_option("--timeout", ps.senders.timeout_ms, "The senders' milliseconds to wait for each reply")
          ->check(CLI::Range(1, 600000))->capture_default_str(),
      plan_cmd->add_option("--retries", ps.senders.retries, "The senders' attempts after the first")
          ->check(CLI::Range(0, static_cast<int>(probe::kMaxRetries)))->capture_default_str(),
      plan_cmd->add_option("--rate", ps.senders.rate, "Datagrams per second per sender of the hosts' rounds")
          ->check(CLI::Range(1, 1000000))->capture_default_str(),
      plan_cmd->add_option("--switch-probe-rate", ps.senders.switch_probe_rate,
                           "Datagrams per second per sender of the switch rounds (each switch's pace)")
          ->check(CLI::Range(1, 1000000))->capture_default_str()};
  plan_cmd->callback([plan, settings, &exit_code] {
    std::vector<std::string> given;
    for (const auto* o : settings) {
      if (o->count() > 0) given.push_back(o->get_name());
    }
    exit_code = run_plan(*plan, given);
  });

  auto key_file = std::make_shared<std::string>();
  auto* key_cmd = probe->add_subcommand("key", "Write a new random probe key (hex) to a file of mode 0600");
  key_cmd->add_option("-o,--output", *key_file, "The key file, replaced atomically")->required();
  key_cmd->callback([key_file, &exit_code] {
    auto s = probe::write_new_probe_key(*key_file);
    exit_code = s ? kOk : fail(kEnvironmentError, s.error().message);
  });
}

}  // namespace hpn::cli

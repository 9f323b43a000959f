// The send plan reader (probe/agent_options.h, `probe send --plan`): a
// round's file for one sender, written by `probe plan` and copied to a
// host. Every error names the file; every probe of a plan it accepts
// names a port and a destination of that plan and a UDP port.
#include "probe/agent_options.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto plan = hpn::probe::parse_send_plan(hpn::fuzz::text_of(data, size), "fuzz.plan.jsonl");
  if (!plan) {
    HPN_FUZZ_CHECK(plan.error().message.starts_with("fuzz.plan.jsonl"));
    return 0;
  }
  HPN_FUZZ_CHECK(!plan->probes.empty());
  for (const auto& p : plan->probes) {
    HPN_FUZZ_CHECK(p.from < plan->from.size() && p.to < plan->to.size());
    HPN_FUZZ_CHECK(p.source_port >= 1);
    HPN_FUZZ_CHECK(!plan->from[p.from].empty() && !plan->to[p.to].address.empty());
  }
  return 0;
}

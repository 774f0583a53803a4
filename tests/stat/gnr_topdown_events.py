#!/usr/bin/env python3
"""Writes fixtures/events/gnr_topdown.json: the events of Granite Rapids' TopdownL3..L6
groups as x86 perf 7.3's built-in GNR table resolves them, from its `-vv` lines
("..after resolving event: cpu/.../") of
  perf-7.3 stat -vv --topdown --td-level N -a -- true     (N = 3..6)
run as tests/stat/topdown_stat.sh runs it (fake GNR tree with an msr PMU and NFIT,
PERF_CPUID=GenuineIntel-6-AD-0, the simulated PMU). Usage: gnr_topdown_events.py VV... >OUT"""
import json
import re
import sys

NOTE = ("pmutrace fixture for GNR's TopdownL3..L6 groups (encodings as perf 7.3's built-in "
        "GNR table resolves them: stat --topdown --td-level N -vv under "
        "PERF_CPUID=GenuineIntel-6-AD-0; tests/stat/gnr_topdown_events.py)")
MSRS = (("frontend", "0x3F7"), ("offcore_rsp", "0x1A6"), ("ldlat", "0x3F6"))
seen = {}
for path in sys.argv[1:]:
    for line in open(path):
        m = re.search(r"after resolving event: cpu/(.*)/$", line.strip())
        if not m:
            continue
        terms, name = {}, None
        for t in m.group(1).split(","):
            k, _, v = t.partition("=")
            if k == "metric-id":
                name = v
            else:
                terms[k] = v if v else "1"  # a later term wins, as in perf
        if not name or name.startswith("topdown!"):
            continue
        inline = re.match(r"cpu!3([A-Z0-9_.]+)((?:!0[a-z]+(?:!2[0-9a-fx]+)?)*)!3$", name)
        after = re.match(r"([A-Z0-9_.]+)!3[a-z_]+!2[0-9a-fx]+!3$", name)
        if inline:  # cpu@EVENT\,cmask\=1@: the event without the metric's own terms
            for k in re.findall(r"!0([a-z]+)", inline.group(2)):
                terms.pop(k, None)
            name = inline.group(1)
        elif after:  # EVENT@offcore_rsp\=...@: the table's terms came last and won
            name = after.group(1)
        elif "!" in name:
            sys.exit("unknown metric-id form: " + name)
        name = name.split(":")[0]
        if name in seen:
            continue
        e = {"BriefDescription": NOTE, "EventCode": terms.get("event", "0x0"),
             "EventName": name}
        if "period" in terms:
            e["SampleAfterValue"] = str(int(terms["period"], 0))
        e["UMask"] = terms.get("umask", "0x0")
        if "cmask" in terms:
            e["CounterMask"] = str(int(terms["cmask"], 0))
        if "edge" in terms:
            e["EdgeDetect"] = "1"
        if "inv" in terms:
            e["Invert"] = "1"
        for term, msr in MSRS:
            if term in terms:
                e["MSRIndex"], e["MSRValue"] = msr, terms[term]
        left = set(terms) - {"event", "period", "umask", "cmask", "edge", "inv"} - \
            {t for t, _ in MSRS}
        if left:
            sys.exit("%s: terms not written: %s" % (name, sorted(left)))
        seen[name] = e
json.dump([seen[k] for k in sorted(seen)], sys.stdout, indent=4)
print()

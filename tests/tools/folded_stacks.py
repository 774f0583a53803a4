#!/usr/bin/env python3
"""Call stacks in the folded form of flame graphs ("root;...;leaf COUNT", sorted), from
either side of a comparison:
  folded_stacks.py pprof PROFILE.txt   protoc --decode's text of a profile.proto: each
                                       Sample's locations (leaf first), each location's
                                       Lines innermost first, weighted by its first value
  folded_stacks.py script SCRIPT.txt   perf script's default output of a -g recording:
                                       each sample's chain lines ("ADDR SYM+0xOFF (DSO)",
                                       "(inlined)" lines included), one count each
A location without a Line, and perf's [unknown], are "[unknown]"."""
import re
import sys
from collections import Counter


def pprof(path):
    strings, funcs, locs, samples = [], {}, {}, []
    block, sub, cur = None, None, {}
    for raw in open(path):
        line = raw.rstrip("\n")
        m = re.match(r"^([a-z_]+) \{$", line)
        if m:
            block, cur = m.group(1), {"lines": [], "locs": [], "values": []}
            continue
        m = re.match(r"^  ([a-z_]+) \{$", line)
        if m:
            sub = m.group(1)
            if block == "location" and sub == "line":
                cur["lines"].append(None)
            continue
        if line == "  }":
            sub = None
            continue
        if line == "}":
            if block == "function":
                funcs[cur["id"]] = cur["name"]
            elif block == "location":
                locs[cur["id"]] = cur["lines"]
            elif block == "sample":
                samples.append((cur["locs"], cur["values"][0]))
            block = None
            continue
        if line.startswith("string_table: "):
            strings.append(eval(line[len("string_table: "):]))  # a quoted C string
            continue
        key, _, val = line.strip().partition(": ")
        if block == "function" and not sub and key in ("id", "name"):
            cur[key] = int(val)
        elif block == "location" and not sub and key == "id":
            cur["id"] = int(val)
        elif block == "location" and sub == "line" and key == "function_id":
            cur["lines"][-1] = int(val)
        elif block == "sample" and not sub and key == "location_id":
            cur["locs"].append(int(val))
        elif block == "sample" and not sub and key == "value":
            cur["values"].append(int(val))
    out = Counter()
    for chain, count in samples:
        names = []
        for loc in chain:
            lines = locs[loc]
            names += [strings[funcs[f]] for f in lines] if lines else ["[unknown]"]
        out[";".join(reversed(names))] += count
    return out


def script(path):
    out, names = Counter(), None
    for raw in open(path):
        line = raw.rstrip("\n")
        if line.startswith("\t"):
            m = re.match(r"^\t\s*[0-9a-f]+ (.*?)(\+0x[0-9a-f]+)? \((inlined|.*)\)$", line)
            if not m:
                sys.exit("unexpected chain line: " + line)
            names.append(m.group(1))
        elif line == "":
            if names is not None:
                out[";".join(reversed(names))] += 1
            names = None
        else:
            names = []
    if names:
        out[";".join(reversed(names))] += 1
    return out


stacks = pprof(sys.argv[2]) if sys.argv[1] == "pprof" else script(sys.argv[2])
for k in sorted(stacks):
    print(k, stacks[k])

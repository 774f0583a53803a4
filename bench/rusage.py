#!/usr/bin/env python3
"""rusage.py OUT CMD...: run CMD, write "wall user sys" seconds (its children included) and
its peak RSS (the largest of it and its children) in KiB to OUT. The times are CMD's own
(wait4), not this interpreter's RUSAGE_CHILDREN, which also held ~50 ms of CPU of children
Python had before CMD (measured with /bin/true: 0.055 s), a constant that made fast commands
look slower against slow ones (2026-11-26)."""
import os, subprocess, sys, time
t = time.time()
p = subprocess.Popen(sys.argv[2:])
_, status, r = os.wait4(p.pid, 0)
wall = time.time() - t
p.returncode = rc = os.waitstatus_to_exitcode(status)
with open(sys.argv[1], "w") as f:
    f.write("%.3f %.3f %.3f %d\n" % (wall, r.ru_utime, r.ru_stime, r.ru_maxrss))
sys.exit(rc)

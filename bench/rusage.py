#!/usr/bin/env python3
"""rusage.py OUT CMD...: run CMD, write "wall user sys" seconds (children included) and the
largest child's peak RSS in KiB to OUT."""
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.run(sys.argv[2:]).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("%.3f %.3f %.3f %d\n" % (time.time() - t, r.ru_utime, r.ru_stime, r.ru_maxrss))
sys.exit(rc)

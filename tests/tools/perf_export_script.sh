# Sourced by the tests that run perf 6.1's own export-to-sqlite.py: perf_export_script
# sets $script to it, or exits 77 naming what is missing (perf, the sqlite3 CLI, the
# script, or the PySide2 QtSql it needs with Debian's python3).
perf_export_script() {
	script=/usr/lib/perf-core/scripts/python/export-to-sqlite.py
	command -v perf >/dev/null 2>&1 || { echo "SKIP: perf not installed"; exit 77; }
	command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: the sqlite3 CLI is not installed"; exit 77; }
	[ -f "$script" ] || { echo "SKIP: $script missing"; exit 77; }
	/usr/bin/python3 -c 'import PySide2.QtSql' 2>/dev/null || {
		echo "SKIP: perf's export-to-sqlite.py needs PySide2 (apt-get install python3-pyside2.qtsql)"
		exit 77
	}
}

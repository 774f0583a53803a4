#include "commands.h"
#include "pmutrace/common.h"

int cmd_report(int argc, char **argv)
{
	return pmt_cli_fail("report", "not implemented yet");
}

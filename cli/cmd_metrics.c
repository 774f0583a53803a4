#include "commands.h"
#include "pmutrace/common.h"

int cmd_metrics(int argc, char **argv)
{
	return pmt_cli_fail("metrics", "not implemented yet");
}

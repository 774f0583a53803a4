#include "commands.h"
#include "pmutrace/common.h"

int cmd_calibrate(int argc, char **argv)
{
	return pmt_cli_fail("calibrate", "not implemented yet");
}

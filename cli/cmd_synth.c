#include "commands.h"
#include "pmutrace/common.h"

int cmd_synth(int argc, char **argv)
{
	return pmt_cli_fail("synth", "not implemented yet");
}

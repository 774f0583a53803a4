#include "commands.h"
#include "pmutrace/common.h"

int cmd_script(int argc, char **argv)
{
	return pmt_cli_fail("script", "not implemented yet");
}

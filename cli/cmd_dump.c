#include "commands.h"
#include "pmutrace/common.h"

int cmd_dump(int argc, char **argv)
{
	return pmt_cli_fail("dump", "not implemented yet");
}

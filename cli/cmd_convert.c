#include "commands.h"
#include "pmutrace/common.h"

int cmd_convert(int argc, char **argv)
{
	return pmt_cli_fail("convert", "not implemented yet");
}

/* pmutrace report: "Available samples" counts per group and the top addresses. It decodes
 * exactly as script does (the same options but the output ones), so the wiring is shared:
 * spe_decode_command() in cmd_script.c. */
#include "commands.h"

int cmd_report(int argc, char **argv)
{
	return spe_decode_command(argc, argv, 1);
}

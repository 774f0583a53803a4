#include "pmutrace/common.h"
#include "pmt_version.h"

const char *pmt_version(void)
{
	return "pmutrace " PMT_VERSION_STRING;
}

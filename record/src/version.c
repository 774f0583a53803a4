#include "pmutrace/record.h"

const char *pmt_record_version(void)
{
	return "pmutrace 0.1.0";
}

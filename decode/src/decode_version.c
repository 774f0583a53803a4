#include "pmutrace/decode.h"

/* Anchors the decode library until its first real translation unit lands. */
const char pmt_decode_layer[] = "decode";

// SPDX-License-Identifier: MIT
#include "awr.h"
int cmd_qualify(int argc, const char **argv) { (void)argc; (void)argv; return 2; }

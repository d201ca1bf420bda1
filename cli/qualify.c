// SPDX-License-Identifier: MIT
#include "awr.h"

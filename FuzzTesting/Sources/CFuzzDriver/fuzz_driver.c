// The declaration is the target; this file gives SwiftPM a C source to build.
#include "fuzz_driver.h"

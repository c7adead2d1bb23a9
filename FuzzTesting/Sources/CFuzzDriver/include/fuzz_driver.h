#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for a program that has its own main (FuzzSupport's FuzzDriver calls it).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// LeakSanitizer's: what this thread allocates between the two is never reported as leaked
/// (<sanitizer/lsan_interface.h>; FuzzSupport's LeakCheck.exempt).
void __lsan_disable(void);
void __lsan_enable(void);

#endif

/* GNU readline (Debian's libreadline-dev, Homebrew's readline), or on macOS without Homebrew's
   the SDK's libedit under readline's name: line_editor.h tells them apart. */
#include <stdio.h>
#include <readline/readline.h>
/* GNU readline declares its history functions here; libedit's readline.h declares them itself. */
#if __has_include(<readline/history.h>)
#include <readline/history.h>
#endif
#include "../line_editor.h"

/* GNU readline (Debian's libreadline-dev, Homebrew's readline), or on macOS without Homebrew's
   the SDK's libedit under readline's name: line_editor.h tells them apart. */
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>
#include "../line_editor.h"

/* libedit's readline emulation (Debian's libedit-dev, macOS's SDK): the REPL's core calls only,
   whatever version the header claims. */
#include <stdio.h>
#include <editline/readline.h>
#define CDINSPECT_EDITLINE 1
#include "../line_editor.h"

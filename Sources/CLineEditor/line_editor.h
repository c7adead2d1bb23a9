/*
 * The REPL's line editor, over GNU readline or over libedit's readline emulation (what macOS
 * ships as <readline/readline.h>). The REPL reaches the library only through the functions
 * below, and they call only what every libedit has had for a decade: the callback interface,
 * add_history, stifle_history, rl_completion_matches, rl_line_buffer and the string globals.
 * GNU readline's niceties sit behind one compile-time switch, CDINSPECT_GNU_READLINE, each
 * with a plain fallback (sqlite's shell supports readline and editline the same way).
 */
#ifndef CDINSPECT_LINE_EDITOR_H
#define CDINSPECT_LINE_EDITOR_H

/* libedit calls itself readline 4.2 (0x0402); GNU readline has been 5.0 or later since 2004.
   The version decides, not the header's name: on macOS <readline/readline.h> is libedit's
   unless Homebrew's readline is found first. */
#if defined(RL_READLINE_VERSION) && RL_READLINE_VERSION >= 0x0500 && !defined(CDINSPECT_EDITLINE)
#define CDINSPECT_GNU_READLINE 1
#endif

typedef char **cdi_completion_function(const char *text, int start, int end);

/* Which library the REPL was built with, for --version. */
static inline const char *cdi_line_editor_name(void) {
#ifdef CDINSPECT_GNU_READLINE
    return "GNU readline";
#else
    return "libedit";
#endif
}

/* The name for ~/.inputrc or ~/.editrc conditionals, the characters that end a word for
   completion, the completion function, and how many lines the history keeps. Both strings
   must outlive the editor. The string globals are `char *` in some libedit releases and
   `const char *` in others and in GNU readline: a `void *` assigns to either. */
static inline void cdi_line_editor_configure(const char *name, const char *word_breaks,
                                             cdi_completion_function *completion, int history_limit) {
    stifle_history(history_limit);
    rl_readline_name = (void *)name;
    rl_basic_word_break_characters = (void *)word_breaks;
    rl_attempted_completion_function = completion;
#ifdef CDINSPECT_GNU_READLINE
    /* Ctrl-C belongs to the REPL's own SIGINT source, not to readline's handlers. */
    rl_catch_signals = 0;
    /* A quote only starts a word (a predicate being typed): readline must not take the quoted
       text as one word, nor add the quote back after a completion. */
    rl_basic_quote_characters = "";
#endif
}

typedef void cdi_line_handler(char *line);

/* The callback interface: show the prompt and edit a line, read what the terminal has
   (calling the handler for a finished line, or with NULL at end of input), stop editing.
   Removing and installing again also resets the line, in GNU readline and libedit alike. */
static inline void cdi_line_editor_install(const char *prompt, cdi_line_handler *handler) {
    rl_callback_handler_install(prompt, handler);
}

static inline void cdi_line_editor_read(void) {
    rl_callback_read_char();
}

static inline void cdi_line_editor_remove(void) {
    rl_callback_handler_remove();
}

/* Adds a line to the history the Up key walks. */
static inline void cdi_history_add(const char *line) {
    add_history(line);
}

typedef char *cdi_completion_generator(const char *text, int state);

/* The completion list readline expects back from the completion function. */
static inline char **cdi_completion_matches(const char *text, cdi_completion_generator *generator) {
    return rl_completion_matches(text, generator);
}

/* The line as typed so far, inside a completion function. */
static inline const char *cdi_line_buffer(void) {
    return rl_line_buffer;
}

/* Called by the completion function: our candidates are the only ones (no file names when
   there are none), and with `append_space` 0 no space follows a sole match (a key path that
   goes on after a dot). Plain fallback: the editor's defaults. */
static inline void cdi_completion_settle(int append_space) {
#ifdef CDINSPECT_GNU_READLINE
    rl_attempted_completion_over = 1;
    if (!append_space) rl_completion_suppress_append = 1;
#else
    (void)append_space;
#endif
}

#endif

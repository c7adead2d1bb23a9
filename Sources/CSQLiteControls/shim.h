#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: one wrapper for the integer
// settings the read-only `sql` connection turns on or off. Returns the setting's value
// after the call, or -1 when this SQLite does not know the setting.
static inline int cdi_db_config(sqlite3 *db, int op, int value) {
    int now = -1;
    if (sqlite3_db_config(db, op, value, &now) != SQLITE_OK) return -1;
    return now;
}

// The settings' numbers, for SQLite headers older than the settings (the call then fails
// and says so, rather than the build).
#ifndef SQLITE_DBCONFIG_DEFENSIVE
#define SQLITE_DBCONFIG_DEFENSIVE 1010
#endif
#ifndef SQLITE_DBCONFIG_TRUSTED_SCHEMA
#define SQLITE_DBCONFIG_TRUSTED_SCHEMA 1017
#endif
#ifndef SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE
#define SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE 1006
#endif
static const int cdi_dbconfig_defensive = SQLITE_DBCONFIG_DEFENSIVE;
static const int cdi_dbconfig_no_checkpoint_on_close = SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE;
static const int cdi_dbconfig_trusted_schema = SQLITE_DBCONFIG_TRUSTED_SCHEMA;
static const int cdi_dbconfig_fts3_tokenizer = SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER;
static const int cdi_dbconfig_load_extension = SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION;

// Lets every connection take a `file:` URI (an immutable open), whatever SQLite was built
// with; sqlite3_config is variadic too. It works only before SQLite first initializes.
static inline int cdi_enable_uri(void) {
    return sqlite3_config(SQLITE_CONFIG_URI, 1);
}

// Extended result codes are macros Swift does not import (they are expressions): the two a
// VFS's xRead answers with.
static const int cdi_ioerr_read = SQLITE_IOERR_READ;
static const int cdi_ioerr_short_read = SQLITE_IOERR_SHORT_READ;

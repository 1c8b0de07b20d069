#ifndef PUSHDIAG_CSQLITE_SHIM_H
#define PUSHDIAG_CSQLITE_SHIM_H
#include <sqlite3.h>
/* SQLITE_TRANSIENT is a cast macro: bind copies of the text. */
static inline int CSQLite_bind_text(sqlite3_stmt *s, int i, const char *t) { return sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT); }
#endif

// The session extension (changesets, issue 19) is compiled into Debian's libsqlite3; its API
// is declared only when these are defined before the header.
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

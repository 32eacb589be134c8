#ifndef MAPBOOK_LAZY_H
#define MAPBOOK_LAZY_H

/// Opens `soname` once (kept in `*handle`) and returns its `symbol`. When the library or the
/// symbol cannot be had, prints what is missing and how to get it, and exits with status 69
/// (EX_UNAVAILABLE): the C APIs behind it have no way to report the failure to their caller.
void *mapbook_lazy_symbol(void **handle, const char *soname, const char *library, const char *symbol);

#endif

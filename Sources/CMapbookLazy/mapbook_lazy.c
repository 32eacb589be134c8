#include "mapbook_lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *mapbook_lazy_symbol(void **handle, const char *soname, const char *library, const char *symbol) {
    pthread_mutex_lock(&lock);
    if (!*handle) *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!*handle) {
        // Another version of the library than the one the functions were listed from: its
        // development package's unversioned name (libproj.so), whose functions these are too.
        char plain[256];
        const char *so = strstr(soname, ".so");
        if (so && (size_t)(so - soname) + 4 < sizeof plain) {
            memcpy(plain, soname, (size_t)(so - soname) + 3);
            plain[(so - soname) + 3] = 0;
            *handle = dlopen(plain, RTLD_NOW | RTLD_LOCAL);
        }
    }
    void *loaded = *handle;
    pthread_mutex_unlock(&lock);
    if (!loaded) {
        fprintf(stderr, "mapbook: cannot load %s (%s): %s; install %s's library (tools/setup does)\n", soname, library, dlerror(), library);
        exit(69);
    }
    void *function = dlsym(loaded, symbol);
    if (!function) {
        fprintf(stderr, "mapbook: %s has no function %s: %s; the installed %s is older than the one mapbook was built with\n", soname, symbol, dlerror(), library);
        exit(69);
    }
    return function;
}

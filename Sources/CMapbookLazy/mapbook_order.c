// Nested dissection by METIS, loaded on first use like PROJ and Cairo: only `create` with a
// street network needs it. Its two functions are declared here, as Debian's libmetis5 5.1
// builds them (32-bit idx_t, METIS_NOPTIONS 40), so that building needs no METIS headers.
#include "mapbook_lazy.h"
#include "mapbook_order.h"

#include <stdlib.h>

enum { METIS_NOPTIONS = 40, METIS_OPTION_SEED = 8, METIS_OPTION_NUMBERING = 17 };

static void *metis_handle;

int mapbook_nested_dissection(int32_t nodes, int32_t *start, int32_t *neighbours, int32_t *rank) {
    int (*set_default_options)(int32_t *) = mapbook_lazy_symbol(&metis_handle, "libmetis.so.5", "metis", "METIS_SetDefaultOptions");
    int (*node_nd)(int32_t *, int32_t *, int32_t *, int32_t *, int32_t *, int32_t *, int32_t *) =
        mapbook_lazy_symbol(&metis_handle, "libmetis.so.5", "metis", "METIS_NodeND");
    int32_t options[METIS_NOPTIONS];
    set_default_options(options);
    // A fixed seed: the same network gives the same order, hierarchy and package bytes.
    options[METIS_OPTION_SEED] = 18;
    options[METIS_OPTION_NUMBERING] = 0;
    int32_t *order = malloc(sizeof(int32_t) * (size_t)(nodes > 0 ? nodes : 1));
    if (!order) return -3;
    int32_t n = nodes;
    // METIS's iperm is the rank of each node (perm its inverse, not needed).
    int status = node_nd(&n, start, neighbours, NULL, options, order, rank);
    free(order);
    return status;
}

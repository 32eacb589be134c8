#ifndef MAPBOOK_ORDER_H
#define MAPBOOK_ORDER_H

#include <stdint.h>

/// A nested-dissection order of an undirected graph of `nodes` nodes, by METIS (its
/// `METIS_NodeND`, loaded on first use from Debian's libmetis5): `start` (nodes + 1 entries)
/// and `neighbours` list each node's neighbours, every edge both ways, no node its own
/// neighbour and no neighbour twice. Fills `rank` with each node's position in the order, a
/// separator's nodes after the parts it separates. Returns 1, or METIS's negative status
/// (-2 bad input, -3 out of memory, -4 other). The same graph always gives the same order.
int mapbook_nested_dissection(int32_t nodes, int32_t *start, int32_t *neighbours, int32_t *rank);

#endif

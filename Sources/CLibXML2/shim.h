#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlsave.h>

// xmlFree is a global function pointer, which Swift 6 treats as shared mutable state.
static inline void mapbook_xml_free(void *pointer) { xmlFree(pointer); }

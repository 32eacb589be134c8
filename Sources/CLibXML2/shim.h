// libxml2 is built with ICU, so its encoding.h pulls in the system ICU headers
// (<unicode/ucnv.h>). Foundation carries its own ICU module (_FoundationICU) with the same
// type names, and a target that sees both (MapbookWeb, through swift-mustache's Foundation)
// fails to build: "UErrorCode has different definitions". Nothing here uses the ICU parts of
// libxml2's API (only the encoding handler struct's private converter fields), so the
// headers are read as if libxml2 had no ICU.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlsave.h>

// xmlFree is a global function pointer, which Swift 6 treats as shared mutable state; and
// libxml2 is opened on first use (CMapbookLazy's generated lazy_xml.c, which defines this).
void mapbook_xml_free(void *pointer);

// MapbookPortal: what the portal's server and its clients share (DESIGN.md section 7).
//
// - Model: items, users, groups and errors in the sharing API's JSON shapes.
// - Query: the search `q` grammar (field terms, phrases, AND/OR/NOT, ranges), parsed once and
//   evaluated against items; sorting and paging as `search` does them.
// - Library: the device library (sideloaded and downloaded packages, modes, the credential).
//
// The server (MapbookPortalServer) and the CLI sit above this module.

// MapbookPortalAPI: what the portal's server and its client share (DESIGN.md section 7).
//
// - Model: items and errors in the sharing API's JSON shapes.
// - Query: the search `q` grammar (field terms, phrases, AND/OR/NOT, ranges), parsed once and
//   evaluated against items; sorting and paging as `search` does them.
// - Encoding: form encoding, base64url and PKCE as the API's requests use them.
//
// No HTTP client or server here: the server (MapbookPortalServer) and the client
// (MapbookPortal) sit above this module.

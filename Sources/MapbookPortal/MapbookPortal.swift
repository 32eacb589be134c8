import MapbookPortalAPI
// MapbookPortal: the client of a portal's sharing API (DESIGN.md section 7) over
// AsyncHTTPClient: signing in (OAuth with PKCE, or generateToken), searching, resumable
// verified downloads into the device library, update checks and publishing.
//
// The API's shapes are in MapbookPortalAPI (shared with the server), the device library in
// MapbookLibrary (which a viewer uses without linking the HTTP client); the CLI sits above.

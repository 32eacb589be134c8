// MapbookLibrary: the device library (DESIGN.md section 7): its mode, sideloaded and
// downloaded packages with their records, unfinished downloads, and the portal credential.
//
// Files only, no networking: a viewer keeps per-device state here without linking the HTTP
// client; the portal client (MapbookPortal) fills it with downloads.

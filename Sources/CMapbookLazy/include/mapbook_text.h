#ifndef MAPBOOK_TEXT_H
#define MAPBOOK_TEXT_H

// Cairo's context, without its header (the CCairo module has that).
struct _cairo;

/// A Pango layout of `utf8` in `font` (a Pango font description such as "Noto Sans Bold"; the
/// nearest installed font serves) at `size` pixels, wrapped at `max_width` pixels when it is
/// positive, with `letter_spacing` pixels between letters, aligned left (0), centre (1) or
/// right (2). Loads Pango on first use. Free it with `mapbook_text_layout_free`.
void *mapbook_text_layout_new(struct _cairo *cr, const char *utf8, const char *font, double size, double max_width, double letter_spacing, int align);

/// The layout's logical rectangle in pixels, and the baseline of its first line from its top.
void mapbook_text_layout_extents(void *layout, double *x, double *y, double *width, double *height, double *baseline);

/// How many characters no installed font has a glyph for.
int mapbook_text_layout_unknown_glyphs(void *layout);

/// Draws the layout with its top left corner at (`x`, `y`) in `color` (RGBA 0-1), over a halo
/// `halo_width` pixels wide in `halo` when that is positive, fading out over `halo_blur` more.
void mapbook_text_layout_draw(struct _cairo *cr, void *layout, double x, double y, const double color[4], double halo_width, const double halo[4], double halo_blur);

/// Sets the distance between the baselines of a layout's lines to `pixels` (MapLibre's
/// `text-line-height` times the size); a one-line layout is left as it is.
void mapbook_text_layout_set_line_height(void *layout, double pixels);

void mapbook_text_layout_free(void *layout);

#endif

// Text drawn with Pango (shaping by HarfBuzz, fonts by fontconfig) on a Cairo context, for
// map labels. Pango, PangoCairo and GObject are loaded on first use, as PROJ and Cairo are:
// commands that draw no text never load them. Pango's C ABI is stable, so the few types and
// functions used are declared here rather than taken from its headers (which need GLib's
// include paths, and a pkg-config entry would link the libraries at start).
#include "mapbook_lazy.h"
#include "mapbook_text.h"

#include <cairo/cairo.h>

#include <pthread.h>
#include <stdlib.h>

typedef struct {
    int x, y, width, height;
} PangoRectangle;

enum { PANGO_SCALE = 1024, PANGO_WRAP_WORD = 0, PANGO_ALIGN_LEFT = 0, PANGO_ALIGN_CENTER = 1, PANGO_ALIGN_RIGHT = 2 };

static void *pango_handle, *pangocairo_handle, *gobject_handle;

static void *pango(const char *name) {
    return mapbook_lazy_symbol(&pango_handle, "libpango-1.0.so.0", "pango", name);
}
static void *pangocairo(const char *name) {
    return mapbook_lazy_symbol(&pangocairo_handle, "libpangocairo-1.0.so.0", "pangocairo", name);
}
static void *gobject(const char *name) {
    return mapbook_lazy_symbol(&gobject_handle, "libgobject-2.0.so.0", "gobject", name);
}

// Resolved once, on the first layout.
static struct {
    void *(*create_context)(cairo_t *);
    void (*context_set_font_options)(void *, const cairo_font_options_t *);
    void *(*layout_new)(void *);
    void (*update_layout)(cairo_t *, void *);
    void (*show_layout)(cairo_t *, void *);
    void (*layout_path)(cairo_t *, void *);
    void *(*font_description_from_string)(const char *);
    void (*font_description_set_absolute_size)(void *, double);
    void (*font_description_free)(void *);
    void (*layout_set_font_description)(void *, const void *);
    void (*layout_set_text)(void *, const char *, int);
    void (*layout_set_width)(void *, int);
    void (*layout_set_wrap)(void *, int);
    void (*layout_set_alignment)(void *, int);
    void (*layout_get_pixel_extents)(void *, PangoRectangle *, PangoRectangle *);
    void (*layout_get_extents)(void *, PangoRectangle *, PangoRectangle *);
    int (*layout_get_baseline)(void *);
    int (*layout_get_unknown_glyphs_count)(void *);
    int (*layout_get_line_count)(void *);
    void (*layout_set_spacing)(void *, int);
    void *(*attr_list_new)(void);
    void *(*attr_letter_spacing_new)(int);
    void (*attr_list_insert)(void *, void *);
    void (*layout_set_attributes)(void *, void *);
    void (*attr_list_unref)(void *);
    void (*object_unref)(void *);
} api;

static void resolve(void) {
    api.create_context = pangocairo("pango_cairo_create_context");
    api.context_set_font_options = pangocairo("pango_cairo_context_set_font_options");
    api.layout_new = pango("pango_layout_new");
    api.update_layout = pangocairo("pango_cairo_update_layout");
    api.show_layout = pangocairo("pango_cairo_show_layout");
    api.layout_path = pangocairo("pango_cairo_layout_path");
    api.font_description_from_string = pango("pango_font_description_from_string");
    api.font_description_set_absolute_size = pango("pango_font_description_set_absolute_size");
    api.font_description_free = pango("pango_font_description_free");
    api.layout_set_font_description = pango("pango_layout_set_font_description");
    api.layout_set_text = pango("pango_layout_set_text");
    api.layout_set_width = pango("pango_layout_set_width");
    api.layout_set_wrap = pango("pango_layout_set_wrap");
    api.layout_set_alignment = pango("pango_layout_set_alignment");
    api.layout_get_pixel_extents = pango("pango_layout_get_pixel_extents");
    api.layout_get_extents = pango("pango_layout_get_extents");
    api.layout_get_baseline = pango("pango_layout_get_baseline");
    api.layout_get_unknown_glyphs_count = pango("pango_layout_get_unknown_glyphs_count");
    api.layout_get_line_count = pango("pango_layout_get_line_count");
    api.layout_set_spacing = pango("pango_layout_set_spacing");
    api.attr_list_new = pango("pango_attr_list_new");
    api.attr_letter_spacing_new = pango("pango_attr_letter_spacing_new");
    api.attr_list_insert = pango("pango_attr_list_insert");
    api.layout_set_attributes = pango("pango_layout_set_attributes");
    api.attr_list_unref = pango("pango_attr_list_unref");
    api.object_unref = gobject("g_object_unref");
}

// Once for the process: canvases are drawn on two threads at once (the viewer draws the
// backdrop and the operational layers side by side), and both may set their first label.
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static void load(void) {
    pthread_once(&resolved, resolve);
}

// Unhinted outlines and metrics: labels are placed at fractional positions and turned
// along lines, where hinting to the pixel grid only distorts them, and running the fonts'
// TrueType hinting programs was a sixth of a rendering command's time.
static void set_unhinted(cairo_t *cr, void *context) {
    cairo_font_options_t *options = cairo_font_options_create();
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
    if (cr) cairo_set_font_options(cr, options);
    if (context) api.context_set_font_options(context, options);
    cairo_font_options_destroy(options);
}

// One Pango context per thread for every layout: a context per layout looked fonts up in
// fontconfig each time, a fifth of a view with labels set a character at a time. Per thread,
// because Pango contexts are not thread-safe and canvases are drawn on any thread.
static _Thread_local void *context_of_thread;

static void *shared_context(cairo_t *cr) {
    if (!context_of_thread) {
        context_of_thread = api.create_context(cr);
        set_unhinted(NULL, context_of_thread);
    }
    return context_of_thread;
}

void *mapbook_text_layout_new(cairo_t *cr, const char *utf8, const char *font, double size, double max_width, double letter_spacing, int align) {
    load();
    void *layout = api.layout_new(shared_context(cr));
    void *description = api.font_description_from_string(font);
    api.font_description_set_absolute_size(description, size * PANGO_SCALE);
    api.layout_set_font_description(layout, description);
    api.font_description_free(description);
    if (letter_spacing != 0) {
        void *attributes = api.attr_list_new();
        api.attr_list_insert(attributes, api.attr_letter_spacing_new((int)(letter_spacing * PANGO_SCALE)));
        api.layout_set_attributes(layout, attributes);
        api.attr_list_unref(attributes);
    }
    if (max_width > 0) {
        api.layout_set_width(layout, (int)(max_width * PANGO_SCALE));
        api.layout_set_wrap(layout, PANGO_WRAP_WORD);
    }
    api.layout_set_alignment(layout, align == 1 ? PANGO_ALIGN_CENTER : align == 2 ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT);
    api.layout_set_text(layout, utf8, -1);
    return layout;
}

void mapbook_text_layout_extents(void *layout, double *x, double *y, double *width, double *height, double *baseline) {
    // In Pango units, not whole pixels: a label set a character at a time adds up the
    // characters' widths, and whole pixels would open gaps between them.
    PangoRectangle ink, logical;
    api.layout_get_extents(layout, &ink, &logical);
    *x = (double)logical.x / PANGO_SCALE;
    *y = (double)logical.y / PANGO_SCALE;
    *width = (double)logical.width / PANGO_SCALE;
    *height = (double)logical.height / PANGO_SCALE;
    *baseline = (double)api.layout_get_baseline(layout) / PANGO_SCALE;
}

void mapbook_text_layout_set_line_height(void *layout, double pixels) {
    PangoRectangle ink, logical;
    int lines = api.layout_get_line_count(layout);
    if (lines < 2 || pixels <= 0) return;
    api.layout_get_pixel_extents(layout, &ink, &logical);
    // Pango's natural line height is the font's; the spacing added between lines makes the
    // baselines `pixels` apart (negative spacing draws them closer).
    double natural = (double)logical.height / lines;
    api.layout_set_spacing(layout, (int)((pixels - natural) * PANGO_SCALE));
}

int mapbook_text_layout_unknown_glyphs(void *layout) {
    return api.layout_get_unknown_glyphs_count(layout);
}

void mapbook_text_layout_draw(cairo_t *cr, void *layout, double x, double y, const double color[4], double halo_width, const double halo[4], double halo_blur) {
    cairo_save(cr);
    cairo_move_to(cr, x, y);
    // The shared context takes the target's transformation and font options from `cr`:
    // they stay unhinted.
    set_unhinted(cr, NULL);
    api.update_layout(cr, layout);
    if (halo_width > 0 && halo[3] > 0) {
        // The halo: the glyphs' outlines stroked twice the halo's width, under the text. A
        // blurred halo fades out over `halo_blur` more pixels: drawn as two wider strokes at a
        // third and two thirds of the blur, each at a third of the opacity.
        api.layout_path(cr, layout);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        if (halo_blur > 0) {
            cairo_set_source_rgba(cr, halo[0], halo[1], halo[2], halo[3] / 3);
            cairo_set_line_width(cr, 2 * (halo_width + halo_blur * 2 / 3));
            cairo_stroke_preserve(cr);
            cairo_set_line_width(cr, 2 * (halo_width + halo_blur / 3));
            cairo_stroke_preserve(cr);
        }
        cairo_set_source_rgba(cr, halo[0], halo[1], halo[2], halo[3]);
        cairo_set_line_width(cr, 2 * halo_width);
        cairo_stroke(cr);
        cairo_move_to(cr, x, y);
    }
    cairo_set_source_rgba(cr, color[0], color[1], color[2], color[3]);
    api.show_layout(cr, layout);
    cairo_restore(cr);
}

void mapbook_text_layout_free(void *layout) {
    if (layout) api.object_unref(layout);
}

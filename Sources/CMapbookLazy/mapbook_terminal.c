// Pictures printed on a terminal through libchafa: kitty, iTerm2 or sixel images where the
// terminal shows them, else Unicode block and border symbols in true colour, 256 or 16
// colours, or none. Chafa is loaded on first use; its few types and functions are declared
// here (its headers need GLib's include paths), matching chafa 1.12's stable C ABI.
#include "mapbook_lazy.h"
#include "mapbook_terminal.h"

#include <stdlib.h>
#include <string.h>


typedef struct {
    char *str;
    size_t len;
    size_t allocated_len;
} GString;

enum {
    SYMBOL_TAG_SPACE = 1 << 0, SYMBOL_TAG_SOLID = 1 << 1, SYMBOL_TAG_STIPPLE = 1 << 2, SYMBOL_TAG_BLOCK = 1 << 3,
    SYMBOL_TAG_BORDER = 1 << 4, SYMBOL_TAG_DIAGONAL = 1 << 5, SYMBOL_TAG_QUAD = 1 << 7, SYMBOL_TAG_HHALF = 1 << 8,
    SYMBOL_TAG_VHALF = 1 << 9, SYMBOL_TAG_SEXTANT = 1 << 22,
    PIXEL_BGRA8_PREMULTIPLIED = 1, OPTIMIZATION_REUSE_ATTRIBUTES = 1 << 0,
};

static void *chafa_handle, *glib_handle;

static void *chafa(const char *name) {
    return mapbook_lazy_symbol(&chafa_handle, "libchafa.so.0", "chafa", name);
}
static void *glib(const char *name) {
    return mapbook_lazy_symbol(&glib_handle, "libglib-2.0.so.0", "glib", name);
}

char *mapbook_terminal_image(const unsigned char *pixels, int width, int height, int stride, int columns, int rows,
                             int pixel_mode, int canvas_mode, size_t *length) {
    void *(*symbol_map_new)(void) = chafa("chafa_symbol_map_new");
    void (*symbol_map_add_by_tags)(void *, int) = chafa("chafa_symbol_map_add_by_tags");
    void (*symbol_map_unref)(void *) = chafa("chafa_symbol_map_unref");
    void *(*config_new)(void) = chafa("chafa_canvas_config_new");
    void (*config_set_geometry)(void *, int, int) = chafa("chafa_canvas_config_set_geometry");
    void (*config_set_cell_geometry)(void *, int, int) = chafa("chafa_canvas_config_set_cell_geometry");
    void (*config_set_canvas_mode)(void *, int) = chafa("chafa_canvas_config_set_canvas_mode");
    void (*config_set_pixel_mode)(void *, int) = chafa("chafa_canvas_config_set_pixel_mode");
    void (*config_set_symbol_map)(void *, const void *) = chafa("chafa_canvas_config_set_symbol_map");
    void (*config_set_optimizations)(void *, int) = chafa("chafa_canvas_config_set_optimizations");
    void (*config_unref)(void *) = chafa("chafa_canvas_config_unref");
    void *(*canvas_new)(const void *) = chafa("chafa_canvas_new");
    void (*canvas_draw_all_pixels)(void *, int, const unsigned char *, int, int, int) = chafa("chafa_canvas_draw_all_pixels");
    GString *(*canvas_print)(void *, void *) = chafa("chafa_canvas_print");
    void (*canvas_unref)(void *) = chafa("chafa_canvas_unref");
    void *(*term_db_get_default)(void) = chafa("chafa_term_db_get_default");
    void *(*term_db_detect)(void *, char **) = chafa("chafa_term_db_detect");
    void (*term_info_unref)(void *) = chafa("chafa_term_info_unref");
    char *(*string_free)(GString *, int) = glib("g_string_free");

    void *symbols = symbol_map_new();
    // Blocks, halves, quadrants, sextants and borders: the shapes that draw lines and edges
    // of a map best; no letters, which read as text.
    symbol_map_add_by_tags(symbols, SYMBOL_TAG_SPACE | SYMBOL_TAG_SOLID | SYMBOL_TAG_STIPPLE | SYMBOL_TAG_BLOCK | SYMBOL_TAG_BORDER |
                                        SYMBOL_TAG_DIAGONAL | SYMBOL_TAG_QUAD | SYMBOL_TAG_HHALF | SYMBOL_TAG_VHALF | SYMBOL_TAG_SEXTANT);
    void *config = config_new();
    config_set_geometry(config, columns, rows);
    if (rows > 0) config_set_cell_geometry(config, width / (columns > 0 ? columns : 1), height / rows);
    config_set_canvas_mode(config, canvas_mode);
    config_set_pixel_mode(config, pixel_mode);
    config_set_symbol_map(config, symbols);
    // Colours set once for a run of cells that share them: a smaller frame to write.
    config_set_optimizations(config, OPTIMIZATION_REUSE_ATTRIBUTES);
    void *canvas = canvas_new(config);
    canvas_draw_all_pixels(canvas, PIXEL_BGRA8_PREMULTIPLIED, pixels, width, height, stride);
    // The escape sequences come from the terminal database entry of a terminal that has the
    // chosen mode, so what is printed is what was chosen (the real TERM may be unknown to
    // chafa, as under test runners, and give no colour sequences at all).
    char *kitty[] = {"TERM=xterm-kitty", NULL}, *iterm[] = {"TERM=xterm-256color", "TERM_PROGRAM=iTerm.app", NULL};
    char *sixel[] = {"TERM=mlterm", NULL}, *truecolor[] = {"TERM=xterm-256color", "COLORTERM=truecolor", NULL};
    char *colors256[] = {"TERM=xterm-256color", NULL}, *colors16[] = {"TERM=xterm", NULL};
    char **environment = pixel_mode == 2 ? kitty : pixel_mode == 3 ? iterm : pixel_mode == 1 ? sixel
                       : canvas_mode == 0 ? truecolor : canvas_mode == 1 ? colors256 : colors16;
    void *term = term_db_detect(term_db_get_default(), environment);
    GString *printed = canvas_print(canvas, term);
    *length = printed->len;
    char *out = malloc(printed->len + 1);
    if (out) {
        memcpy(out, printed->str, printed->len);
        out[printed->len] = 0;
    }
    string_free(printed, 1);
    term_info_unref(term);
    canvas_unref(canvas);
    config_unref(config);
    symbol_map_unref(symbols);
    return out;
}

void mapbook_terminal_free(char *text) {
    free(text);
}

#ifndef MAPBOOK_TERMINAL_H
#define MAPBOOK_TERMINAL_H

#include <stddef.h>

/// How the picture is sent: `pixel_mode` 0 symbols, 1 sixels, 2 kitty, 3 iTerm2;
/// `canvas_mode` (symbols only) 0 true colour, 1 256 colours, 3 16 colours, 5 no colour.
/// `pixels` are Cairo ARGB32 (premultiplied, native byte order) of `width` x `height` with
/// `stride` bytes a row, fitted into `columns` x `rows` cells, with the escape sequences of
/// a terminal that has the chosen mode. Returns the text to print
/// (free it with `mapbook_terminal_free`) and its `length`. Loads libchafa on first use.
char *mapbook_terminal_image(const unsigned char *pixels, int width, int height, int stride, int columns, int rows,
                             int pixel_mode, int canvas_mode, size_t *length);

void mapbook_terminal_free(char *text);

#endif

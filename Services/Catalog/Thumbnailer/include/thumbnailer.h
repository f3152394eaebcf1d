// Cover thumbnails with libvips. A plain C interface: libvips's own API is variadic, which Swift cannot call.
#ifndef BOOKMOBILE_THUMBNAILER_H
#define BOOKMOBILE_THUMBNAILER_H

#include <stddef.h>

/// What `bm_thumbnail` produced.
typedef enum {
    BM_THUMBNAIL_JPEG = 0,
    BM_THUMBNAIL_PNG = 1,
} bm_thumbnail_format;

/// Scales the encoded image in `data` down to at most `max_height` pixels high (never up), keeping its aspect ratio.
/// Images of more than `max_pixels` pixels are refused before they are decoded (decompression bombs).
/// Returns 1, and produces nothing, when the image is no higher than `max_height` already (it is its own thumbnail).
/// On success returns 0 and sets `*out` (free it with `bm_thumbnail_free`), `*out_length` and `*format`
/// (PNG when the image has transparency, JPEG otherwise). On failure returns -1 and writes a message to `error`.
int bm_thumbnail(const void *data, size_t length, int max_height, long long max_pixels,
                 void **out, size_t *out_length, bm_thumbnail_format *format, char *error, size_t error_size);

/// Frees a thumbnail returned by `bm_thumbnail`.
void bm_thumbnail_free(void *thumbnail);

/// Draws a cover for a book that has none: `title_markup` and `authors_markup` (Pango markup, already escaped) set
/// in white on the colour `red`, `green`, `blue`, `width` x `height` pixels, as a JPEG. Returns 0 and sets `*out` (free
/// it with `bm_thumbnail_free`) and `*out_length`; on failure returns -1 and writes a message to `error`.
int bm_generated_cover(const char *title_markup, const char *authors_markup, int width, int height,
                       unsigned char red, unsigned char green, unsigned char blue,
                       void **out, size_t *out_length, char *error, size_t error_size);

#endif

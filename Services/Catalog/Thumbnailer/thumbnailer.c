#include "thumbnailer.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <vips/vips.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_status = -1;

/// libvips warns on stderr about damaged images; failures are reported through `error` instead.
static void ignore(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {}

static void initialise(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, ignore, NULL);
    init_status = VIPS_INIT("bookmobile-catalog");
    if (init_status != 0) return;
    // Covers come from untrusted files: only the loaders libvips considers safe, no operation cache.
    vips_block_untrusted_set(TRUE);
    vips_cache_set_max(0);
    vips_concurrency_set(1);
}

static int fail(char *error, size_t error_size, const char *what) {
    const char *detail = vips_error_buffer();
    snprintf(error, error_size, "%s%s%s", what, detail && *detail ? ": " : "", detail ? detail : "");
    // Remove trailing newlines from libvips's message.
    for (size_t n = strlen(error); n > 0 && (error[n - 1] == '\n' || error[n - 1] == ' '); n--) error[n - 1] = 0;
    vips_error_clear();
    return -1;
}

int bm_thumbnail(const void *data, size_t length, int max_height, long long max_pixels,
                 void **out, size_t *out_length, bm_thumbnail_format *format, char *error, size_t error_size) {
    pthread_once(&once, initialise);
    if (init_status != 0) return fail(error, error_size, "libvips did not start");
    if (vips_foreign_find_load_buffer(data, length) == NULL) return fail(error, error_size, "not an image libvips can read");

    // The header only: refuse huge images before any pixel is decoded.
    VipsImage *header = vips_image_new_from_buffer(data, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (header == NULL) return fail(error, error_size, "unreadable image");
    int height = vips_image_get_height(header);
    long long pixels = (long long)vips_image_get_width(header) * (long long)height;
    int has_alpha = vips_image_hasalpha(header);
    g_object_unref(header);
    if (height <= max_height) return 1;
    if (pixels > max_pixels) {
        snprintf(error, error_size, "image of %lld pixels is larger than the limit of %lld", pixels, max_pixels);
        return -1;
    }

    VipsImage *thumbnail = NULL;
    if (vips_thumbnail_buffer((void *)data, length, &thumbnail, VIPS_MAX_COORD, "height", max_height, "size", VIPS_SIZE_DOWN,
                              "option_string", "fail_on=error", NULL) != 0)
        return fail(error, error_size, "thumbnail failed");
    int status;
    if (has_alpha) {
        *format = BM_THUMBNAIL_PNG;
        status = vips_pngsave_buffer(thumbnail, out, out_length, "strip", TRUE, NULL);
    } else {
        *format = BM_THUMBNAIL_JPEG;
        status = vips_jpegsave_buffer(thumbnail, out, out_length, "Q", 80, "strip", TRUE, NULL);
    }
    g_object_unref(thumbnail);
    if (status != 0) return fail(error, error_size, "encoding the thumbnail failed");
    return 0;
}

void bm_thumbnail_free(void *thumbnail) { g_free(thumbnail); }

/// `markup` in `font` at the largest of `sizes` whose wrapped lines fit `width` x `max_height`; NULL on failure.
static VipsImage *fitted_text(const char *markup, const char *font, const int *sizes, int count, int width, int max_height) {
    VipsImage *text = NULL;
    for (int i = 0; i < count; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s %d", font, sizes[i]);
        if (text) g_object_unref(text);
        text = NULL;
        if (vips_text(&text, markup, "font", name, "width", width, "align", VIPS_ALIGN_CENTRE, "wrap", VIPS_TEXT_WRAP_WORD_CHAR, NULL) != 0)
            return NULL;
        if (vips_image_get_height(text) <= max_height) break;
    }
    if (text && vips_image_get_height(text) > max_height) {
        // Even the smallest size is too long a text: keep its first lines.
        VipsImage *cropped = NULL;
        int status = vips_crop(text, &cropped, 0, 0, vips_image_get_width(text), max_height, NULL);
        g_object_unref(text);
        text = status == 0 ? cropped : NULL;
    }
    return text;
}

/// `mask` (one band, 0-255 coverage) placed with its centre at (`centre_x`, `top`) and painted in `ink` over `*base`.
static int paint(VipsImage **base, VipsImage *mask, int centre_x, int top, VipsImage *ink) {
    VipsImage *placed = NULL, *painted = NULL;
    int left = centre_x - vips_image_get_width(mask) / 2;
    if (vips_embed(mask, &placed, left < 0 ? 0 : left, top, vips_image_get_width(*base), vips_image_get_height(*base), NULL) != 0) return -1;
    int status = vips_ifthenelse(placed, ink, *base, &painted, "blend", TRUE, NULL);
    g_object_unref(placed);
    if (status != 0) return -1;
    g_object_unref(*base);
    *base = painted;
    return 0;
}

/// A `width` x `height` three-band image of one colour.
static VipsImage *plain(int width, int height, double red, double green, double blue) {
    VipsImage *black = NULL, *coloured = NULL, *bytes = NULL;
    double scale[3] = {1, 1, 1}, offset[3] = {red, green, blue};
    if (vips_black(&black, width, height, "bands", 3, NULL) != 0) return NULL;
    int status = vips_linear(black, &coloured, scale, offset, 3, NULL);
    g_object_unref(black);
    if (status != 0) return NULL;
    status = vips_cast_uchar(coloured, &bytes, NULL);
    g_object_unref(coloured);
    if (status != 0) return NULL;
    VipsImage *srgb = NULL;
    status = vips_copy(bytes, &srgb, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(bytes);
    return status == 0 ? srgb : NULL;
}

int bm_generated_cover(const char *title_markup, const char *authors_markup, int width, int height,
                       unsigned char red, unsigned char green, unsigned char blue,
                       void **out, size_t *out_length, char *error, size_t error_size) {
    pthread_once(&once, initialise);
    if (init_status != 0) return fail(error, error_size, "libvips did not start");
    int margin = width / 10;
    int text_width = width - 2 * margin;
    VipsImage *cover = plain(width, height, red, green, blue);
    VipsImage *ink = plain(width, height, 255, 255, 255);
    VipsImage *rule = plain(width, height, red / 2 + 128, green / 2 + 128, blue / 2 + 128);
    if (!cover || !ink || !rule) {
        if (cover) g_object_unref(cover);
        if (ink) g_object_unref(ink);
        if (rule) g_object_unref(rule);
        return fail(error, error_size, "drawing the cover failed");
    }
    static const int title_sizes[] = {64, 52, 42, 34, 28, 22};
    static const int author_sizes[] = {34, 28, 22, 18};
    VipsImage *title = fitted_text(title_markup, "DejaVu Serif Bold", title_sizes, 6, text_width, height * 45 / 100);
    VipsImage *authors = *authors_markup ? fitted_text(authors_markup, "DejaVu Sans", author_sizes, 4, text_width, height / 5) : NULL;
    int status = title ? 0 : -1;
    if (status == 0) status = paint(&cover, title, width / 2, height / 6, ink);
    if (status == 0 && authors) status = paint(&cover, authors, width / 2, height * 70 / 100, ink);
    if (status == 0) {
        // A thin rule between title and authors, in a lighter shade of the cover's colour.
        VipsImage *line = NULL;
        status = vips_black(&line, width / 3, 4, NULL);
        if (status == 0) {
            VipsImage *solid = NULL;
            status = vips_invert(line, &solid, NULL);
            g_object_unref(line);
            if (status == 0) {
                status = paint(&cover, solid, width / 2, height * 64 / 100, rule);
                g_object_unref(solid);
            }
        }
    }
    if (status == 0) status = vips_jpegsave_buffer(cover, out, out_length, "Q", 85, "strip", TRUE, NULL);
    if (title) g_object_unref(title);
    if (authors) g_object_unref(authors);
    g_object_unref(cover);
    g_object_unref(ink);
    g_object_unref(rule);
    return status == 0 ? 0 : fail(error, error_size, "drawing the cover failed");
}

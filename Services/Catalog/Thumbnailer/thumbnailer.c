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

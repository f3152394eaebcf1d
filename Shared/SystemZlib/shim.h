// zlib itself, for gzip at a chosen level (ZIPFoundation's deflate has zlib's default level only).
#include <zlib.h>

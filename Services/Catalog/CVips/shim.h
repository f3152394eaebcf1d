// libvips from Debian's libvips-dev, for the thumbnailer's C code only.
#include <vips/vips.h>

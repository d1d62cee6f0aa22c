/**
 * @file demo_picture.h
 * @brief Pictures in and out of the image lessons' demos (03, 08), through stb_image: read a photo
 *        given on the command line, write the results as PNGs. Linked into those demos only (their
 *        lesson.mk), with -lstb.
 */
#ifndef COMMON_DEMO_PICTURE_H
#define COMMON_DEMO_PICTURE_H

#ifdef __cplusplus
extern "C" {
#endif

/** The picture at `path` (PNG, JPEG, BMP, GIF, TGA, PSD, PNM), w x h pixels of *channels bytes:
    RGB, or with keep_alpha RGBA when the picture has alpha. NULL after saying why on stderr.
    Free it with demo_free_picture. */
unsigned char *demo_read_picture(const char *path, int keep_alpha, int *w, int *h, int *channels);

/** Paints pixel (x, y) of a w x h test picture: its three bytes, RGB, are at rgb. */
typedef void (*DemoPainter)(int x, int y, int w, int h, unsigned char *rgb);

/** A demo's input picture: the one named by argv[1] when there is one (demo_read_picture), else a
    *w x *h RGB picture (the caller's defaults) painted by paint, pixel by pixel, into malloc'd
    memory. NULL after saying why on stderr: the picture cannot be read, or there is no memory. */
unsigned char *demo_input_picture(int argc, char **argv, int keep_alpha, DemoPainter paint, int *w, int *h, int *channels);

/** Frees a picture from demo_read_picture (stb_image's allocator, not necessarily malloc's). */
void demo_free_picture(unsigned char *pixels);

/** Writes w x h pixels of `channels` bytes to dir/name as a PNG and says so on stdout; returns 0
    after saying why on stderr. */
int demo_write_png(const char *dir, const char *name, const unsigned char *pixels, int w, int h, int channels);

#ifdef __cplusplus
}
#endif
#endif

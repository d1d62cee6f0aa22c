/* demo_picture.c -- the image demos' pictures, read and written with stb_image (demo_picture.h). */
#include "demo_picture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

unsigned char *demo_read_picture(const char *path, int keep_alpha, int *w, int *h, int *channels) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "demo: cannot read image '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    int comp = 0;
    unsigned char *p = NULL;
    if (!keep_alpha) {
        *channels = 3;
        p = stbi_load_from_file(f, w, h, &comp, 3); /* any picture as RGB */
    } else if (stbi_info_from_file(f, w, h, &comp)) {
        *channels = comp == 2 || comp == 4 ? 4 : 3; /* gray or RGB -> RGB; with alpha -> RGBA */
        p = stbi_load_from_file(f, w, h, &comp, *channels);
    }
    if (!p) fprintf(stderr, "demo: cannot read image '%s': %s (stb_image reads PNG, JPEG, BMP, GIF, TGA, PSD, PNM)\n", path, stbi_failure_reason());
    fclose(f);
    return p;
}

unsigned char *demo_input_picture(int argc, char **argv, int keep_alpha, DemoPainter paint, int *w, int *h, int *channels) {
    if (argc > 1) return demo_read_picture(argv[1], keep_alpha, w, h, channels);
    *channels = 3;
    unsigned char *p = malloc((size_t)*w * *h * 3);
    if (!p) {
        fprintf(stderr, "demo: out of host memory for a %d x %d picture\n", *w, *h);
        return NULL;
    }
    for (int y = 0; y < *h; y++)
        for (int x = 0; x < *w; x++) paint(x, y, *w, *h, p + ((size_t)y * *w + x) * 3);
    return p;
}

void demo_free_picture(unsigned char *pixels) { stbi_image_free(pixels); }

int demo_write_png(const char *dir, const char *name, const unsigned char *pixels, int w, int h, int channels) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!stbi_write_png(path, w, h, channels, pixels, w * channels)) {
        fprintf(stderr, "demo: cannot write '%s' (does the folder exist and is it writable?)\n", path);
        return 0;
    }
    printf("  wrote %s (%d x %d)\n", path, w, h);
    return 1;
}

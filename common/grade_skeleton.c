/* grade_skeleton.c -- is an exercise still the skeleton's? The fingerprint of each TODO region
   (FNV-1a, 64 bits, of the lines between `TODO(NN.k) begin` and `TODO(NN.k) end`, white space left
   out) against the skeleton's, which tools/skeleton_regions.py wrote into tests/skeleton/. The two
   must compute the same: keep them in step. The student's files are only read, at most 4 MiB. */
#include "grade_skeleton.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SOURCE_BYTES (4u << 20)
#define MAX_REGIONS 64

/* The whole file, NUL-terminated, or NULL (missing, unreadable, too large). */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(MAX_SOURCE_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_SOURCE_BYTES + 1, f) : 0;
    fclose(f);
    if (!buf || n > MAX_SOURCE_BYTES) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static uint64_t fnv1a64(const char *p, const char *end) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (; p < end; p++) {
        if (strchr(" \t\r\n\v\f", *p) && *p) continue;
        h ^= (unsigned char)*p;
        h *= 0x100000001B3ull;
    }
    return h;
}

/* The fingerprints of `exercise`'s regions in the text, in the order their ends appear; their count. */
static int regions_of(const char *text, size_t len, const char *exercise, uint64_t *out, int max) {
    char begin[48], end[48];
    snprintf(begin, sizeof begin, "TODO(%s) begin", exercise);
    snprintf(end, sizeof end, "TODO(%s) end", exercise);
    const char *body = NULL, *stop = text + len;
    int n = 0;
    for (const char *line = text; line < stop;) {
        const char *eol = memchr(line, '\n', (size_t)(stop - line));
        if (!eol) eol = stop;
        /* a marker is found within its line only */
        size_t ll = (size_t)(eol - line);
        char *copy = malloc(ll + 1);
        if (!copy) return -1;
        memcpy(copy, line, ll);
        copy[ll] = '\0';
        if (strlen(copy) == ll && strstr(copy, begin)) body = eol < stop ? eol + 1 : stop;
        else if (strlen(copy) == ll && strstr(copy, end) && body) {
            if (n < max) out[n] = fnv1a64(body, line > body ? line - 1 : body);
            n++;
            body = NULL;
        }
        free(copy);
        line = eol + 1;
    }
    return n;
}

int grade_exercise_untouched(const char *exercise, char *files, size_t cap) {
    const char *skeleton = getenv("GRADE_SKELETON"), *dir = getenv("GRADE_SOURCE_DIR");
    if (!skeleton || !*skeleton || !dir || !*dir || !exercise) return 0;
    FILE *f = fopen(skeleton, "r");
    if (!f) return 0;
    char line[512], file[256] = "", named[256] = "";
    uint64_t want[MAX_REGIONS];
    int nwant = 0, untouched = 1, any = 0;
    if (cap) files[0] = '\0';
    /* the lines of one exercise and one file are consecutive in the file's region order; compare per file */
    for (;;) {
        char ex[32], fname[256];
        unsigned long long h;
        int more = fgets(line, sizeof line, f) != NULL;
        int parsed = more && sscanf(line, "%31s %255s %llx", ex, fname, &h) == 3;
        if (more && !parsed) {
            untouched = 0; /* a line we cannot read: decide nothing */
            break;
        }
        int mine = parsed && !strcmp(ex, exercise);
        if (mine && strchr(fname, '/')) {
            untouched = 0;
            break;
        }
        if ((!more || (mine && strcmp(fname, file))) && file[0] && nwant) {
            /* the regions of `file` collected: the student's must be the same, in the same order */
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, file);
            size_t len = 0;
            char *text = read_file(path, &len);
            uint64_t got[MAX_REGIONS];
            int ngot = text ? regions_of(text, len, exercise, got, MAX_REGIONS) : -1;
            free(text);
            if (ngot != nwant || nwant > MAX_REGIONS || memcmp(got, want, sizeof(uint64_t) * (size_t)nwant)) untouched = 0;
            any = 1;
            if (strcmp(named, file)) {
                size_t used = strlen(files);
                if (used < cap) snprintf(files + used, cap - used, "%s%s", used ? " and " : "", file);
                snprintf(named, sizeof named, "%s", file);
            }
            nwant = 0;
        }
        if (!more) break;
        if (mine) {
            snprintf(file, sizeof file, "%s", fname);
            if (nwant < MAX_REGIONS) want[nwant] = (uint64_t)h;
            nwant++;
        }
    }
    fclose(f);
    return any && untouched;
}

/* The text with comments, string and character literals blanked (each replaced by spaces, newlines
   kept), so that a word in a comment or a string is not taken for code. */
static void blank_comments(char *t) {
    for (char *p = t; *p;) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') *p++ = ' ';
        } else if (p[0] == '/' && p[1] == '*') {
            p[0] = p[1] = ' ';
            p += 2;
            while (*p && !(p[0] == '*' && p[1] == '/')) {
                if (*p != '\n') *p = ' ';
                p++;
            }
            if (*p) p[0] = p[1] = ' ', p += 2;
        } else if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q && *p != '\n') {
                if (*p == '\\' && p[1]) *p++ = ' ';
                *p++ = ' ';
            }
            if (*p == q) p++;
        } else {
            p++;
        }
    }
}

static int ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

int grade_source_function(const char *file, const char *name, char *out, size_t cap) {
    const char *dir = getenv("GRADE_SOURCE_DIR");
    if (!dir || !*dir) return -1;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text) return -2;
    blank_comments(text);
    size_t nl = strlen(name);
    int found = 0;
    for (char *p = strstr(text, name); p && !found; p = strstr(p + 1, name)) {
        if ((p > text && ident_char(p[-1])) || ident_char(p[nl])) continue;
        char *q = p + nl;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
        if (*q != '(') continue;
        /* the parameter list, then `{` (white space and qualifiers such as const aside): a definition */
        int depth = 0;
        char *r = q;
        for (; *r; r++) {
            if (*r == '(') depth++;
            else if (*r == ')' && --depth == 0) break;
        }
        if (!*r) break;
        char *b = r + 1;
        while (*b && *b != '{' && *b != ';' && *b != ',' && *b != ')' && *b != '=' && *b != '(') b++;
        if (*b != '{') continue;
        /* the body, to its matching brace */
        depth = 0;
        char *e = b;
        for (; *e; e++) {
            if (*e == '{') depth++;
            else if (*e == '}' && --depth == 0) break;
        }
        if (!*e) break;
        /* from the name to the closing brace: the parameters count (a `const volatile` parameter is fine) */
        size_t n = (size_t)(e + 1 - p);
        if (cap) {
            if (n >= cap) n = cap - 1;
            memcpy(out, p, n);
            out[n] = '\0';
        }
        found = 1;
    }
    free(text);
    return found;
}

/* Whether a kernel's source (grade_source_function: comments and strings blanked) declares pointers
   to TYPE ("float4", "uint4") and never reads or writes through one: no NAME[...], *NAME, NAME + k,
   and no reinterpret_cast<... TYPE *>(p)[...] either. The simulator cannot see it (trial 19: its
   compiler splits every 16-byte access into four 4-byte ones, so four scalar loads at a stride of 4
   floats make the same requests and sectors as one float4 load); the source can. */
int grade_source_wide_pointer_unused(const char *body, const char *type) {
    size_t tl = strlen(type);
    int declared = 0;
    for (const char *s = strstr(body, type); s; s = strstr(s + 1, type)) {
        if (s > body && (isalnum((unsigned char)s[-1]) || s[-1] == '_')) continue;
        const char *q = s + tl;
        while (*q == ' ' || *q == '\t' || *q == '\n') q++;
        if (*q != '*') continue;
        q++;
        while (*q == ' ' || *q == '\t' || *q == '\n' || !strncmp(q, "const", 5) || !strncmp(q, "__restrict__", 12)) {
            if (!strncmp(q, "const", 5)) q += 5;
            else if (!strncmp(q, "__restrict__", 12)) q += 12;
            else q++;
        }
        if (*q == '>') { /* a cast, reinterpret_cast<const TYPE *>(p): used when its (p) is indexed */
            q++;
            if (*q != '(') continue;
            int depth = 0;
            for (; *q; q++) {
                if (*q == '(') depth++;
                else if (*q == ')' && --depth == 0) break;
            }
            if (*q && q[1] == '[') return 0;
            continue;
        }
        size_t nl = 0;
        while (isalnum((unsigned char)q[nl]) || q[nl] == '_') nl++;
        if (!nl) continue;
        declared = 1;
        for (const char *u = q + nl; *u; u++) {
            if (strncmp(u, q, nl) || isalnum((unsigned char)u[nl]) || u[nl] == '_' || isalnum((unsigned char)u[-1]) || u[-1] == '_') continue;
            const char *after = u + nl;
            while (*after == ' ') after++;
            const char *before = u - 1;
            while (before > body && *before == ' ') before--;
            if (*after == '[' || *after == '+' || *after == '-' || *before == '*') return 0;
        }
    }
    return declared;
}

/* Reads lines up to `line`; a line longer than cap is cut, and the rest of it skipped. */
int grade_source_line(const char *file, int line, char *out, size_t cap) {
    const char *dir = getenv("GRADE_SOURCE_DIR");
    char path[1024];
    if (!dir || !*dir || line < 1) return 0;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int n = 0, got = 0;
    while (!got && fgets(out, (int)cap, f)) {
        size_t len = strlen(out);
        if (len && out[len - 1] != '\n' && !feof(f)) { /* a line longer than cap: skip the rest of it */
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n') {}
        }
        got = ++n == line;
    }
    fclose(f);
    return got;
}

/* The command line as a shell would re-read it, and the UTF-8 rules that it
 * and the reports share: one decoder, so JSON, CSV, the text report and the
 * stored command line agree on which bytes are text. */
#include "pfs/cmdline.h"

#include <stdio.h>
#include <string.h>

static int cont(unsigned char c) { return (c & 0xC0) == 0x80; }

/* The length a sequence led by c has (0: c leads none), and the range its
 * second byte must be in (RFC 3629's table: the ranges outside it would be
 * overlong forms, surrogates or above U+10FFFF). */
static size_t lead(unsigned c, unsigned *lo, unsigned *hi)
{
    *lo = 0x80, *hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return 2;
    if (c >= 0xE0 && c <= 0xEF) {
        *lo = c == 0xE0 ? 0xA0 : 0x80; /* E0 80..9F would be overlong */
        *hi = c == 0xED ? 0x9F : 0xBF; /* ED A0..BF would be a surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        *lo = c == 0xF0 ? 0x90 : 0x80; /* overlong */
        *hi = c == 0xF4 ? 0x8F : 0xBF; /* above U+10FFFF */
        return 4;
    }
    return 0; /* a continuation byte out of place, C0/C1 (always overlong), F5..FF */
}

/* How many bytes at s begin a well-formed sequence (all of it when it is
 * one). A NUL is no continuation byte, so nothing past the end is read. */
static size_t prefix(const unsigned char *s, size_t n, size_t *k)
{
    unsigned lo, hi;
    *k = lead(s[0], &lo, &hi);
    if (*k <= 1)
        return *k;
    if (n < 2 || s[1] < lo || s[1] > hi)
        return 1;
    size_t i = 2;
    while (i < *k && i < n && cont(s[i]))
        i++;
    return i;
}

size_t pfs_utf8_seq(const char *str, size_t n, unsigned *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t k;
    if (n == 0 || prefix(s, n, &k) != k || k == 0)
        return 0;
    unsigned v = k == 1 ? s[0] : s[0] & (0x7Fu >> k);
    for (size_t i = 1; i < k; i++)
        v = (v << 6) | (s[i] & 0x3F);
    if (cp)
        *cp = v;
    return k;
}

size_t pfs_utf8_bad(const char *str, size_t n)
{
    size_t k;
    if (n == 0)
        return 0;
    size_t p = prefix((const unsigned char *)str, n, &k);
    return p == 0 ? 1 : p;
}

int pfs_utf8_printable(unsigned cp)
{
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
        return 0;
    if (cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
        return 0;
    return 1;
}

/* Characters no POSIX shell treats specially anywhere in a word. */
static int shell_safe(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("%+,-./:=@_", c);
}

/* A growing line: n is how long it would be, cut whether something did not
 * fit (after which nothing more is written, only counted). */
struct line {
    char *out;
    size_t len, n;
    int cut;
};

static void put(struct line *l, const char *s, size_t k)
{
    if (!l->cut && l->n + k < l->len)
        memcpy(l->out + l->n, s, k);
    else if (!l->cut)
        l->cut = 1;
    l->n += k;
}

static void quote_word(struct line *l, const char *a)
{
    size_t n = strlen(a);
    int bare = n > 0, open = 0;
    for (size_t i = 0; i < n && bare; i++)
        bare = shell_safe((unsigned char)a[i]);
    if (bare) {
        put(l, a, n);
        return;
    }
    if (n == 0)
        put(l, "''", 2);
    for (size_t i = 0; i < n;) {
        unsigned cp = 0;
        size_t k = pfs_utf8_seq(a + i, n - i, &cp);
        if (k > 0 && cp == '\'') {
            put(l, open ? "'\\'" : "\\'", open ? 3 : 2); /* closes, escapes, and reopens below */
            open = 0;
        } else if (k > 0 && pfs_utf8_printable(cp)) {
            if (!open)
                put(l, "'", 1);
            open = 1;
            put(l, a + i, k);
        } else {
            /* Not text: each byte exactly, in the one quoting that can say it. */
            if (open)
                put(l, "'", 1);
            open = 0;
            size_t m = k ? k : 1;
            for (size_t j = 0; j < m; j++) {
                char x[12];
                int w = snprintf(x, sizeof(x), "$'\\x%02x'", (unsigned char)a[i + j]);
                put(l, x, (size_t)w);
            }
            k = m;
        }
        i += k;
    }
    if (open)
        put(l, "'", 1);
}

size_t pfs_cmdline_join(int argc, char **argv, char *out, size_t len)
{
    struct line l = {out, len, 0, 0};
    size_t whole = 0; /* where the last word that fit ends */
    for (int i = 0; i < argc; i++) {
        if (i)
            put(&l, " ", 1);
        quote_word(&l, argv[i] ? argv[i] : "");
        if (!l.cut)
            whole = l.n;
    }
    if (len > 0)
        out[whole] = '\0';
    return l.n;
}

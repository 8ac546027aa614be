/* The command line as a shell would re-read it, and the UTF-8 rules that it
 * and the reports share: one decoder, so JSON, CSV, the text report and the
 * stored command line agree on which bytes are text. */
#include "pfs/cmdline.h"

#include <stdio.h>
#include <string.h>

static int cont(unsigned char c) { return (c & 0xC0) == 0x80; }

size_t pfs_utf8_seq(const char *str, size_t n, unsigned *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    if (n == 0)
        return 0;
    unsigned c = s[0];
    size_t k;
    unsigned lo = 0x80, hi = 0xBF; /* the range of the second byte (RFC 3629's table) */
    if (c < 0x80) {
        if (cp)
            *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        k = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80; /* E0 80..9F would be overlong */
        hi = c == 0xED ? 0x9F : 0xBF; /* ED A0..BF would be a surrogate */
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        lo = c == 0xF0 ? 0x90 : 0x80; /* overlong */
        hi = c == 0xF4 ? 0x8F : 0xBF; /* above U+10FFFF */
    } else {
        return 0; /* a continuation byte out of place, C0/C1 (overlong), F5..FF */
    }
    /* A NUL is no continuation byte, so a sequence cut by the string's end
     * is refused before anything past it is read. */
    if (k > n || s[1] < lo || s[1] > hi)
        return 0;
    unsigned v = c & (0x7F >> k);
    for (size_t i = 1; i < k; i++) {
        if (!cont(s[i]))
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (cp)
        *cp = v;
    return k;
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

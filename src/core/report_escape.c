/* Strings from outside made safe for each output (pfs_escape), and the
 * run's warnings: what every report shares. */
#define _GNU_SOURCE
#include "report_int.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/cmdline.h"

/* ---- strings from outside, made safe for each output ---- */

/* Where escaped text goes: a FILE, or a buffer that keeps only whole
 * pieces (a character or an escape), so a cut never splits one. */
struct sink {
    FILE *f;
    char *buf;
    size_t len, n, whole;
    int full;
};

static void sput(struct sink *k, const char *p, size_t m)
{
    if (k->f) {
        fwrite(p, 1, m, k->f);
    } else if (!k->full && k->n + m < k->len) {
        memcpy(k->buf + k->n, p, m);
        k->whole = k->n + m;
    } else {
        k->full = 1;
    }
    k->n += m;
}

static void sputf(struct sink *k, const char *fmt, unsigned v)
{
    char x[16];
    int m = snprintf(x, sizeof(x), fmt, v);
    sput(k, x, (size_t)m);
}

/* CSV quotes only when a reader would otherwise split or trim the field. */
static int csv_needs_quotes(const char *s, size_t n)
{
    if (n > 0 && (s[0] == ' ' || s[n - 1] == ' '))
        return 1;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
            return 1;
    return 0;
}

/* One well-formed character cp of k bytes at p, in the output's syntax. */
static void esc_char(struct sink *k, enum pfs_esc how, const char *p, size_t m, unsigned cp)
{
    const char *shortform = cp == '\n' ? "\\n" : cp == '\t' ? "\\t" : cp == '\r' ? "\\r" : NULL;
    if (how == PFS_ESC_CSV) {
        sput(k, cp == '"' ? "\"\"" : p, cp == '"' ? 2 : m);
    } else if (how == PFS_ESC_JSON && (cp == '"' || cp == '\\')) {
        sput(k, cp == '"' ? "\\\"" : "\\\\", 2);
    } else if (how == PFS_ESC_TEXT && cp == '\\') {
        sput(k, "\\\\", 2);
    } else if (pfs_utf8_printable(cp)) {
        sput(k, p, m);
    } else if (shortform) {
        sput(k, shortform, 2);
    } else if (how == PFS_ESC_TEXT && cp < 0x80) {
        sputf(k, "\\x%02x", cp);
    } else {
        sputf(k, "\\u%04x", cp); /* every code point that is not printable is below U+10000 */
    }
}

static void escape(struct sink *k, enum pfs_esc how, const char *s, size_t n)
{
    s = s ? s : "";
    n = strnlen(s, n);
    int quote = how == PFS_ESC_JSON || (how == PFS_ESC_CSV && csv_needs_quotes(s, n));
    if (quote)
        sput(k, "\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned cp = 0;
        size_t m = pfs_utf8_seq(s + i, n - i, &cp);
        if (m > 0) {
            esc_char(k, how, s + i, m, cp);
            i += m;
            continue;
        }
        /* Not UTF-8: the text shows every byte; JSON and CSV say U+FFFD once
         * per maximal subpart, as every other decoder does, and the text
         * after it still reads. */
        size_t bad = pfs_utf8_bad(s + i, n - i);
        if (how == PFS_ESC_TEXT)
            for (size_t j = 0; j < bad; j++)
                sputf(k, "\\x%02x", (unsigned char)s[i + j]);
        else
            sput(k, "\xef\xbf\xbd", 3); /* U+FFFD */
        i += bad;
    }
    if (quote)
        sput(k, "\"", 1);
}

size_t pfs_escape(enum pfs_esc how, const char *s, size_t n, char *out, size_t len)
{
    struct sink k = {NULL, out, len, 0, 0, 0};
    escape(&k, how, s, n);
    if (len > 0)
        out[k.whole] = '\0';
    return k.n;
}

void pfs_escape_write(FILE *out, enum pfs_esc how, const char *s, size_t n)
{
    struct sink k = {out, NULL, 0, 0, 0, 0};
    escape(&k, how, s, n);
}

/* For the text report's fixed-width columns: s escaped into buf. */
const char *pfs_report_text_of(const char *s, char *buf, size_t len)
{
    pfs_escape(PFS_ESC_TEXT, s, SIZE_MAX, buf, len);
    return buf;
}


void pfs_run_vwarn(struct pfs_run_data *d, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    const size_t have = d->warnings ? strlen(d->warnings) : 0;
    char *grown = n >= 0 ? realloc(d->warnings, have + (size_t)n + 2) : NULL;
    if (!grown) {
        fprintf(stderr, "pfsbench: warning (not recorded: out of memory): ");
        vfprintf(stderr, fmt, again);
        fputc('\n', stderr);
        va_end(again);
        return;
    }
    vsnprintf(grown + have, (size_t)n + 1, fmt, again);
    va_end(again);
    grown[have + (size_t)n] = '\n';
    grown[have + (size_t)n + 1] = '\0';
    d->warnings = grown;
}

void pfs_run_warn(struct pfs_run_data *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pfs_run_vwarn(d, fmt, ap);
    va_end(ap);
}

void pfs_run_release(struct pfs_run_data *d)
{
    free(d->warnings);
    d->warnings = NULL;
    pfs_figures_free(&d->fig);
}

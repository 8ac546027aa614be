/* Sizes and durations (pfs/units.h): the one parser of each. */
#include "pfs/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *why, size_t len, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int is_b(char c) { return c == 'b' || c == 'B'; }

/* The bytes one unit u stands for (u: what follows the digits). */
static int unit_bytes(const char *u, const struct pfs_size_syntax *syn, uint64_t *mult, char *why, size_t len)
{
    const char *letters = syn->letters ? syn->letters : "kmgt";
    if (!*u) {
        *mult = syn->plain ? syn->plain : 1;
        return 0;
    }
    if (is_b(u[0]) && !u[1]) {
        *mult = 1;
        return 0;
    }
    const char *l = isalpha((unsigned char)u[0]) ? strchr(letters, tolower((unsigned char)u[0])) : NULL;
    if (!l && syn->letters)
        return say(why, len, "unknown unit '%s'; this takes %s", u, syn->letters);
    if (!l)
        return say(why, len, "unknown unit '%s'", u);
    const char *rest = u + 1;
    const char up = (char)toupper((unsigned char)u[0]);
    uint64_t base;
    if (!*rest) {
        base = 1024;
    } else if ((rest[0] == 'i' || rest[0] == 'I') && (!rest[1] || (is_b(rest[1]) && !rest[2]))) {
        if (syn->flags & PFS_SIZE_NO_IEC)
            return say(why, len, "fio reads '%s' as 1000-based (its default kb_base=1024); write %c for 1024-based, "
                       "or the bytes", u, u[0]);
        base = 1024;
    } else if (is_b(rest[0]) && !rest[1]) {
        if (syn->flags & PFS_SIZE_KB_BINARY)
            base = 1024;
        else if (rest[0] == 'B' && (isupper((unsigned char)u[0]) || u[0] == 'k'))
            base = 1000; /* SI: KB, MB, GB and kB */
        else
            return say(why, len, "'%s' is ambiguous (fio and IOR read it 1024-based, SI 1000-based); write %c or %ciB "
                       "for 1024-based, %cB for 1000-based", u, u[0], up, up);
    } else {
        return say(why, len, "unknown unit '%s'", u);
    }
    uint64_t m = 1;
    for (const char *k = letters; k <= l; k++)
        m *= base;
    *mult = m;
    return 0;
}

int pfs_size_parse(const char *s, const struct pfs_size_syntax *syntax, uint64_t *out, char *why, size_t len)
{
    static const struct pfs_size_syntax native = {0, 1, NULL};
    const struct pfs_size_syntax *syn = syntax ? syntax : &native;
    if (!s || !*s)
        return say(why, len, "empty");
    if (*s == '-')
        return say(why, len, "negative");
    if (!isdigit((unsigned char)*s))
        return say(why, len, "not a number");
    uint64_t v = 0;
    int big = 0;
    const char *p = s;
    for (; isdigit((unsigned char)*p); p++) {
        if (v > (UINT64_MAX - 9) / 10)
            big = 1;
        else
            v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.' || *p == ',')
        return say(why, len, "a fraction; give a whole number (1536k, not 1.5m)");
    uint64_t mult = 1;
    if (unit_bytes(p, syn, &mult, why, len) != 0)
        return -1;
    if (!big && v == 0) {
        if (!(syn->flags & PFS_SIZE_ZERO))
            return say(why, len, "zero; a size must be positive");
        *out = 0;
        return 0;
    }
    if (big || v > PFS_SIZE_MAX / mult)
        return say(why, len, "larger than 2^62 bytes (4 EiB), the most a file offset holds here");
    *out = v * mult;
    return 0;
}

int pfs_parse_size(const char *s, uint64_t *out) { return pfs_size_parse(s, NULL, out, NULL, 0); }

uint64_t pfs_size_word(const char *s)
{
    static const struct pfs_size_syntax tool = {PFS_SIZE_KB_BINARY, 1, "kmg"};
    char word[32];
    size_t n = strcspn(s, " \t\r\n");
    uint64_t v;
    if (n >= sizeof(word))
        return 0;
    memcpy(word, s, n);
    word[n] = '\0';
    return pfs_size_parse(word, &tool, &v, NULL, 0) == 0 ? v : 0;
}

int pfs_parse_duration(const char *s, double *secs, char *why, size_t len)
{
    static const struct {
        const char *name;
        double secs;
    } units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"m", 60}, {"min", 60}, {"h", 3600}, {"d", 86400}};
    if (!s || !*s)
        return say(why, len, "empty");
    if (*s == '-')
        return say(why, len, "negative");
    /* strtod's other spellings (0x10, inf, nan, leading blanks) are not durations. */
    if (!(isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]))) ||
        (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
        return say(why, len, "not a number");
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(end, units[i].name) != 0)
            continue;
        v *= units[i].secs;
        if (!isfinite(v) || (errno == ERANGE && v > 1)) /* an underflow is 0: the option's range tells */
            return say(why, len, "too large");
        *secs = v;
        return 0;
    }
    return say(why, len, "unknown unit '%s'", end);
}

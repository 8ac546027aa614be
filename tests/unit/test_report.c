/* The text report, written into memory and read back. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/cmdline.h"
#include "pfs/fsinfo.h"
#include "pfs/report.h"
#include "report_fixture.h"

static int setup(void **state)
{
    struct fixture *f = report_fixture_new();
    snprintf(f->cfg.dir, sizeof(f->cfg.dir), "/scratch/x");
    f->cfg.transfer = 1 << 20;
    f->cfg.block = 4 << 20;
    f->cfg.total = 16 << 20;
    f->cfg.fsync = 1;
    /* phase 0 rep 0: every rank 4 MiB in [1, 3]: 16 MiB / 2 s = 8 MiB/s.
     * Node 1's ranks are slow in phase 1 rep 1. */
    for (int p = 0; p < 2; p++)
        for (int rep = 0; rep < 2; rep++)
            for (int r = 0; r < 4; r++) {
                struct pfs_times *t = &f->times[(p * 2 + rep) * 4 + r];
                t->open_start = 1;
                t->close_end = (p == 1 && rep == 1 && r % 2) ? 9 : 3;
                t->bytes = 4 << 20;
            }
    snprintf(f->d.fstype, sizeof(f->d.fstype), "lustre");
    *state = f;
    return 0;
}

static char *render(struct fixture *f, void (*fn)(FILE *, const struct pfs_run_data *))
{
    return report_fixture_render(f, fn, 0);
}

static void test_header(void **state)
{
    struct fixture *f = *state;
    pfs_run_warn(&f->d, "first %d", 1);
    pfs_run_warn(&f->d, "second");
    char *s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "4 on 2 nodes (2 per node)"));
    assert_non_null(strstr(s, "/scratch/x (lustre)"));
    assert_non_null(strstr(s, "transfer 1 MiB, block 4 MiB per rank, total 16 MiB"));
    assert_non_null(strstr(s, "write,read x 2 repetitions"));
    assert_non_null(strstr(s, "total 16 MiB; MiB/s = 2^20 bytes/s\n"));
    assert_null(strstr(s, "fsync .. close")); /* the timed region: -v */
    assert_null(strstr(s, "\nlabel"));          /* none given */
    assert_non_null(strstr(s, "warning      first 1\nwarning      second\n"));
    free(s);
    /* -v: the timed region; --label: printed second, escaped; --units KB defined */
    f->cfg.verbose = 1;
    f->cfg.units = PFS_UNITS_KB;
    snprintf(f->cfg.label, sizeof(f->cfg.label), "ost 4\x1b[31m");
    s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "\ntimed region open .. transfers .. fsync .. close"));
    assert_non_null(strstr(s, "  \nlabel        ost 4\\x1b[31m\nranks "));
    assert_non_null(strstr(s, "total 16 MiB; KB/s = 1024 bytes/s, the seeds' unit\n"));
    free(s);
    /* --rate-sweep: the repetitions it runs, a closed-loop one and a point each */
    snprintf(f->cfg.rate_sweep, sizeof(f->cfg.rate_sweep), "50%%,100%%");
    f->cfg.reps = 3;
    s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "write,read x 3 repetitions\n"));
    free(s);
    /* --latency-target: cfg->reps is the most its search runs (it said "x 11 repetitions") */
    f->cfg.rate_sweep[0] = '\0';
    snprintf(f->cfg.lat_target, sizeof(f->cfg.lat_target), "p99=2ms");
    f->cfg.reps = 11;
    s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "write,read x up to 11 repetitions (a closed-loop one, then at most 10 rates of "
                              "--latency-target's search)\n"));
    free(s);
}

/* Every warning is kept, however many phases warn: the list has no cap
 * (it was a fixed 2,048 bytes that dropped the later ones, silently). */
static void test_many_warnings(void **state)
{
    struct fixture *f = *state;
    for (int i = 0; i < 200; i++)
        pfs_run_warn(&f->d, "warning number %03d of a run whose every phase warns, long enough to fill", i);
    char *s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "warning      warning number 000 of"));
    assert_non_null(strstr(s, "warning      warning number 199 of"));
    free(s);
    s = render(f, pfs_report_json);
    assert_non_null(strstr(s, "\"warning number 199 of a run whose every phase warns, long enough to fill\"]"));
    free(s);
    int lines = 0;
    for (const char *c = f->d.warnings; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 200);
}

static void row_p0r0(FILE *out, const struct pfs_run_data *d) { pfs_report_row(out, d, 0, 0); }
static void row_p1r1(FILE *out, const struct pfs_run_data *d) { pfs_report_row(out, d, 1, 1); }

static void test_rows(void **state)
{
    struct fixture *f = *state;
    for (int r = 0; r < 4; r++)
        f->times[r].xfers = 4; /* 16 transfers of 1 MiB in 2 s */
    char *s = render(f, pfs_report_columns);
    assert_non_null(strstr(s, "\nphase       rep          MiB/s       IOPS    seconds   util  slowest / fastest node\n"));
    free(s);
    s = render(f, row_p0r0);
    /* 8 MiB/s, 8 IOPS, 2 s, utilization 1 */
    char phase[16];
    int rep;
    double mib, iops, sec, util;
    assert_int_equal(sscanf(s, "%15s %d %lf %lf %lf %lf", phase, &rep, &mib, &iops, &sec, &util), 6);
    assert_string_equal(phase, "write");
    assert_float_equal(mib, 8.0, 1e-9);
    assert_float_equal(iops, 8.0, 1e-9);
    assert_float_equal(sec, 2.0, 1e-9);
    assert_float_equal(util, 1.0, 1e-9);
    assert_null(strstr(s, "STRAGGLER"));
    free(s);
    s = render(f, row_p1r1);
    /* 16 MiB over 8 s; node 1 (node2) at 8 MiB / 8 s is below 0.8 x the median */
    assert_int_equal(sscanf(s, "%15s %d %lf", phase, &rep, &mib), 3);
    assert_string_equal(phase, "read");
    assert_float_equal(mib, 2.0, 1e-9);
    assert_non_null(strstr(s, "STRAGGLER"));
    assert_non_null(strstr(s, "straggler: node 1 (node2) 1.00 MiB/s"));
    free(s);
}

/* A repetition too short to measure: the row says so under it, and the
 * run's warnings say it once per phase (issue 26). Phase 0 rep 0: the 4
 * ranks opened 10 ms apart and each wrote its 4 MiB in 0.5 ms. */
static void test_short_phase(void **state)
{
    struct fixture *f = *state;
    for (int r = 0; r < 4; r++) {
        f->times[r].open_start = 1 + 0.01 * r;
        f->times[r].close_end = f->times[r].open_start + 0.0005;
    }
    char *s = render(f, row_p0r0);
    assert_non_null(strstr(s, "\nwarning      write rep 0: too short to measure: 0.0305 s, within 10x of the barrier "
                              "skew (the streams started 0.03 s apart and ended 0.03 s apart); aggregate 524.6 MiB/s: "
                              "the figure measures the skew more than the file system; give each stream more work "
                              "(-b, or --runtime)\n"));
    free(s);
    s = render(f, row_p1r1); /* a phase of 8 s that started together: nothing */
    assert_null(strstr(s, "warning"));
    free(s);
    /* stored once per phase, with how many of its repetitions; rep 1 too now */
    for (int r = 0; r < 4; r++)
        f->times[4 + r] = f->times[r];
    char *msg = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&msg, &len);
    assert_int_equal(pfs_run_figures(&f->d), 0);
    pfs_run_short_warnings(&f->d, m);
    fclose(m);
    assert_non_null(strstr(f->d.warnings, "write rep 0: too short to measure: 0.0305 s"));
    assert_non_null(strstr(f->d.warnings, "(2 of 2 repetitions)\n"));
    assert_null(strstr(f->d.warnings, "read rep"));
    assert_non_null(strstr(msg, "pfsbench: warning: write rep 0: too short"));
    int lines = 0;
    for (const char *c = f->d.warnings; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 1); /* one warning for the phase, not one per repetition */
    free(msg);
}

static void test_summary(void **state)
{
    struct fixture *f = *state;
    char *s = render(f, pfs_report_summary);
    const char *line = strstr(s, "\nread ");
    assert_non_null(line);
    char phase[16];
    int n;
    char ci[16];
    double mn, mx, mean, med, sd;
    assert_non_null(strstr(s, "summary over repetitions (aggregate MiB/s; +-: the 95% CI of the mean)\n"
                              "phase      reps       mean       +-     median        min        max     stddev  mean s"));
    assert_int_equal(sscanf(line + 1, "%15s %d %lf %15s %lf %lf %lf %lf", phase, &n, &mean, ci, &med, &mn, &mx, &sd), 8);
    assert_int_equal(n, 2);
    assert_string_equal(ci, "762.4%");
    assert_float_equal(mn, 2.0, 1e-9);
    assert_float_equal(mx, 8.0, 1e-9);
    assert_float_equal(mean, 5.0, 1e-9);
    assert_float_equal(med, 5.0, 1e-9);
    assert_float_equal(sd, 4.24, 0.0051); /* printed to 2 decimals: sqrt(18) */
    free(s);
}


/* The interval beside the mean and median; --warmup's repetitions marked
 * in their rows and left out of the summary, the JSON and the CSV. */
static void test_summary_ci_warmup(void **state)
{
    struct fixture *f = *state;
    char *s = render(f, pfs_report_summary);
    /* read: 8 and 2 MiB/s: mean 5, s = sqrt(18), half = t(1) x 3 = 38.12: 762.4%,
     * in the row; in words below it only with -v (or a warm-up, or a target) */
    assert_non_null(strstr(s, "\nread "));
    assert_non_null(strstr(s, " 762.4% "));
    assert_null(strstr(s, "mean 5.00 +-"));
    free(s);
    f->cfg.verbose = 1;
    s = render(f, pfs_report_summary);
    assert_non_null(strstr(s, "mean 5.00 +-762.4% (95% CI, 2 reps), median 5.00\n"));
    assert_null(strstr(s, "warm-up"));
    assert_null(strstr(s, "target"));
    free(s);
    f->cfg.verbose = 0;
    f->cfg.warmup = 1;
    s = render(f, row_p0r0);
    assert_non_null(strstr(s, "  warm-up\n"));
    free(s);
    s = render(f, row_p1r1);
    assert_null(strstr(s, "warm-up"));
    free(s);
    s = render(f, pfs_report_summary);
    char phase[16];
    int n;
    double mn, mx;
    const char *line = strstr(s, "\nread ");
    assert_non_null(line);
    char ci[16];
    double mean;
    assert_int_equal(sscanf(line + 1, "%15s %d %lf %15s %lf %lf %lf", phase, &n, &mean, ci, &mx, &mn, &mx), 7);
    assert_string_equal(ci, "n/a");
    assert_int_equal(n, 1);
    assert_float_equal(mn, 2.0, 1e-9);
    assert_float_equal(mx, 2.0, 1e-9);
    assert_non_null(strstr(s, "mean 2.00 +-n/a (95% CI, 1 rep), median 2.00; 1 warm-up left out\n"));
    free(s);
    s = render(f, pfs_report_json);
    assert_non_null(strstr(s, "{\"rep\": 0, \"warmup\": true,"));
    assert_non_null(strstr(s, "{\"rep\": 1, \"warmup\": false,"));
    assert_non_null(strstr(s, "\"reps\": 1, \"warmup\": 1, \"min\": 2, \"max\": 2, \"mean\": 2, \"median\": 2, "
                              "\"stddev\": null, \"ci95_half_width\": null, \"ci95_percent\": null, \"target_met\": null}"));
    free(s);
    s = render(f, pfs_report_csv);
    assert_non_null(strstr(s, ",is_warmup,reps_measured,ci95_half_width,ci95_percent,target_met,find_matched,"
                              "cache_method,cache_bytes,cache_resident_bytes,cache_resident_fraction,cache_dirty_method,cache_dirty_probed_bytes,cache_dirty_bytes,cache_dirty_fraction,"
                              "read_ops_per_s,write_ops_per_s,read_bandwidth_bytes_per_s,write_bandwidth_bytes_per_s\n"));
    /* rep 0: warm-up; one measured rep: no interval; not a find; no page cache; no read/write mix */
    assert_non_null(strstr(s, ",1,1,,,,,,,,,,,,,,,,\n"));
    assert_non_null(strstr(s, ",0,1,,,,,,,,,,,,,,,,\n"));
    free(s);
    /* --reps auto: the verdict against --ci */
    f->cfg.warmup = 0;
    f->cfg.reps = 0;
    s = render(f, pfs_report_summary);
    assert_non_null(strstr(s, "(95% CI, 2 reps), median 5.00; target +-5% not met\n"));
    free(s);
    s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "write,read x auto: until every phase's 95% CI is within +-5% of its mean (3 to 20 repetitions)\n"));
    free(s);
}

/* ---- strings from outside: checks written apart from the code under test ---- */

/* Well-formed UTF-8 (RFC 3629), decoded the long way: any lead byte, then the
 * code point checked for overlong forms, surrogates and the upper bound. */
static int utf8_valid(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], cp, need;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0)
            need = 1, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0)
            need = 2, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0)
            need = 3, cp = c & 0x07;
        else
            return 0;
        for (unsigned j = 1; j <= need; j++) {
            if (i + j >= n || (s[i + j] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + j] & 0x3F);
        }
        static const unsigned min[] = {0, 0x80, 0x800, 0x10000};
        if (cp < min[need] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += need + 1;
    }
    return 1;
}

/* Nothing a terminal acts on: no C0 control but the newlines given, no DEL,
 * no C1 control (encoded C2 80..9F), no ESC. */
static int terminal_safe(const char *str, size_t n, int newlines_ok)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n; i++) {
        if ((s[i] < 0x20 && !(newlines_ok && s[i] == '\n')) || s[i] == 0x7F)
            return 0;
        if (s[i] == 0xC2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F)
            return 0;
    }
    return 1;
}

/* A small strict JSON checker (RFC 8259): enough to say a document parses. */
struct jp {
    const char *p, *end;
};

static void jws(struct jp *j)
{
    while (j->p < j->end && strchr(" \t\r\n", *j->p))
        j->p++;
}

static int jstring(struct jp *j)
{
    if (j->p >= j->end || *j->p++ != '"')
        return 0;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p++;
        if (c < 0x20)
            return 0;
        if (c != '\\')
            continue;
        if (j->p >= j->end)
            return 0;
        c = (unsigned char)*j->p++;
        if (c == 'u') {
            for (int i = 0; i < 4; i++)
                if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p++))
                    return 0;
        } else if (!strchr("\"\\/bfnrt", c)) {
            return 0;
        }
    }
    return j->p++ < j->end;
}

static int jvalue(struct jp *j, int depth);

static int jseq(struct jp *j, char close, int object, int depth)
{
    jws(j);
    if (j->p < j->end && *j->p == close)
        return j->p++, 1;
    for (;;) {
        jws(j);
        if (object) {
            if (!jstring(j))
                return 0;
            jws(j);
            if (j->p >= j->end || *j->p++ != ':')
                return 0;
        }
        if (!jvalue(j, depth + 1))
            return 0;
        jws(j);
        if (j->p >= j->end)
            return 0;
        char c = *j->p++;
        if (c == close)
            return 1;
        if (c != ',')
            return 0;
    }
}

static int jvalue(struct jp *j, int depth)
{
    jws(j);
    if (j->p >= j->end || depth > 32)
        return 0;
    char c = *j->p;
    if (c == '"')
        return jstring(j);
    if (c == '{' || c == '[')
        return j->p++, jseq(j, c == '{' ? '}' : ']', c == '{', depth);
    for (const char *const *w = (const char *const[]){"true", "false", "null", NULL}; *w; w++)
        if ((size_t)(j->end - j->p) >= strlen(*w) && !strncmp(j->p, *w, strlen(*w)))
            return j->p += strlen(*w), 1;
    char *e;
    strtod(j->p, &e); /* the report prints numbers with %d, %llu and %.17g only */
    if (e == j->p || c == '+' || c == '.')
        return 0;
    j->p = e;
    return 1;
}

static int json_parses(const char *s, size_t n)
{
    struct jp j = {s, s + n};
    if (!jvalue(&j, 0))
        return 0;
    jws(&j);
    return j.p == j.end;
}

/* The body of a JSON string literal s (quotes included) decoded back, for
 * ASCII escapes only (enough for the round trip of the inputs below). */
static char *json_unquote(const char *s)
{
    size_t n = strlen(s);
    char *o = calloc(n + 1, 1), *q = o;
    for (size_t i = 1; i + 1 < n; i++) {
        if (s[i] != '\\') {
            *q++ = s[i];
            continue;
        }
        char c = s[++i];
        if (c == 'u') {
            unsigned v = 0;
            sscanf(s + i + 1, "%4x", &v);
            i += 4;
            if (v < 0x80) {
                *q++ = (char)v;
            } else if (v < 0x800) {
                *q++ = (char)(0xC0 | v >> 6), *q++ = (char)(0x80 | (v & 0x3F));
            } else {
                *q++ = (char)(0xE0 | v >> 12), *q++ = (char)(0x80 | ((v >> 6) & 0x3F));
                *q++ = (char)(0x80 | (v & 0x3F));
            }
        } else {
            *q++ = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        }
    }
    return o;
}

/* A CSV field (RFC 4180) read back. */
static char *csv_unquote(const char *s)
{
    size_t n = strlen(s);
    char *o = calloc(n + 1, 1), *q = o;
    if (n == 0 || s[0] != '"')
        return memcpy(o, s, n), o;
    for (size_t i = 1; i + 1 < n; i++) {
        *q++ = s[i];
        if (s[i] == '"')
            i++; /* the second of a doubled quote */
    }
    return o;
}

/* Inputs with what a well-behaved output must make of them: repaired is the
 * input with each maximal subpart that is not UTF-8 replaced by one U+FFFD
 * (what Python's "replace" gives, which the MPI test compares with). */
#define FFFD "\xef\xbf\xbd"
static const struct {
    const char *what, *in, *repaired, *json, *text;
} strings[] = {
    {"plain", "plain", "plain", "\"plain\"", "plain"},
    {"quote and backslash", "a\"b\\c", "a\"b\\c", "\"a\\\"b\\\\c\"", "a\"b\\\\c"},
    {"controls", "a\nb\tc\x1b[31m\x7f", "a\nb\tc\x1b[31m\x7f", "\"a\\nb\\tc\\u001b[31m\\u007f\"",
     "a\\nb\\tc\\x1b[31m\\x7f"},
    {"valid multibyte", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
     "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},
    {"stray bytes", "a\xff\xfe" "b", "a" FFFD FFFD "b", "\"a" FFFD FFFD "b\"", "a\\xff\\xfeb"},
    {"lone continuation", "\x80x\xbf", FFFD "x" FFFD, "\"" FFFD "x" FFFD "\"", "\\x80x\\xbf"},
    {"overlong slash", "\xc0\xaf", FFFD FFFD, "\"" FFFD FFFD "\"", "\\xc0\\xaf"},
    {"overlong 3-byte", "\xe0\x80\xaf", FFFD FFFD FFFD, "\"" FFFD FFFD FFFD "\"", "\\xe0\\x80\\xaf"},
    {"overlong 4-byte", "\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD, "\"" FFFD FFFD FFFD FFFD "\"",
     "\\xf0\\x80\\x80\\xaf"},
    {"surrogate", "\xed\xa0\x80", FFFD FFFD FFFD, "\"" FFFD FFFD FFFD "\"", "\\xed\\xa0\\x80"},
    {"above U+10FFFF", "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD, "\"" FFFD FFFD FFFD FFFD "\"",
     "\\xf4\\x90\\x80\\x80"},
    {"truncated at the end", "ok\xe2\x82", "ok" FFFD, "\"ok" FFFD "\"", "ok\\xe2\\x82"},
    {"truncated before ASCII", "\xe2\x82z", FFFD "z", "\"" FFFD "z\"", "\\xe2\\x82z"},
    {"truncated 4-byte", "\xf0\x9f\x98!", FFFD "!", "\"" FFFD "!\"", "\\xf0\\x9f\\x98!"},
    {"lead, ASCII, continuation", "\xe2(\xa1", FFFD "(" FFFD, "\"" FFFD "(" FFFD "\"", "\\xe2(\\xa1"},
    {"C1 control (CSI)", "\xc2\x9b" "31m", "\xc2\x9b" "31m", "\"\\u009b31m\"", "\\u009b31m"},
    {"bidi override", "a\xe2\x80\xae" "b", "a\xe2\x80\xae" "b", "\"a\\u202eb\"", "a\\u202eb"},
    {"comma, quote, CR", " x,\"y\"\r", " x,\"y\"\r", "\" x,\\\"y\\\"\\r\"", " x,\"y\"\\r"},
    {"empty", "", "", "\"\"", ""},
};

static void test_escape_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        const char *in = strings[i].in;
        char json[256], csv[256], text[256];
        size_t nj = pfs_escape(PFS_ESC_JSON, in, SIZE_MAX, json, sizeof(json));
        size_t nc = pfs_escape(PFS_ESC_CSV, in, SIZE_MAX, csv, sizeof(csv));
        size_t nt = pfs_escape(PFS_ESC_TEXT, in, SIZE_MAX, text, sizeof(text));
        print_message("%s\n", strings[i].what);
        assert_int_equal(nj, strlen(json));
        assert_int_equal(nc, strlen(csv));
        assert_int_equal(nt, strlen(text));
        assert_string_equal(json, strings[i].json);
        assert_string_equal(text, strings[i].text);
        for (const char *o = json; o; o = o == json ? csv : o == csv ? text : NULL)
            assert_true(utf8_valid(o, strlen(o)));
        assert_true(json_parses(json, nj));
        assert_true(terminal_safe(json, nj, 0));
        assert_true(terminal_safe(text, nt, 0));
        char *back = json_unquote(json);
        assert_string_equal(back, strings[i].repaired);
        free(back);
        back = csv_unquote(csv);
        assert_string_equal(back, strings[i].repaired);
        free(back);
        if (csv[0] != '"')
            assert_null(strpbrk(csv, ",\"\r\n"));
    }
}

/* Every byte value in every position: the output is UTF-8 and JSON parses. */
static void test_escape_all_bytes(void **state)
{
    (void)state;
    char in[4], out[64];
    for (int a = 1; a < 256; a++)
        for (int b = 0; b < 256; b += 5) {
            in[0] = (char)a, in[1] = (char)b, in[2] = (char)(b ? 0x80 : 0), in[3] = 0;
            size_t n = pfs_escape(PFS_ESC_JSON, in, SIZE_MAX, out, sizeof(out));
            assert_true(utf8_valid(out, n) && json_parses(out, n) && terminal_safe(out, n, 0));
            n = pfs_escape(PFS_ESC_CSV, in, SIZE_MAX, out, sizeof(out));
            assert_true(utf8_valid(out, n));
            n = pfs_escape(PFS_ESC_TEXT, in, SIZE_MAX, out, sizeof(out));
            assert_true(utf8_valid(out, n) && terminal_safe(out, n, 0));
        }
}

/* A buffer too small is cut between whole pieces: still UTF-8, and the
 * return value is the length the whole needed. */
static void test_escape_cut(void **state)
{
    (void)state;
    const char *in = "\xe2\x82\xac\x1b\xff\xc3\xa9";
    char full[64], out[64];
    size_t need = pfs_escape(PFS_ESC_JSON, in, SIZE_MAX, full, sizeof(full));
    for (size_t len = 0; len <= need + 1; len++) {
        memset(out, 'X', sizeof(out));
        assert_int_equal(pfs_escape(PFS_ESC_JSON, in, SIZE_MAX, out, len), need);
        if (len == 0) {
            assert_int_equal(out[0], 'X');
            continue;
        }
        assert_true(strlen(out) < len);
        assert_true(utf8_valid(out, strlen(out)));
        assert_memory_equal(out, full, strlen(out));
    }
    /* n bounds what is read: a sequence cut by n is not UTF-8. */
    assert_int_equal(pfs_escape(PFS_ESC_TEXT, in, 2, out, sizeof(out)), 8);
    assert_string_equal(out, "\\xe2\\x82");
}

static const char *nasty_label = "lab\xff\xfe\x1b[31m\"q\",\n\xe2\x82";

static void make_nasty(struct fixture *f)
{
    snprintf(f->cfg.label, sizeof(f->cfg.label), "%s", nasty_label);
    snprintf(f->cfg.dir, sizeof(f->cfg.dir), "/scratch/a b\nc\xff\\d\"");
    snprintf(f->d.fstype, sizeof(f->d.fstype), "fu\x1bse\xc0");
    snprintf(f->d.error, sizeof(f->d.error), "open '/x\xfe': \x07 failed");
    snprintf(f->hosts[1], PFS_HOST_MAX, "no\x1b]0;pwned\x07" "de\xe9");
    snprintf(f->hosts[3], PFS_HOST_MAX, "%s", f->hosts[1]);
    f->d.cmdline = "pfsbench --label 'a\xff'";
    f->d.status = "failed";
    pfs_run_warn(&f->d, "warned about %s", "/p\xff\x1b");
    pfs_run_warn(&f->d, "cut \xe2\x82");
}

static void test_json_nasty(void **state)
{
    struct fixture *f = *state;
    make_nasty(f);
    char *s = render(f, pfs_report_json);
    size_t n = strlen(s);
    assert_true(utf8_valid(s, n));
    assert_true(json_parses(s, n));
    assert_true(terminal_safe(s, n, 1));
    assert_non_null(strstr(s, "\"label\": \"lab" FFFD FFFD "\\u001b[31m\\\"q\\\",\\n" FFFD "\""));
    assert_non_null(strstr(s, "\"command_line\": \"pfsbench --label 'a" FFFD "'\""));
    assert_non_null(strstr(s, "\"warnings\": [\"warned about /p" FFFD "\\u001b\", \"cut " FFFD "\"]"));
    assert_non_null(strstr(s, "\"host\": \"no\\u001b]0;pwned\\u0007de" FFFD "\""));
    free(s);
}

static void test_csv_nasty(void **state)
{
    struct fixture *f = *state;
    make_nasty(f);
    char *s = render(f, pfs_report_csv);
    assert_true(utf8_valid(s, strlen(s)));
    /* Header and 4 records, each with the label as one quoted field (its
     * newline inside the quotes) and as many fields as the header. */
    const char *rec = strchr(s, '\n') + 1;
    int header_fields = 1;
    for (const char *p = s; p < rec; p++)
        header_fields += *p == ',';
    for (int r = 0; r < 4; r++) {
        int fields = 1, inq = 0;
        const char *p = rec;
        for (; *p && (inq || *p != '\n'); p++) {
            if (*p == '"')
                inq = !inq;
            else if (*p == ',' && !inq)
                fields += 1;
        }
        assert_int_equal(fields, header_fields);
        assert_non_null(strstr(rec, "testrun,\"lab" FFFD FFFD "\x1b[31m\"\"q\"\",\n" FFFD "\",failed,"));
        rec = p + 1;
    }
    assert_int_equal(*rec, '\0');
    free(s);
}

static void test_text_nasty(void **state)
{
    struct fixture *f = *state;
    make_nasty(f);
    void (*parts[])(FILE *, const struct pfs_run_data *) = {pfs_report_header, pfs_report_placement, row_p1r1};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        char *s = render(f, parts[i]);
        assert_true(utf8_valid(s, strlen(s)));
        assert_true(terminal_safe(s, strlen(s), 1));
        if (i == 0) {
            assert_non_null(strstr(s, "target       /scratch/a b\\nc\\xff\\\\d\" (fu\\x1bse\\xc0)\n"));
            assert_non_null(strstr(s, "warning      warned about /p\\xff\\x1b\nwarning      cut \\xe2\\x82\n"));
        } else {
            assert_non_null(strstr(s, "no\\x1b]0;pwned\\x07de\\xe9"));
        }
        free(s);
    }
}

/* ---- the command line ---- */

static void test_utf8_seq(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        size_t n, len;
        unsigned cp;
    } t[] = {
        {"A", 1, 1, 'A'},           {"\xc3\xa9", 2, 2, 0xE9},       {"\xe2\x82\xac", 3, 3, 0x20AC},
        {"\xf0\x9f\x98\x80", 4, 4, 0x1F600}, {"\xf4\x8f\xbf\xbf", 4, 4, 0x10FFFF}, {"\xef\xbf\xbd", 3, 3, 0xFFFD},
        {"\xc3\xa9", 1, 0, 0},      {"\x80", 1, 0, 0},              {"\xc1\xbf", 2, 0, 0},
        {"\xe0\x9f\xbf", 3, 0, 0},  {"\xed\xbf\xbf", 3, 0, 0},      {"\xf0\x8f\xbf\xbf", 4, 0, 0},
        {"\xf5\x80\x80\x80", 4, 0, 0}, {"\xe2\x82", 3, 0, 0},        {"\xff", 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        unsigned cp = 0;
        assert_int_equal(pfs_utf8_seq(t[i].s, t[i].n, &cp), t[i].len);
        if (t[i].len)
            assert_int_equal(cp, t[i].cp);
    }
    /* The maximal subparts that one U+FFFD replaces. */
    static const struct {
        const char *s;
        size_t n, bad;
    } b[] = {
        {"\x80", 1, 1},         {"\xff\x80", 2, 1},     {"\xc3", 1, 1},     {"\xc3\xa9", 1, 1},
        {"\xe2\x82", 2, 2},     {"\xe2\x82z", 3, 2},    {"\xe0\x80\x80", 3, 1}, {"\xed\xa0\x80", 3, 1},
        {"\xf0\x9f\x98", 3, 3}, {"\xf0\x9f\x98\x80", 3, 3}, {"\xf4\x90\x80\x80", 4, 1}, {"", 0, 0},
    };
    for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
        assert_int_equal(pfs_utf8_bad(b[i].s, b[i].n), b[i].bad);
}

/* A shell-word splitter for what pfs_cmdline_join writes (bare words, '...',
 * \x outside quotes, $'\xNN'), written from the shell's rules. */
static int split_words(const char *s, char words[][128], int max)
{
    int n = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        if (n == max)
            return -1;
        char *w = words[n++];
        size_t k = 0;
        while (*s && *s != ' ') {
            if (*s == '\'') {
                for (s++; *s && *s != '\''; s++)
                    w[k++] = *s;
                if (*s++ != '\'')
                    return -1;
            } else if (s[0] == '$' && s[1] == '\'') {
                unsigned v;
                if (sscanf(s, "$'\\x%2x'", &v) != 1 || s[6] != '\'')
                    return -1;
                w[k++] = (char)v;
                s += 7;
            } else if (*s == '\\') {
                w[k++] = s[1];
                s += 2;
            } else {
                if (strchr("\"$`*?[]#~&;|<>(){}!\t\n", *s))
                    return -1; /* would be special to a shell: must never appear bare */
                w[k++] = *s++;
            }
        }
        w[k] = '\0';
    }
    return n;
}

static void test_cmdline_join(void **state)
{
    (void)state;
    static const struct {
        const char *argv[6];
        int argc;
        const char *want;
    } t[] = {
        {{"pfsbench", "-d", "/tmp/x", "-t", "1m"}, 5, "pfsbench -d /tmp/x -t 1m"},
        {{"pfsbench", "--label", "a b"}, 3, "pfsbench --label 'a b'"},
        {{"pfsbench", "--label", "it's"}, 3, "pfsbench --label 'it'\\''s'"},
        {{"pfsbench", "--label", "", "x"}, 4, "pfsbench --label '' x"},
        {{"'", "''"}, 2, "\\' \\'\\'"},
        {{"a\nb", "\xff"}, 2, "'a'$'\\x0a''b' $'\\xff'"},
        {{"$HOME", "*", "a;b", "x\"y", "~", "-d=/p q"}, 6, "'$HOME' '*' 'a;b' 'x\"y' '~' '-d=/p q'"},
        {{"caf\xc3\xa9", "\x1b[31m"}, 2, "'caf\xc3\xa9' $'\\x1b''[31m'"},
        {{"\xc2\x9b" "x", "\xe2\x82"}, 2, "$'\\xc2'$'\\x9b''x' $'\\xe2'$'\\x82'"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char out[512], words[8][128];
        size_t n = pfs_cmdline_join(t[i].argc, (char **)t[i].argv, out, sizeof(out));
        assert_int_equal(n, strlen(out));
        assert_string_equal(out, t[i].want);
        assert_true(utf8_valid(out, n));
        assert_true(terminal_safe(out, n, 0));
        assert_int_equal(split_words(out, words, 8), t[i].argc);
        for (int a = 0; a < t[i].argc; a++)
            assert_string_equal(words[a], t[i].argv[a]);
    }
}

/* Every single byte, and pairs, survive the round trip. */
static void test_cmdline_all_bytes(void **state)
{
    (void)state;
    for (int a = 1; a < 256; a++)
        for (int b = 0; b < 256; b += 3) {
            char w[3] = {(char)a, (char)b, 0}, out[64], words[2][128];
            char *argv[] = {w};
            size_t n = pfs_cmdline_join(1, argv, out, sizeof(out));
            assert_true(n < sizeof(out) && utf8_valid(out, n) && terminal_safe(out, n, 0));
            assert_int_equal(split_words(out, words, 2), 1);
            assert_string_equal(words[0], w);
        }
}

/* A line too long for the buffer is cut after its last whole word. */
static void test_cmdline_cut(void **state)
{
    (void)state;
    char *argv[] = {"pfsbench", "--label", "a b c", "-d", "/x"};
    char full[64], out[64];
    size_t need = pfs_cmdline_join(5, argv, full, sizeof(full));
    assert_string_equal(full, "pfsbench --label 'a b c' -d /x");
    for (size_t len = 1; len <= need + 1; len++) {
        assert_int_equal(pfs_cmdline_join(5, argv, out, len), need);
        /* Each prefix needs its length plus the NUL. */
        const char *want = len > need ? full
                         : len > 27   ? "pfsbench --label 'a b c' -d"
                         : len > 24   ? "pfsbench --label 'a b c'"
                         : len > 16   ? "pfsbench --label"
                         : len > 8    ? "pfsbench"
                                      : "";
        assert_string_equal(out, want);
    }
    assert_int_equal(pfs_cmdline_join(0, argv, out, sizeof(out)), 0);
    assert_string_equal(out, "");
}

/* ---- what the file system is ---- */

/* Sample mountinfo lines (real shapes: a GlusterFS FUSE client, Lustre,
 * NFS 4, GPFS, a tmpfs and a mount point with a space), into a temp file. */
static const char *sample_mountinfo =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
    "25 22 0:21 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=4096k\n"
    "30 22 0:40 / /mnt/gl rw,relatime shared:12 - fuse.glusterfs 127.0.0.1:/pfsvol "
    "rw,user_id=0,group_id=0,default_permissions,allow_other,max_read=131072\n"
    "31 22 0:41 / /mnt/g rw,relatime - ext4 /dev/sdb1 rw\n"
    "32 22 0:42 / /lustre/scratch rw,flock shared:20 master:3 - lustre 10.0.0.1@o2ib:/scratch rw,flock,lazystatfs\n"
    "33 22 0:43 / /home rw,relatime - nfs4 nfs1:/export/home rw,vers=4.2,rsize=1048576,wsize=1048576,proto=tcp\n"
    "34 22 0:44 / /gpfs/fs1 rw,relatime - gpfs fs1 rw\n"
    "35 22 0:45 / /mnt/with\\040space rw - beegfs beegfs_nodev rw,cfgFile=/etc/beegfs/beegfs-client.conf\n"
    "36 30 0:46 / /mnt/gl rw,relatime - fuse.glusterfs 127.0.0.1:/second rw,user_id=0\n"
    "garbage line without the separator\n";

static void test_mountinfo_parse(void **state)
{
    (void)state;
    char mp[64], type[32], src[64], opt[128];
    assert_int_equal(pfs_mountinfo_parse("30 22 0:40 / /mnt/gl rw,relatime shared:12 - fuse.glusterfs 127.0.0.1:/pfsvol "
                                         "rw,user_id=0,default_permissions",
                                         mp, sizeof(mp), type, sizeof(type), src, sizeof(src), opt, sizeof(opt)),
                     0);
    assert_string_equal(mp, "/mnt/gl");
    assert_string_equal(type, "fuse.glusterfs");
    assert_string_equal(src, "127.0.0.1:/pfsvol");
    /* the mount's options, then the super block's not already there */
    assert_string_equal(opt, "rw,relatime,user_id=0,default_permissions");
    /* escaped space, tab, backslash; no optional fields */
    assert_int_equal(pfs_mountinfo_parse("35 22 0:45 / /a\\040b\\011c\\134d rw - beegfs x\\040y rw", mp, sizeof(mp),
                                         type, sizeof(type), src, sizeof(src), opt, sizeof(opt)),
                     0);
    assert_string_equal(mp, "/a b\tc\\d");
    assert_string_equal(src, "x y");
    assert_string_equal(opt, "rw");
    /* no super options at all */
    assert_int_equal(pfs_mountinfo_parse("1 0 0:1 / /x rw - tmpfs none", mp, sizeof(mp), type, sizeof(type), src,
                                         sizeof(src), opt, sizeof(opt)),
                     0);
    assert_string_equal(src, "none");
    /* not mountinfo */
    const char *bad[] = {"", "garbage", "1 2 3 4 5 6 7 8", "1 0 0:1 / /x rw -", "1 0 0:1 / /x rw - tmpfs",
                         "1 0 0:1 / rel rw - tmpfs none rw"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(pfs_mountinfo_parse(bad[i], mp, sizeof(mp), type, sizeof(type), src, sizeof(src), opt,
                                             sizeof(opt)),
                         -1);
    /* a buffer too small cuts, never overruns */
    char tiny[4];
    assert_int_equal(pfs_mountinfo_parse("1 0 0:1 / /mnt/long rw - fuse.glusterfs h:/v rw", tiny, sizeof(tiny), tiny,
                                         sizeof(tiny), tiny, sizeof(tiny), tiny, sizeof(tiny)),
                     0);
    assert_true(strlen(tiny) < sizeof(tiny));
}

static void test_mountinfo_lookup(void **state)
{
    (void)state;
    char path[] = "/tmp/pfs-mountinfo.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(sample_mountinfo, f);
    fclose(f);
    /* Directories that do not exist resolve through their nearest
     * existing ancestor ("/"), and the textual path picks the mount. */
    static const struct {
        const char *dir, *type, *source, *mp;
    } cases[] = {
        {"/mnt/gl/x/y", "fuse.glusterfs", "127.0.0.1:/second", "/mnt/gl"}, /* the later of two on /mnt/gl */
        {"/mnt/gl", "fuse.glusterfs", "127.0.0.1:/second", "/mnt/gl"},
        {"/mnt/g/x", "ext4", "/dev/sdb1", "/mnt/g"},                       /* /mnt/g is not a prefix of /mnt/gl */
        {"/mnt/glx", "ext4", "/dev/sda1", "/"},
        {"/lustre/scratch/u/run", "lustre", "10.0.0.1@o2ib:/scratch", "/lustre/scratch"},
        {"/home/u", "nfs4", "nfs1:/export/home", "/home"},
        {"/gpfs/fs1/x", "gpfs", "fs1", "/gpfs/fs1"},
        {"/mnt/with space/d", "beegfs", "beegfs_nodev", "/mnt/with space"},
        {"/usr/local/nowhere", "ext4", "/dev/sda1", "/"},
    };
    struct pfs_fsinfo fi;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(pfs_fs_mountinfo(path, cases[i].dir, &fi), 0);
        assert_string_equal(fi.mount_type, cases[i].type);
        assert_string_equal(fi.source, cases[i].source);
        assert_string_equal(fi.mount_point, cases[i].mp);
        assert_string_equal(fi.layout, "");
    }
    assert_int_equal(pfs_fs_mountinfo(path, "/lustre/scratch", &fi), 0);
    assert_string_equal(fi.options, "rw,flock,lazystatfs");
    assert_int_equal(pfs_fs_mountinfo(path, "/home", &fi), 0);
    assert_string_equal(fi.options, "rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,proto=tcp");
    /* A real directory resolves through realpath: /tmp's own mount here. */
    assert_int_equal(pfs_fs_mountinfo(path, "/tmp/../tmp/.", &fi), 0);
    assert_string_equal(fi.mount_point, "/tmp");
    assert_true(fi.block_size > 0);
    /* No such mountinfo file, or one with no mount that holds the path. */
    assert_int_equal(pfs_fs_mountinfo("/nonexistent/mountinfo", "/tmp", &fi), -1);
    assert_string_equal(fi.mount_type, "");
    f = fopen(path, "w");
    fputs("25 22 0:21 / /tmp rw - tmpfs tmpfs rw\n", f);
    fclose(f);
    assert_int_equal(pfs_fs_mountinfo(path, "/usr", &fi), -1);
    assert_string_equal(fi.source, "");
    unlink(path);
    /* The live table: this process's / is somewhere in it. */
    assert_int_equal(pfs_fs_describe("/", &fi), 0);
    assert_string_equal(fi.mount_point, "/");
    assert_true(fi.mount_type[0] != '\0');
}

static void test_layout_parse(void **state)
{
    (void)state;
    char b[128];
    pfs_lustre_layout("stripe_count:  4 stripe_size:   1048576 \n", b, sizeof(b));
    assert_string_equal(b, "stripe_count=4 stripe_size=1048576");
    pfs_lustre_layout("lmm_stripe_count:  -1\nlmm_stripe_size:   4194304\n", b, sizeof(b));
    assert_string_equal(b, "stripe_count=-1 stripe_size=4194304");
    pfs_lustre_layout("8\n2097152\n", b, sizeof(b));
    assert_string_equal(b, "stripe_count=8 stripe_size=2097152");
    const char *not_lustre[] = {"", "error: not on a Lustre file system\n", "8\n", "stripe_count: 4\n"};
    for (size_t i = 0; i < sizeof(not_lustre) / sizeof(not_lustre[0]); i++) {
        pfs_lustre_layout(not_lustre[i], b, sizeof(b));
        assert_string_equal(b, "");
    }
    pfs_beegfs_layout("Entry type: directory\nEntryID: root\nMetadata node: meta01 [ID: 1]\n"
                      "Stripe pattern details:\n+ Type: RAID0\n+ Chunksize: 512K\n"
                      "+ Number of storage targets: desired: 4\n+ Storage Pool: 1 (Default)\n",
                      b, sizeof(b));
    assert_string_equal(b, "chunk_size=524288 storage_targets=4");
    pfs_beegfs_layout("+ Chunksize: 1M\n", b, sizeof(b));
    assert_string_equal(b, "chunk_size=1048576");
    pfs_beegfs_layout("Error: not a BeeGFS path\n", b, sizeof(b));
    assert_string_equal(b, "");
    pfs_beegfs_layout("+ Chunksize: lots\n", b, sizeof(b));
    assert_string_equal(b, "");
    /* CephFS, as ceph-fuse 16.2 gave them here (.json inherited, plain set). */
    pfs_ceph_layout("{\"stripe_unit\": 4194304, \"stripe_count\": 1, \"object_size\": 4194304, \"pool_name\": "
                    "\"cephfs_data\", \"pool_id\": 2, \"pool_namespace\": \"\", \"inheritance\": \"@default\"}",
                    b, sizeof(b));
    assert_string_equal(b, "stripe_unit=4194304 stripe_count=1 object_size=4194304 pool=cephfs_data");
    pfs_ceph_layout("stripe_unit=1048576 stripe_count=4 object_size=8388608 pool=fast pool_namespace=ns", b, sizeof(b));
    assert_string_equal(b, "stripe_unit=1048576 stripe_count=4 object_size=8388608 pool=fast");
    pfs_ceph_layout("stripe_unit=65536 stripe_count=2 object_size=4194304", b, sizeof(b));
    assert_string_equal(b, "stripe_unit=65536 stripe_count=2 object_size=4194304");
    const char *not_ceph[] = {"", "stripe_unit=4194304 stripe_count=1", "{\"stripe_unit\": \"x\"}",
                              "my_stripe_unit=1 stripe_count=1 object_size=1"};
    for (size_t i = 0; i < sizeof(not_ceph) / sizeof(not_ceph[0]); i++) {
        pfs_ceph_layout(not_ceph[i], b, sizeof(b));
        assert_string_equal(b, "");
    }
}

static void test_meta_cache_warning(void **state)
{
    (void)state;
    char w[512];
    const int md[] = {PFS_PH_CREATE, PFS_PH_STAT, PFS_PH_READFILES, PFS_PH_DELETE};
    assert_int_equal(pfs_meta_cache_warning(md, 4, 0, "fuse.glusterfs", NULL, w, sizeof(w)), 1);
    assert_non_null(strstr(w, "stat and read-files rates may be cache hits of this client"));
    assert_non_null(strstr(w, "fuse.glusterfs client"));
    assert_non_null(strstr(w, "(-C reads on another node's client)"));
    assert_non_null(strstr(w, "FUSE keeps attributes and entries 1 s"));
    /* -a cephfs on a ceph-fuse directory: libcephfs's caches, no FUSE remark */
    assert_int_equal(pfs_meta_cache_warning(md, 4, 0, "fuse.ceph-fuse", "libcephfs", w, sizeof(w)), 1);
    assert_non_null(strstr(w, "created through the same libcephfs client"));
    assert_null(strstr(w, "FUSE"));
    /* Lustre: the same, without the FUSE remark */
    assert_int_equal(pfs_meta_cache_warning(md, 4, 0, "lustre", NULL, w, sizeof(w)), 1);
    assert_null(strstr(w, "FUSE"));
    /* -C across nodes: another client answers */
    assert_int_equal(pfs_meta_cache_warning(md, 4, 1, "fuse.glusterfs", NULL, w, sizeof(w)), 0);
    assert_string_equal(w, "");
    /* local disk and memory: nothing another client could do differently */
    assert_int_equal(pfs_meta_cache_warning(md, 4, 0, "ext4", NULL, w, sizeof(w)), 0);
    assert_int_equal(pfs_meta_cache_warning(md, 4, 0, "tmpfs", NULL, w, sizeof(w)), 0);
    /* not known: not guessed */
    assert_int_equal(pfs_meta_cache_warning(md, 4, 0, "", NULL, w, sizeof(w)), 0);
    assert_int_equal(pfs_meta_cache_warning(md, 4, 0, NULL, NULL, w, sizeof(w)), 0);
    /* one of the two, and which */
    const int only_stat[] = {PFS_PH_CREATE, PFS_PH_STAT, PFS_PH_DELETE};
    assert_int_equal(pfs_meta_cache_warning(only_stat, 3, 0, "nfs4", NULL, w, sizeof(w)), 1);
    assert_true(strncmp(w, "stat rates may be", 17) == 0);
    const int only_read[] = {PFS_PH_WRITE, PFS_PH_CREATE, PFS_PH_READFILES};
    assert_int_equal(pfs_meta_cache_warning(only_read, 3, 0, "gpfs", NULL, w, sizeof(w)), 1);
    assert_true(strncmp(w, "read-files rates may be", 23) == 0);
    assert_non_null(strstr(w, "page caches"));
    /* no create before them, or no stat/read-files, or data phases only */
    const int before[] = {PFS_PH_STAT, PFS_PH_READFILES, PFS_PH_CREATE, PFS_PH_DELETE};
    assert_int_equal(pfs_meta_cache_warning(before, 4, 0, "lustre", NULL, w, sizeof(w)), 0);
    const int cd[] = {PFS_PH_CREATE, PFS_PH_DELETE};
    assert_int_equal(pfs_meta_cache_warning(cd, 2, 0, "lustre", NULL, w, sizeof(w)), 0);
    const int data[] = {PFS_PH_WRITE, PFS_PH_READ};
    assert_int_equal(pfs_meta_cache_warning(data, 2, 0, "lustre", NULL, w, sizeof(w)), 0);
    assert_int_equal(pfs_meta_cache_warning(md, 0, 0, "lustre", NULL, w, sizeof(w)), 0);
    /* a short buffer: cut, terminated */
    char tiny[8];
    assert_int_equal(pfs_meta_cache_warning(md, 4, 0, "lustre", NULL, tiny, sizeof(tiny)), 1);
    assert_string_equal(tiny, "stat an");
}

static void fill_fs(struct fixture *f)
{
    snprintf(f->d.fstype, sizeof(f->d.fstype), "fuse");
    snprintf(f->d.fs.mount_type, sizeof(f->d.fs.mount_type), "fuse.glusterfs");
    snprintf(f->d.fs.source, sizeof(f->d.fs.source), "127.0.0.1:/pfsvol");
    snprintf(f->d.fs.mount_point, sizeof(f->d.fs.mount_point), "/scratch");
    snprintf(f->d.fs.options, sizeof(f->d.fs.options), "rw,relatime,user_id=0,allow_other");
    f->d.fs.block_size = 131072;
}

static void test_fs_in_report(void **state)
{
    struct fixture *f = *state;
    fill_fs(f);
    char *s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "target       /scratch/x (fuse.glusterfs, 127.0.0.1:/pfsvol)\n"));
    assert_null(strstr(s, "fs layout"));
    free(s);
    snprintf(f->d.fs.layout, sizeof(f->d.fs.layout), "stripe_count=4 stripe_size=1048576");
    snprintf(f->d.fs.mount_type, sizeof(f->d.fs.mount_type), "lustre");
    snprintf(f->d.fs.source, sizeof(f->d.fs.source), "mgs@tcp:/x\x1b");
    s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "target       /scratch/x (lustre, mgs@tcp:/x\\x1b)\nfs layout    stripe_count=4 "
                              "stripe_size=1048576\n"));
    free(s);
    /* A memory file system's source is only a name: not shown. */
    snprintf(f->d.fs.mount_type, sizeof(f->d.fs.mount_type), "tmpfs");
    snprintf(f->d.fs.source, sizeof(f->d.fs.source), "tmpfs");
    f->d.fs.layout[0] = '\0';
    s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "target       /scratch/x (tmpfs)\n"));
    free(s);

    fill_fs(f);
    s = render(f, pfs_report_json);
    assert_true(json_parses(s, strlen(s)));
    assert_non_null(strstr(s, "\"fs_type\": \"fuse\""));
    assert_non_null(strstr(s, "\"fs_mount_type\": \"fuse.glusterfs\""));
    assert_non_null(strstr(s, "\"fs_source\": \"127.0.0.1:/pfsvol\""));
    assert_non_null(strstr(s, "\"fs_mount_point\": \"/scratch\""));
    assert_non_null(strstr(s, "\"fs_options\": \"rw,relatime,user_id=0,allow_other\""));
    assert_non_null(strstr(s, "\"fs_layout\": \"\""));
    assert_non_null(strstr(s, "\"fs_block_size\": 131072"));
    free(s);
    s = render(f, pfs_report_csv);
    /* The latency columns come after fs_layout, so older readers keep their indices. */
    assert_non_null(strstr(s, ",stonewall_bandwidth_bytes_per_s,fs_type,fs_mount_type,fs_source,fs_options,fs_layout,"
                              "iops,"));
    assert_non_null(strstr(s, ",fuse,fuse.glusterfs,127.0.0.1:/pfsvol,\"rw,relatime,user_id=0,allow_other\",,"));
    free(s);
}

/* ---- latency, IOPS and CPU ---- */

/* Latency of phase 0 (write), repetition 0, and nothing elsewhere: 1000
 * transfers at 100 us and 10 at 5 ms (node 1 has the slow ones), 4 opens at
 * 20 us and 4 closes at 30 us, no fsync. Every stream used 0.5 s user and
 * 0.25 s system CPU in its 2 s phase: (4 x 0.75) / (2 s x 4) = 37.5 %. */
struct lat_fixture {
    struct pfs_phase_lat lat[4]; /* 2 phases x 2 reps */
    struct pfs_hist run[PFS_LAT_KINDS];
    struct pfs_hist node_op[2];
    struct pfs_exemplar ex[2];
};

static struct lat_fixture *lat_fill(struct fixture *f, uint64_t fsync_ns)
{
    struct lat_fixture *lf = calloc(1, sizeof(*lf));
    struct pfs_phase_lat *l = &lf->lat[0];
    l->run = lf->run;
    for (int k = 0; k < PFS_LAT_KINDS; k++)
        pfs_hist_reset(&l->run[k]);
    pfs_hist_reset(&lf->node_op[0]);
    pfs_hist_reset(&lf->node_op[1]);
    for (int i = 0; i < 1000; i++) {
        pfs_hist_add(&l->run[PFS_LAT_OP], 100000);
        pfs_hist_add(&lf->node_op[i % 2], 100000);
    }
    for (int i = 0; i < 10; i++) {
        pfs_hist_add(&l->run[PFS_LAT_OP], 5000000);
        pfs_hist_add(&lf->node_op[1], 5000000);
    }
    for (int i = 0; i < 4; i++) {
        pfs_hist_add(&l->run[PFS_LAT_OPEN], 20000);
        pfs_hist_add(&l->run[PFS_LAT_CLOSE], 30000);
        if (fsync_ns)
            pfs_hist_add(&l->run[PFS_LAT_FSYNC], fsync_ns);
    }
    l->valid = 1;
    l->nnodes = 2;
    l->node_op = lf->node_op;
    /* The two slowest: a write of rank 1 at 1.5 s, then rank 0's close. */
    lf->ex[0] = (struct pfs_exemplar){.dur_ns = 5000000, .start_ns = 1500000000, .offset = 8192, .length = 4096,
                                      .op = PFS_LAT_OP, .rank = 1, .thread = 0, .host = 0, .file = 1, .target = -1};
    lf->ex[1] = (struct pfs_exemplar){.dur_ns = 30000, .start_ns = 2000000, .op = PFS_LAT_CLOSE, .rank = 0,
                                      .file = 0, .target = -1};
    l->ex = lf->ex;
    l->nex = 2;
    for (int r = 0; r < 4; r++) {
        f->times[r].cpu_user = 0.5;
        f->times[r].cpu_sys = 0.25;
        f->times[r].xfers = 250; /* 1000 ops in 2 s: 500 IOPS */
    }
    f->d.lat = lf->lat;
    return lf;
}

/* The merged latency table's row of phase p, kind op (default), or a
 * repetition's row in the -v table (rep >= 0); NULL when absent. */
static const char *lat_row(const char *s, const char *phase, int rep, const char *op)
{
    const char *t = strstr(s, rep < 0 ? "\nlatency    op " : "\nlatency per repetition");
    char want[64];
    if (rep < 0)
        snprintf(want, sizeof(want), "\n%-10s %-10s ", phase, op);
    else
        snprintf(want, sizeof(want), "\n%-10s %3d %-10s ", phase, rep, op);
    const char *end = t && rep < 0 ? strstr(t + 1, "\n\n") : NULL; /* the merged table ends at a blank line */
    const char *r = t ? strstr(t, want) : NULL;
    return r && (!end || r < end) ? r : NULL;
}

static int max_line_width(const char *s)
{
    int w = 0, cur = 0;
    for (; *s; s++) {
        cur = *s == '\n' ? 0 : cur + 1;
        w = cur > w ? cur : w;
    }
    return w;
}

static void test_latency_text(void **state)
{
    struct fixture *f = *state;
    char *s = render(f, pfs_report_latency);
    assert_string_equal(s, ""); /* nothing recorded: no table */
    free(s);
    /* write's repetitions 0 and 1 recorded the same operations: merged, 2020 */
    struct lat_fixture *lf = lat_fill(f, 0);
    lf->lat[1] = lf->lat[0];
    s = render(f, pfs_report_latency);
    assert_non_null(strstr(s, "\nlatency    op             count     min     p50     p90     p99   p99.9     max\n"));
    const char *r = lat_row(s, "write", -1, "write");
    assert_non_null(r);
    char phase[16], op[16], unit[8];
    int rep;
    unsigned long long count;
    double mn, p50, p90, p99, p999, mx, cpu;
    assert_int_equal(sscanf(r + 1, "%15s %15s %llu %lf %lf %lf %lf %lf %lf %7s", phase, op, &count, &mn, &p50, &p90,
                            &p99, &p999, &mx, unit),
                     10);
    assert_int_equal(count, 2020);
    assert_string_equal(unit, "us");
    assert_true(fabs(p50 - 100.0) <= 100.0 / 128 + 0.05);
    assert_true(fabs(p99 - 100.0) <= 100.0 / 128 + 0.05); /* rank 2000 of 2020 is still 100 us */
    assert_true(fabs(p999 - 5000.0) <= 5000.0 / 128 + 0.05);
    assert_float_equal(mn, 100.0, 0.05);
    assert_float_equal(mx, 5000.0, 0.05);
    /* without -v: the phase's own operation only, no repetition, no node */
    assert_null(lat_row(s, "write", -1, "open"));
    assert_null(lat_row(s, "read", -1, "read")); /* not recorded */
    assert_null(strstr(s, "latency per repetition"));
    assert_null(strstr(s, "slowest node"));
    assert_true(max_line_width(s) <= 100);
    free(s);
    /* -v: open and close merged, each repetition's rows, %CPU, the slowest node */
    f->cfg.verbose = 1;
    s = render(f, pfs_report_latency);
    r = lat_row(s, "write", -1, "open");
    assert_non_null(r);
    assert_int_equal(sscanf(r + 1, "%15s %15s %llu %lf %lf %lf %lf %lf %lf %7s", phase, op, &count, &mn, &p50, &p90,
                            &p99, &p999, &mx, unit),
                     10);
    assert_int_equal(count, 8);
    assert_float_equal(p50, 20.0, 20.0 / 128 + 0.05);
    assert_non_null(lat_row(s, "write", -1, "close"));
    assert_null(lat_row(s, "write", -1, "fsync")); /* no counts, no row */
    r = lat_row(s, "write", 0, "write");
    assert_non_null(r);
    assert_int_equal(sscanf(r + 1, "%15s %d %15s %llu %lf %lf %lf %lf %lf %lf %7s %lf", phase, &rep, op, &count, &mn,
                            &p50, &p90, &p99, &p999, &mx, unit, &cpu),
                     12);
    assert_int_equal(count, 1010);
    assert_string_equal(unit, "us");
    assert_float_equal(cpu, 37.5, 0.05);
    assert_non_null(lat_row(s, "write", 1, "write"));
    assert_non_null(lat_row(s, "write", 0, "open"));
    assert_non_null(strstr(s, "slowest node p99 5.00 ms: node 1 (node2); CPU user 2.000 s, sys 1.000 s\n"));
    /* -v: the exemplars' table, slowest first */
    const char *ex = strstr(s, "\nslowest operations of each repetition, job-wide (--exemplars ");
    assert_non_null(ex);
    const char *ew = strstr(ex, "\nwrite        0    1 ");
    const char *ec = strstr(ex, "\nwrite        0    0 ");
    assert_non_null(ew);
    assert_non_null(ec);
    assert_true(ew < ec);
    assert_non_null(strstr(ew, "   0 write     1          8192     4096 "));
    assert_non_null(strstr(ew, "      5000.0   -\n")); /* no storage target in the fixture */
    assert_non_null(strstr(ec, "   0 close     0             0        0 "));
    if (max_line_width(s) > 100)
        fputs(s, stderr);
    assert_true(max_line_width(s) <= 100);
    free(s);
    /* Each row in its own unit: an fsync of 200 ms in ms, a write of 100 us
     * still in us (one table-wide unit printed it 0.10 ms), 2 s in s. */
    free(lf);
    static const struct {
        uint64_t ns;
        double p50;
        const char *unit;
    } cases[] = {{200000000, 200.0, "ms"}, {2000000000, 2.0, "s"}, {900, 0.9, "us"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        lf = lat_fill(f, cases[i].ns);
        s = render(f, pfs_report_latency);
        r = lat_row(s, "write", -1, "fsync");
        assert_non_null(r);
        assert_int_equal(sscanf(r + 1, "%15s %15s %llu %lf %lf %lf %lf %lf %lf %7s", phase, op, &count, &mn, &p50,
                                &p90, &p99, &p999, &mx, unit),
                         10);
        assert_int_equal(count, 4);
        assert_true(fabs(p50 - cases[i].p50) <= cases[i].p50 / 128 + 0.005);
        assert_string_equal(unit, cases[i].unit);
        r = lat_row(s, "write", -1, "write");
        assert_int_equal(sscanf(r + 1, "%15s %15s %llu %lf %lf %lf %lf %lf %lf %7s", phase, op, &count, &mn, &p50,
                                &p90, &p99, &p999, &mx, unit),
                         10);
        assert_true(fabs(p50 - 100.0) <= 100.0 / 128 + 0.05);
        assert_string_equal(unit, "us");
        assert_true(max_line_width(s) <= 100);
        free(s);
        free(lf);
    }
    f->d.lat = NULL;
    f->cfg.verbose = 0;
    /* The end of the report: the latency table, then the summary, last;
     * -q: the summary alone. */
    lf = lat_fill(f, 0);
    s = render(f, pfs_report_end);
    const char *lt = strstr(s, "\nlatency    op "), *sm = strstr(s, "\nsummary over repetitions");
    assert_non_null(lt);
    assert_non_null(sm);
    assert_true(lt < sm);
    assert_null(strstr(sm, "\nlatency"));
    free(s);
    f->cfg.quiet = 1;
    s = render(f, pfs_report_end);
    assert_true(strncmp(s, "summary over repetitions", 24) == 0);
    assert_null(strstr(s, "latency"));
    free(s);
    free(lf);
}

static void test_latency_json(void **state)
{
    struct fixture *f = *state;
    struct lat_fixture *lf = lat_fill(f, 0);
    char *s = render(f, pfs_report_json);
    assert_true(json_parses(s, strlen(s)));
    const char *w = strstr(s, "{\"rep\": 0");
    assert_non_null(w);
    assert_non_null(strstr(w, "\"iops\": 500, \"cpu_percent\": 37.5, \"cpu_user_s\": 2, \"cpu_sys_s\": 1"));
    const char *op = strstr(w, "\"latency\": {\"op\": {\"count\": 1010, \"min_ns\": 100000, \"p50_ns\": ");
    assert_non_null(op);
    double p50 = strtod(op + strlen("\"latency\": {\"op\": {\"count\": 1010, \"min_ns\": 100000, \"p50_ns\": "), NULL);
    assert_true(fabs(p50 - 1e5) <= 1e5 / 128);
    const char *p999 = strstr(op, "\"p999_ns\": ");
    assert_true(fabs(strtod(p999 + 11, NULL) - 5e6) <= 5e6 / 128);
    assert_non_null(strstr(op, "\"max_ns\": 5000000, \"mean_ns\": "));
    assert_non_null(strstr(op, "\"fsync\": {\"count\": 0, \"min_ns\": 0,"));
    assert_non_null(strstr(op, "\"slowest_node_p99_ns\": 5000000, \"slowest_node\": 1, \"exemplars\": [{\"rep\": 0, "
                               "\"rank\": 1, \"host\": "));
    assert_non_null(strstr(op, "\"thread\": 0, \"op\": \"write\", \"file\": 1, \"offset\": 8192, \"length\": 4096, "
                               "\"target\": -1, \"target_name\": \"\", \"start\": 1.5, \"duration_ns\": 5000000}, "
                               "{\"rep\": 0, \"rank\": 0, "));
    assert_non_null(strstr(op, "\"op\": \"close\", \"file\": 0, \"offset\": 0, \"length\": 0, \"target\": -1, "
                               "\"target_name\": \"\", \"start\": 0.002, \"duration_ns\": 30000}], \"targets\": null, \"nodes\""));
    /* Repetition 1 recorded none: null, not zeros. */
    const char *r1 = strstr(w + 1, "{\"rep\": 1");
    assert_non_null(r1);
    assert_non_null(strstr(r1, "\"latency\": null, \"slowest_node_p99_ns\": null, \"slowest_node\": null, "
                               "\"exemplars\": null"));
    free(s);
    free(lf);
}

/* Splits CSV line s into at most max fields (a quoted field's quotes
 * dropped, "" read as "; no newline inside a field); more fail the test. */
#define CSV_MAX 256
static int csv_fields(const char *s, char out[][48], int max)
{
    int n = 0, q = 0;
    size_t i = 0;
    out[0][0] = '\0';
    for (; *s && *s != '\n' && n < max; s++) {
        if (*s == '"') {
            if (q && s[1] == '"') {
                if (i + 1 < 48)
                    out[n][i++] = '"';
                s++;
            } else {
                q = !q;
            }
            continue;
        }
        if (*s == ',' && !q) {
            out[n][i] = '\0';
            if (++n == max)
                fail_msg("a CSV line of more than %d fields", max);
            i = 0;
            continue;
        }
        if (i + 1 < 48)
            out[n][i++] = *s;
    }
    out[n][i] = '\0';
    return n + 1;
}

/* The configuration in JSON and CSV, and what is absent: null in JSON,
 * empty in CSV, never 0; one repetition's stddev n/a / null. */
static void test_config_and_absent(void **state)
{
    struct fixture *f = *state;
    f->d.cmdline = "pfsbench -d /scratch/x -p write,read -e";
    snprintf(f->cfg.label, sizeof(f->cfg.label), "lab");
    char *s = render(f, pfs_report_json);
    assert_true(json_parses(s, strlen(s)));
    assert_non_null(strstr(s, "\"command_line\": \"pfsbench -d /scratch/x -p write,read -e\""));
    assert_non_null(strstr(s, "\"job_file\": null"));
    assert_non_null(strstr(s, "\"job_section\": null"));
    assert_non_null(strstr(s, "\"config\": {\n    \"dir\": \"/scratch/x\""));
    assert_non_null(strstr(s, "\"fsync\": 1"));
    assert_non_null(strstr(s, "\"api\": \"posix\""));
    assert_non_null(strstr(s, "\"iodepth\": 1"));
    assert_non_null(strstr(s, "\"hdf5_chunk\": 0"));
    assert_non_null(strstr(s, "\"layout\": \"segmented\""));
    assert_non_null(strstr(s, "\"straggler\": 0.80000000000000004"));
    assert_non_null(strstr(s, "\"fs_block_size\": null")); /* not known */
    assert_non_null(strstr(s, "\"stonewall_bandwidth_bytes_per_s\": null")); /* no -D */
    assert_null(strstr(s, "\"stonewall_bandwidth_bytes_per_s\": 0"));
    assert_null(strstr(s, "\"stddev\": null")); /* two repetitions */
    free(s);
    s = render(f, pfs_report_csv);
    static char head[CSV_MAX][48], row[CSV_MAX][48];
    int nh = csv_fields(s, head, CSV_MAX);
    assert_int_equal(csv_fields(strchr(s, '\n') + 1, row, CSV_MAX), nh);
    int seen = 0;
    for (int i = 0; i < nh; i++) {
        if (!strcmp(head[i], "stonewall_bandwidth_bytes_per_s"))
            assert_string_equal(row[i], ""), seen++;
        if (!strcmp(head[i], "command_line"))
            assert_string_equal(row[i], "pfsbench -d /scratch/x -p write,read -e"), seen++;
        if (!strcmp(head[i], "job_section"))
            assert_string_equal(row[i], ""), seen++;
        if (!strcmp(head[i], "fsync"))
            assert_string_equal(row[i], "1"), seen++;
        if (!strcmp(head[i], "api"))
            assert_string_equal(row[i], "posix"), seen++;
        if (!strcmp(head[i], "label"))
            assert_string_equal(row[i], "lab"), seen++;
        assert_true(i == 9 || strcmp(head[i], "block")); /* a describe key that is a column already: once */
    }
    assert_int_equal(seen, 6);
    free(s);
    /* One repetition: no spread to give. */
    f->reps_done[0] = f->reps_done[1] = 1;
    s = render(f, pfs_report_summary);
    assert_non_null(strstr(s, "        n/a "));
    free(s);
    s = render(f, pfs_report_json);
    assert_true(json_parses(s, strlen(s)));
    assert_non_null(strstr(s, "\"stddev\": null"));
    free(s);
}

static void test_latency_csv(void **state)
{
    struct fixture *f = *state;
    struct lat_fixture *lf = lat_fill(f, 0);
    char *s = render(f, pfs_report_csv);
    static char head[CSV_MAX][48], row[CSV_MAX][48], row1[CSV_MAX][48];
    int nh = csv_fields(s, head, CSV_MAX);
    const char *l1 = strchr(s, '\n') + 1, *l2 = strchr(l1, '\n') + 1;
    assert_int_equal(csv_fields(l1, row, CSV_MAX), nh);
    assert_int_equal(csv_fields(l2, row1, CSV_MAX), nh);
    /* The old columns keep their places; the new ones are at the end. */
    assert_string_equal(head[23], "fs_layout");
    assert_string_equal(head[24], "iops");
    assert_string_equal(head[37], "cpu_sys_s");
    assert_string_equal(head[38], "start_time");
    int seen = 0;
    for (int i = 24; i < nh; i++) {
        if (!strcmp(head[i], "iops"))
            assert_float_equal(strtod(row[i], NULL), 500.0, 1e-9), seen++;
        if (!strcmp(head[i], "lat_count"))
            assert_string_equal(row[i], "1010"), assert_string_equal(row1[i], ""), seen++;
        if (!strcmp(head[i], "lat_p50_us"))
            assert_true(fabs(strtod(row[i], NULL) - 100.0) <= 100.0 / 128), seen++;
        if (!strcmp(head[i], "lat_p999_us"))
            assert_true(fabs(strtod(row[i], NULL) - 5000.0) <= 5000.0 / 128), seen++;
        if (!strcmp(head[i], "slowest_node"))
            assert_string_equal(row[i], "1"), seen++;
        if (!strcmp(head[i], "cpu_percent"))
            assert_float_equal(strtod(row[i], NULL), 37.5, 1e-9), seen++;
    }
    assert_int_equal(seen, 6);
    free(s);
    free(lf);
}

/* A find phase: its files examined (ops) and matched in the row, the JSON
 * and the CSV's last column; other phases have none. */
static void test_find_matched(void **state)
{
    struct fixture *f = *state;
    f->cfg.phases[0] = PFS_PH_CREATE;
    f->cfg.phases[1] = PFS_PH_FIND;
    f->cfg.nphases = 2;
    f->cfg.file_size = 3901;
    for (int i = 0; i < 2 * 2 * 4; i++)
        f->times[i].xfers = 250, f->times[i].bytes = 0;
    const uint64_t matched[4] = {0, 0, 7, 9}; /* [phase * reps + rep] */
    f->d.find_matched = matched;
    char *s = render(f, row_p1r1);
    assert_non_null(strstr(s, "1000 files examined, 9 matched (name *01*, 3901 bytes, not older than the run's start)\n"));
    free(s);
    s = render(f, row_p0r0);
    assert_null(strstr(s, "matched"));
    free(s);
    s = render(f, pfs_report_json);
    assert_non_null(strstr(s, "\"find_examined\": 1000, \"find_matched\": 7"));
    assert_non_null(strstr(s, "\"find_examined\": 1000, \"find_matched\": 9"));
    assert_int_equal(strstr(strstr(s, "find_matched") + 1, "find_matched") != NULL, 1);
    free(s);
    s = render(f, pfs_report_csv);
    assert_non_null(strstr(s, ",find_matched,cache_method,"));
    assert_non_null(strstr(s, ",7,,,,,,,,,,,,\n"));
    assert_non_null(strstr(s, ",9,,,,,,,,,,,,\n"));
    assert_non_null(strstr(s, "testrun,,complete,create,0,"));
    free(s);
}

/* The --depth tree in the metadata header line; a directory phase's rows in dirs/s. */
static void test_md_tree(void **state)
{
    struct fixture *f = *state;
    f->cfg.phases[0] = PFS_PH_MKDIR;
    f->cfg.phases[1] = PFS_PH_CREATE;
    f->cfg.nphases = 2;
    f->cfg.md_depth = 2;
    f->cfg.md_branch = 3;
    for (int i = 0; i < 2 * 2 * 4; i++)
        f->times[i].xfers = 12, f->times[i].bytes = 0;
    char *s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "one shared directory, sequential order; one tree for all streams, made by stream 0, of "
                              "depth 2, branch 3: 12 directories, files in every directory\n"));
    free(s);
    f->cfg.md_leaf_only = 1;
    s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "12 directories, files in the leaves\n"));
    free(s);
    s = render(f, row_p0r0);
    assert_non_null(strstr(s, "dirs/s"));
    assert_null(strstr(s, "files/s"));
    free(s);
    s = render(f, row_p1r1);
    assert_non_null(strstr(s, "files/s"));
    free(s);
    s = render(f, pfs_report_json);
    assert_non_null(strstr(s, "\"dirs/s\""));
    free(s);
    f->cfg.md_depth = 0;
    s = render(f, pfs_report_header);
    assert_null(strstr(s, "tree"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_md_tree, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_header, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_many_warnings, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_rows, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_short_phase, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_summary, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_summary_ci_warmup, setup, report_fixture_teardown),
        cmocka_unit_test(test_escape_table),
        cmocka_unit_test(test_escape_all_bytes),
        cmocka_unit_test(test_escape_cut),
        cmocka_unit_test_setup_teardown(test_json_nasty, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_csv_nasty, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_text_nasty, setup, report_fixture_teardown),
        cmocka_unit_test(test_utf8_seq),
        cmocka_unit_test(test_cmdline_join),
        cmocka_unit_test(test_cmdline_all_bytes),
        cmocka_unit_test(test_cmdline_cut),
        cmocka_unit_test(test_mountinfo_parse),
        cmocka_unit_test(test_mountinfo_lookup),
        cmocka_unit_test(test_layout_parse),
        cmocka_unit_test(test_meta_cache_warning),
        cmocka_unit_test_setup_teardown(test_fs_in_report, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_latency_text, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_latency_json, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_latency_csv, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_config_and_absent, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_find_matched, setup, report_fixture_teardown),
    };
    return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}

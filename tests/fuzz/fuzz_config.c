/* libFuzzer target for pfsbench's option and size parser (src/core/config.c).
 * Built and run by scripts/fuzz.sh; the committed corpus (tests/fuzz/corpus/)
 * is replayed by tests/mpi/test_fuzz_corpus.sh.
 *
 * Input format: words separated by newline or NUL. The first word is the
 * rank count (decimal, as strtoll reads it, clamped to int; anything else
 * means 1); the remaining words are argv[1..] of pfsbench (a newline at the
 * very end adds no empty word). A corpus file is thus readable:
 *
 *     4
 *     -d
 *     /tmp
 *     --total
 *     64m
 *
 * What is fed: pfs_config_parse on the words, then (when it says RUN)
 * pfs_config_resolve with the rank count and pfs_config_describe into buffers
 * of several sizes, each malloc'd to its exact size so that AddressSanitizer
 * sees any overrun; on every word also pfs_parse_size, pfs_hint_check,
 * pfs_hint_known, pfs_is_leftover_name and pfs_name_parse (whatever it
 * accepts must format back to the same name). Each word is its own allocation,
 * so an overread past a word's NUL is caught too.
 *
 * Besides memory errors and undefined behaviour, the target checks a few
 * promises of include/pfs/config.h and aborts (a finding) when one breaks:
 *  - PFS_PARSE_ERROR comes with a non-empty, NUL-terminated message;
 *  - an accepted configuration has a directory, 1..16 known phases, non-zero
 *    transfer and block, and only hints that pfs_hint_check accepts;
 *  - a resolved configuration has transfer <= block, block a multiple of
 *    transfer, total = block x streams, total inside an off_t with room;
 *  - pfs_config_describe returns the same length whatever the buffer and
 *    never writes past it; the full description fits the 8 KiB buffer the
 *    results writer gives it (src/results/results_h5.c);
 *  - pfs_parse_size agrees with a reference written here (128-bit arithmetic).
 *
 * It also requires every error message to be printable when the input
 * words are: that caught a message that printed an option's internal code
 * as a character (--keep=1, fixed). PFS_FUZZ_STRICT=0 turns that check off.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/config.h"
#include "pfs/names.h"
#include "pfs/units.h"

static void check_name(const char *w);

#define MAX_WORDS 256

static int strict;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *s = getenv("PFS_FUZZ_STRICT");
    strict = !(s && strcmp(s, "0") == 0);
    return 0;
}

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_config: broken promise: %s (line %d)\n", #cond, __LINE__);       \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The documented grammar of a size (pfs/units.h), computed independently:
 * digits, then a unit spelled exactly as one of the list below (built by
 * brute force, every case of every spelling), non-zero, at most INT64_MAX / 2. */
static int ref_unit(const char *u, unsigned __int128 *mult)
{
    static const char *const letters = "kmgt";
    if (!strcmp(u, "") || !strcmp(u, "b") || !strcmp(u, "B")) {
        *mult = 1;
        return 0;
    }
    for (int p = 0; p < 4; p++) {
        unsigned __int128 bin = (unsigned __int128)1 << (10 * (p + 1)), dec = 1;
        for (int k = 0; k <= p; k++)
            dec *= 1000;
        char lo = letters[p], up = (char)(lo - 'a' + 'A');
        char c[3] = {lo, up, 0};
        for (int i = 0; i < 2; i++) {
            char w[8];
            snprintf(w, sizeof(w), "%c", c[i]);
            if (!strcmp(u, w))
                return *mult = bin, 0;
            const char *iforms[] = {"i", "I", "ib", "iB", "Ib", "IB"};
            for (int j = 0; j < 6; j++) {
                snprintf(w, sizeof(w), "%c%s", c[i], iforms[j]);
                if (!strcmp(u, w))
                    return *mult = bin, 0;
            }
        }
        char si[3] = {up, 'B', 0};
        if (!strcmp(u, si) || (p == 0 && !strcmp(u, "kB")))
            return *mult = dec, 0;
    }
    return -1;
}

static int ref_parse_size(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    unsigned __int128 v = 0, mult;
    const unsigned __int128 cap = (unsigned __int128)1 << 80; /* saturate above any limit; x 2^40 still fits */
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (unsigned)(*p - '0');
        if (v > cap)
            v = cap;
    }
    if (ref_unit(p, &mult) != 0 || v == 0)
        return -1;
    v *= mult;
    if (v > (unsigned __int128)(INT64_MAX / 2))
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

/* A message of one or more lines: printable, lines joined by '\n', none empty. */
static int printable_lines(const char *s)
{
    if (!*s || *s == '\n')
        return 0;
    for (; *s; s++)
        if (*s == '\n' ? s[1] == '\n' || !s[1] : (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

static void check_err(const char *err)
{
    REQUIRE(memchr(err, '\0', PFS_ERRLEN) != NULL);
}

/* pfs_config_describe into a heap buffer of exactly len bytes (len 0: a
 * one-byte allocation that must stay untouched). */
static size_t describe_into(const struct pfs_config *cfg, size_t len, size_t want)
{
    char *buf = malloc(len ? len : 1);
    REQUIRE(buf != NULL);
    buf[0] = 'X';
    size_t n = pfs_config_describe(cfg, buf, len);
    if (want != (size_t)-1)
        REQUIRE(n == want);
    if (len == 0)
        REQUIRE(buf[0] == 'X');
    else
        REQUIRE(strlen(buf) == (n < len ? n : len - 1));
    free(buf);
    return n;
}

static void check_config(const struct pfs_config *cfg)
{
    REQUIRE(cfg->dir[0] != '\0');
    REQUIRE(memchr(cfg->dir, '\0', sizeof(cfg->dir)) != NULL);
    REQUIRE(memchr(cfg->results, '\0', sizeof(cfg->results)) != NULL);
    REQUIRE(memchr(cfg->label, '\0', sizeof(cfg->label)) != NULL);
    REQUIRE(memchr(cfg->run_id, '\0', sizeof(cfg->run_id)) != NULL);
    REQUIRE(cfg->nphases >= 1 && cfg->nphases <= PFS_MAX_PHASES);
    for (int i = 0; i < cfg->nphases; i++) {
        REQUIRE(cfg->phases[i] >= 0 && cfg->phases[i] < PFS_PH_KINDS);
        /* A directory phase runs only on a tree, and every tree fits the limit. */
        REQUIRE(!pfs_phase_has(cfg->phases[i], PFS_PHF_DIRS) || cfg->md_depth >= 1);
    }
    REQUIRE(cfg->md_depth >= 0 && cfg->md_depth <= 32 && cfg->md_branch >= 1);
    REQUIRE(pfs_config_tree_dirs(cfg) <= 100000000);
    REQUIRE(cfg->transfer > 0 && cfg->block > 0);
    REQUIRE(cfg->nhints >= 0 && cfg->nhints <= PFS_MAX_HINTS);
    for (int i = 0; i < cfg->nhints; i++) {
        char err[PFS_ERRLEN];
        REQUIRE(memchr(cfg->hints[i], '\0', sizeof(cfg->hints[i])) != NULL);
        REQUIRE(pfs_hint_check(cfg->hints[i], err, sizeof(err)) >= 0);
    }
    REQUIRE(cfg->threads >= 1 && cfg->reps >= 0 && cfg->files >= 1);
    /* -i auto is reps 0: the slots are then warm-up + --max-reps, never 0 */
    REQUIRE(cfg->max_reps >= 2 && cfg->warmup >= 0 && pfs_config_rep_slots(cfg) >= 1);
    REQUIRE(cfg->ci >= 0.1 && cfg->ci <= 100);
}

static void one_word(const char *w)
{
    uint64_t v = 0, r = 0;
    int got = pfs_parse_size(w, &v), want = ref_parse_size(w, &r);
    REQUIRE(got == want);
    if (got == 0) {
        REQUIRE(v == r);
        char buf[32];
        pfs_format_size(v, buf, sizeof(buf));
        REQUIRE(strlen(buf) < sizeof(buf) - 1);
    }
    char err[PFS_ERRLEN];
    err[0] = '\0';
    int h = pfs_hint_check(w, err, sizeof(err));
    REQUIRE(h >= -1 && h <= 1);
    if (h < 0) {
        check_err(err);
        REQUIRE(err[0] != '\0');
    }
    /* A small error buffer must be honoured as well. */
    char tiny[8];
    int h2 = pfs_hint_check(w, tiny, sizeof(tiny));
    REQUIRE(h2 == h);
    REQUIRE(pfs_hint_known(w) == (h != 0));
    int l = pfs_is_leftover_name(w);
    REQUIRE(l == 0 || l == 1);
    if (l)
        REQUIRE(strncmp(w, "pfsbench.", 9) == 0);
    check_name(w);
}

/* A name pfs_name_parse accepts is one a formatter writes, byte for byte. */
static void check_name(const char *w)
{
    struct pfs_name n;
    enum pfs_name_kind k = pfs_name_parse(w, &n);
    char back[PFS_RUN_ID_MAX + 64] = "";
    int rc = -1;
    switch (k) {
    case PFS_NAME_NONE: return;
    case PFS_NAME_DATA: rc = pfs_name_data(back, sizeof(back), NULL, n.run_id, 0, n.stream); break;
    case PFS_NAME_SHARED: rc = pfs_name_data(back, sizeof(back), NULL, n.run_id, 1, -1); break;
    case PFS_NAME_LOCK: rc = pfs_name_lock(back, sizeof(back), NULL, n.run_id); break;
    case PFS_NAME_MD_TOP: rc = pfs_name_md_top(back, sizeof(back), NULL, n.run_id); break;
    case PFS_NAME_MD_SUBDIR: rc = pfs_name_md_subdir(back, sizeof(back), NULL, n.stream); break;
    case PFS_NAME_MD_FILE: rc = pfs_name_md_file(back, sizeof(back), NULL, n.stream, n.index); break;
    }
    REQUIRE(rc == 0);
    REQUIRE(strcmp(back, w) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Split into words, each in its own allocation. */
    char *words[MAX_WORDS + 1];
    int nw = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && nw < MAX_WORDS; i++) {
        if (i == size || data[i] == '\n' || data[i] == '\0') {
            size_t n = i - start;
            if (i == size && n == 0 && size > 0)
                break; /* a final newline ends the last word, it adds no empty one */
            char *w = malloc(n + 1);
            if (!w)
                abort();
            memcpy(w, data + start, n);
            w[n] = '\0';
            words[nw++] = w;
            start = i + 1;
        }
    }
    /* Word 0: the rank count. */
    int nranks = 1;
    if (nw > 0 && words[0][0]) {
        char *end;
        long long v = strtoll(words[0], &end, 10);
        if (end != words[0])
            nranks = v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : (int)v;
    }
    /* argv: "pfsbench" and the other words; getopt permutes this array,
     * so keep the words list for freeing. */
    char prog[] = "pfsbench";
    char *argv[MAX_WORDS + 1];
    int argc = 0;
    argv[argc++] = prog;
    int all_printable = 1;
    for (int i = 1; i < nw; i++) {
        argv[argc++] = words[i];
        all_printable &= printable(words[i]);
    }
    argv[argc] = NULL;

    struct pfs_config *cfg = malloc(sizeof(*cfg));
    char err[PFS_ERRLEN];
    enum pfs_parse_result pr = pfs_config_parse(cfg, argc, argv, err, sizeof(err));
    REQUIRE(pr == PFS_PARSE_RUN || pr == PFS_PARSE_HELP || pr == PFS_PARSE_VERSION || pr == PFS_PARSE_ERROR ||
            pr == PFS_PARSE_LIST_OPTIONS || pr == PFS_PARSE_JOB);
    if (pr == PFS_PARSE_JOB)
        REQUIRE(cfg->job[0] != '\0');
    check_err(err);
    if (pr == PFS_PARSE_ERROR) {
        REQUIRE(err[0] != '\0');
        if (strict && all_printable)
            REQUIRE(printable_lines(err)); /* every bad option is told at once, a line each */
    }
    if (pr == PFS_PARSE_RUN) {
        check_config(cfg);
        REQUIRE(pfs_units_label(cfg->units) != NULL && pfs_units_scale(cfg->units) > 0);
        REQUIRE(pfs_units_label(nranks) != NULL); /* any int picks a unit */
        for (int i = 0; i < cfg->nphases; i++)
            REQUIRE(strcmp(pfs_phase_name(cfg->phases[i]), "?") != 0);
        size_t n = describe_into(cfg, 8192, (size_t)-1);
        REQUIRE(n < 8192);
        describe_into(cfg, 0, n);
        describe_into(cfg, 1, n);
        describe_into(cfg, 7, n);
        describe_into(cfg, 100, n);
        describe_into(cfg, n, n);
        describe_into(cfg, n + 1, n);
        int res = pfs_config_resolve(cfg, nranks, err, sizeof(err));
        REQUIRE(res == 0 || res == -1);
        check_err(err);
        if (res == 0) {
            REQUIRE(nranks >= 1);
            uint64_t streams = (uint64_t)nranks * (uint64_t)cfg->threads;
            REQUIRE(cfg->transfer <= cfg->block);
            REQUIRE(cfg->block % cfg->transfer == 0);
            REQUIRE(cfg->block <= UINT64_MAX / streams && cfg->block * streams == cfg->total);
            REQUIRE(cfg->total <= (uint64_t)INT64_MAX / 2);
            n = describe_into(cfg, 8192, (size_t)-1);
            REQUIRE(n < 8192);
            describe_into(cfg, 16, n);
        } else {
            REQUIRE(err[0] != '\0');
        }
    }
    /* The same parser again on the permuted argv: a second parse must be
     * independent of the first (tests and pfs_main rely on the getopt reset). */
    struct pfs_config *again = malloc(sizeof(*again));
    char err2[PFS_ERRLEN];
    (void)pfs_config_parse(again, argc, argv, err2, sizeof(err2));
    check_err(err2);
    free(again);

    for (int i = 0; i < nw; i++)
        one_word(words[i]);

    free(cfg);
    for (int i = 0; i < nw; i++)
        free(words[i]);
    return 0;
}

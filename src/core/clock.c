/* The TSC clock: checks that the counter can be trusted, calibrates it
 * against CLOCK_MONOTONIC with bracketing reads, and picks the reader once. */
#define _GNU_SOURCE
#include "pfs/clock.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#define PFS_HAVE_TSC 1
#endif

uint64_t pfs_clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_mono(const struct pfs_clock *c)
{
    (void)c;
    return pfs_clock_mono_ns();
}

static void use_mono(struct pfs_clock *c, const char *why)
{
    *c = (struct pfs_clock){.now = now_mono, .src = PFS_CLOCK_MONO};
    snprintf(c->why, sizeof(c->why), "%s", why);
}

int pfs_clock_fit(struct pfs_clock *c, const struct pfs_clock_sample s[3])
{
    if (s[1].tsc <= s[0].tsc || s[2].tsc <= s[1].tsc || s[1].ns <= s[0].ns || s[2].ns <= s[1].ns) {
        snprintf(c->why, sizeof(c->why), "the TSC or CLOCK_MONOTONIC did not advance during the calibration");
        return -1;
    }
    const double n01 = (double)(s[1].ns - s[0].ns), n12 = (double)(s[2].ns - s[1].ns);
    const double n02 = (double)(s[2].ns - s[0].ns);
    const double f1 = n01 / (double)(s[1].tsc - s[0].tsc), f2 = n12 / (double)(s[2].tsc - s[1].tsc);
    const double f = n02 / (double)(s[2].tsc - s[0].tsc);
    /* Each sample's TSC was read within gap/2 of its ns: the bounds follow. */
    const double u1 = 0.5 * (double)(s[0].gap + s[1].gap) / n01, u2 = 0.5 * (double)(s[1].gap + s[2].gap) / n12;
    const double err = 0.5 * (double)(s[0].gap + s[2].gap) / n02;
    const double diff = fabs(f1 - f2) / f;
    if (diff > u1 + u2 + PFS_CLOCK_SLEW_PPM * 1e-6) {
        snprintf(c->why, sizeof(c->why),
                 "the TSC's rate changed during the calibration: %.1f ppm between its halves (bound %.1f ppm)",
                 diff * 1e6, (u1 + u2) * 1e6 + PFS_CLOCK_SLEW_PPM);
        return -1;
    }
    if (err * 1e6 > PFS_CLOCK_MAX_ERR_PPM) {
        snprintf(c->why, sizeof(c->why), "the calibration's reads were too far apart: rate known to %.1f ppm only",
                 err * 1e6);
        return -1;
    }
    if (f >= 8388608.0) { /* mult's 40 fractional bits must leave it below 2^63 */
        snprintf(c->why, sizeof(c->why), "a TSC under 1 Hz");
        return -1;
    }
    c->tsc0 = s[2].tsc;
    c->ns0 = s[2].ns;
    c->mult = (uint64_t)llround(f * 1099511627776.0);
    c->ghz = 1.0 / f;
    c->err_ppm = err * 1e6;
    c->anchor_err_ns = (s[2].gap + 1) / 2;
    c->why[0] = '\0';
    return 0;
}

#ifdef PFS_HAVE_TSC
static uint64_t now_tsc(const struct pfs_clock *c)
{
    return pfs_clock_ns_of(c, __rdtsc());
}

/* The closest of a few bracketing reads: a preemption or a VM exit between
 * two reads widens that bracket only, and the narrowest one is kept. */
static void sample(struct pfs_clock_sample *s)
{
    s->gap = UINT64_MAX;
    for (int i = 0; i < 7; i++) {
        const uint64_t a = pfs_clock_mono_ns();
        const uint64_t t = __rdtsc();
        const uint64_t b = pfs_clock_mono_ns();
        if (b - a < s->gap)
            *s = (struct pfs_clock_sample){.tsc = t, .ns = a + (b - a) / 2, .gap = b - a};
    }
}

static void spin_until(uint64_t ns)
{
    while (pfs_clock_mono_ns() < ns)
        ;
}

/* Where the kernel keeps time with another clock source (kvm-clock, hpet,
 * a hypervisor's page), it found the TSC unfit or not the best here (not
 * synchronised between CPUs, stopped in sleep states, scaled by the host):
 * trust its judgement. Unreadable (no /sys): the calibration decides. */
static int kernel_rejects_tsc(char *why, size_t len)
{
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f)
        return 0;
    char src[64] = "";
    const int got = fgets(src, sizeof(src), f) != NULL;
    fclose(f);
    if (!got)
        return 0;
    src[strcspn(src, "\n")] = '\0';
    if (strcmp(src, "tsc") == 0)
        return 0;
    snprintf(why, len, "the kernel keeps time with %s, not the TSC", src);
    return 1;
}

static int tsc_invariant(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
        return 0;
    return (d >> 8) & 1;
}

/* 1 when the TSC may be calibrated; else c is CLOCK_MONOTONIC, with why. */
static int tsc_eligible(struct pfs_clock *c, int want_tsc)
{
    char why[128];
    if (!want_tsc) {
        use_mono(c, "");
        return 0;
    }
    if (!tsc_invariant()) {
        use_mono(c, "the CPU has no invariant TSC (CPUID 0x80000007 EDX bit 8)");
        return 0;
    }
    if (kernel_rejects_tsc(why, sizeof(why))) {
        use_mono(c, why);
        return 0;
    }
    return 1;
}

int pfs_clock_init(struct pfs_clock *c, int want_tsc, uint64_t calib_ns)
{
    char why[128];
    if (!tsc_eligible(c, want_tsc))
        return c->src;
    if (calib_ns == 0)
        calib_ns = PFS_CLOCK_CALIB_NS;
    /* A loaded machine may spoil one calibration; three tries before giving up. */
    for (int attempt = 0; attempt < 3; attempt++) {
        struct pfs_clock_sample s[3];
        sample(&s[0]);
        spin_until(s[0].ns + calib_ns / 2);
        sample(&s[1]);
        spin_until(s[0].ns + calib_ns);
        sample(&s[2]);
        *c = (struct pfs_clock){.now = now_tsc, .src = PFS_CLOCK_TSC};
        if (pfs_clock_fit(c, s) == 0)
            return c->src;
        snprintf(why, sizeof(why), "%s", c->why);
    }
    use_mono(c, why);
    return c->src;
}

/* The process's clock: its first sample where the process starts, the
 * others where it is about to work, so that the calibration spans its
 * start-up (MPI_Init: tens to hundreds of ms) instead of a spin of its
 * own. */
static struct pfs_clock_sample run_s0;
static int run_begun, run_fitted;

void pfs_run_clock_begin(void)
{
    if (!run_begun && !run_fitted)
        sample(&run_s0);
    run_begun = 1;
}

int pfs_run_clock_fit(void)
{
    if (run_fitted)
        return pfs_run_clock.src;
    run_fitted = 1;
    struct pfs_clock c;
    if (!tsc_eligible(&c, 1)) {
        pfs_run_clock = c;
        return c.src;
    }
    struct pfs_clock_sample s[3];
    if (run_begun)
        s[0] = run_s0;
    else
        sample(&s[0]);
    spin_until(s[0].ns + PFS_RUN_CLOCK_MIN_NS);
    sample(&s[1]);
    spin_until(s[1].ns + PFS_RUN_CLOCK_TAIL_NS);
    sample(&s[2]);
    c = (struct pfs_clock){.now = now_tsc, .src = PFS_CLOCK_TSC};
    if (pfs_clock_fit(&c, s) != 0) {
        char why[128];
        snprintf(why, sizeof(why), "%s", c.why);
        use_mono(&c, why);
    }
    pfs_run_clock = c;
    return c.src;
}
#else
int pfs_clock_init(struct pfs_clock *c, int want_tsc, uint64_t calib_ns)
{
    (void)calib_ns;
    use_mono(c, want_tsc ? "no TSC clock on this architecture (x86-64 only)" : "");
    return c->src;
}

void pfs_run_clock_begin(void) {}

int pfs_run_clock_fit(void)
{
    use_mono(&pfs_run_clock, "no TSC clock on this architecture (x86-64 only)");
    return pfs_run_clock.src;
}
#endif

struct pfs_clock pfs_run_clock = {.now = now_mono, .src = PFS_CLOCK_MONO};

int pfs_run_clock_sleep_until(uint64_t ns)
{
    const uint64_t run = pfs_clock_now(&pfs_run_clock), mono = pfs_clock_mono_ns();
    if (ns <= run)
        return 0;
    const uint64_t t = mono + (ns - run); /* the same instant on CLOCK_MONOTONIC, now */
    const struct timespec ts = {(time_t)(t / 1000000000u), (long)(t % 1000000000u)};
    return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

size_t pfs_run_clock_describe(char *buf, size_t len)
{
    const struct pfs_clock *c = &pfs_run_clock;
    const int n = c->src == PFS_CLOCK_TSC
                      ? snprintf(buf, len, "tsc: %.4f GHz, its rate within %.2f ppm of CLOCK_MONOTONIC's, anchored "
                                 "within %llu ns", c->ghz, c->err_ppm, (unsigned long long)c->anchor_err_ns)
                      : snprintf(buf, len, "CLOCK_MONOTONIC%s%s", c->why[0] ? ": " : "", c->why);
    return n > 0 ? (size_t)n : 0;
}

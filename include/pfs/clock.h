/* A cheap clock in nanoseconds on the CLOCK_MONOTONIC scale: the CPU's time
 * stamp counter, calibrated against CLOCK_MONOTONIC, where the CPU has an
 * invariant one (x86-64: CPUID leaf 0x80000007, EDX bit 8) and the kernel
 * itself keeps time with it; CLOCK_MONOTONIC otherwise. An open-loop
 * schedule reads the clock before and after every operation, and a
 * clock_gettime costs 25-50 ns on a VM (vDSO) against about 10 ns for a
 * calibrated RDTSC (docs/performance.md, "Load building blocks").
 *
 * Its readings are comparable with pfs_now_ns() (the same epoch) to within
 * the calibration's bounds (anchor_err_ns, err_ppm); between two readings of
 * the TSC clock the error is err_ppm of the interval, however long. The TSC
 * is read without a fence: a reading may move by some tens of cycles
 * against the instructions around it, nothing an I/O's latency notices.
 * Set up once (init), then read with pfs_clock_now(): one indirect call, no
 * branch on the source. */
#ifndef PFS_CLOCK_H
#define PFS_CLOCK_H

#include <stddef.h>
#include <stdint.h>

enum pfs_clock_src { PFS_CLOCK_MONO, PFS_CLOCK_TSC };

struct pfs_clock {
    uint64_t (*now)(const struct pfs_clock *c);
    int src;                /* enum pfs_clock_src */
    uint64_t tsc0, ns0;     /* the anchor: a TSC reading and CLOCK_MONOTONIC then */
    uint64_t mult;          /* ns per tick, 40 fractional bits: ns = ns0 + ((tsc - tsc0) * mult >> 40) */
    double ghz;             /* ticks per ns */
    double err_ppm;         /* bound on the rate's error, from the calibration's bracketing reads */
    uint64_t anchor_err_ns; /* bound on the anchor's error (half its bracket) */
    char why[128];          /* MONO: why not the TSC (empty when asked for MONO) */
};

/* One calibration sample: a TSC reading between two CLOCK_MONOTONIC reads
 * (ns: their midpoint; gap: their distance, so the TSC was read within
 * ns +- gap/2). */
struct pfs_clock_sample {
    uint64_t tsc, ns, gap;
};

/* The calibration refuses a rate with a larger error bound: a loaded
 * machine that preempted every bracketing read gets CLOCK_MONOTONIC. */
#define PFS_CLOCK_MAX_ERR_PPM 100.0
/* Slack for CLOCK_MONOTONIC's own slewing (NTP, at most 500 ppm, changes
 * slowly) between the two halves of a calibration. */
#define PFS_CLOCK_SLEW_PPM 50.0
#define PFS_CLOCK_CALIB_NS 20000000ull /* the default calibration: 20 ms */

/* Local, not pure (reads the CPU's ID, the kernel's clock source and both
 * clocks; spins for calib_ns, 0: PFS_CLOCK_CALIB_NS). want_tsc = 0 gives
 * CLOCK_MONOTONIC outright. Returns the source used; why says, for MONO,
 * what ruled the TSC out. */
int pfs_clock_init(struct pfs_clock *c, int want_tsc, uint64_t calib_ns);

/* Local and pure. Fits the TSC's rate and anchor to three samples taken in
 * time order (s[2] becomes the anchor). 0, or -1 with why set when the
 * samples are inconsistent: a clock that did not advance, two halves whose
 * rates differ by more than their brackets and PFS_CLOCK_SLEW_PPM allow, or
 * a rate error bound above PFS_CLOCK_MAX_ERR_PPM. Sets every field but now
 * and src. The rate's fixed point rounds it by less than 3e-12 (10 ns a
 * hour) for a TSC up to 5 GHz; refused: a TSC under 1 Hz. */
int pfs_clock_fit(struct pfs_clock *c, const struct pfs_clock_sample s[3]);

/* Local and pure. A TSC reading in ns on the fitted scale (readings before
 * the anchor too). */
static inline uint64_t pfs_clock_ns_of(const struct pfs_clock *c, uint64_t tsc)
{
    const int64_t d = (int64_t)(tsc - c->tsc0);
    return c->ns0 + (uint64_t)(int64_t)(((__int128)d * (__int128)c->mult) >> 40);
}

/* Local. Now, in ns on the CLOCK_MONOTONIC scale. */
static inline uint64_t pfs_clock_now(const struct pfs_clock *c)
{
    return c->now(c);
}

/* Local. CLOCK_MONOTONIC in ns (the fallback's reading). */
uint64_t pfs_clock_mono_ns(void);

/* The process's clock, which pfs_now_ns() reads (every timestamp of the
 * transfer loops, the schedules, the latencies): CLOCK_MONOTONIC until
 * pfs_run_clock_fit() picks the TSC. pfs_run_clock_begin() takes the
 * calibration's first sample (main, before MPI_Init); pfs_run_clock_fit()
 * its last two (after it, before any thread that reads the clock starts:
 * it replaces the struct) and fits them, at least PFS_RUN_CLOCK_MIN_NS
 * apart (it spins the rest, and PFS_RUN_CLOCK_TAIL_NS between the last
 * two). A fit that fails (a loaded machine's bracketing reads) keeps
 * CLOCK_MONOTONIC, with why. Both once per process; fit returns the source. */
extern struct pfs_clock pfs_run_clock;
#define PFS_RUN_CLOCK_MIN_NS 10000000ull /* 10 ms */
#define PFS_RUN_CLOCK_TAIL_NS 1000000ull /* 1 ms */
void pfs_run_clock_begin(void);
int pfs_run_clock_fit(void);

/* Local. Sleeps until ns on the process's clock: the distance from its
 * reading now, slept on CLOCK_MONOTONIC (an absolute CLOCK_MONOTONIC
 * deadline taken from it would carry the TSC clock's offset, which grows
 * with its rate's error: about 1 ppm, 3.6 ms an hour, after a short
 * start-up). 0, or clock_nanosleep's error (EINTR: a signal). */
int pfs_run_clock_sleep_until(uint64_t ns);

/* Local. The process's clock in words, for the results ("tsc: 2.5950 GHz,
 * its rate within 1.30 ppm of CLOCK_MONOTONIC's, anchored within 40 ns",
 * or "CLOCK_MONOTONIC: the kernel keeps time with kvm-clock, not the
 * TSC"); like snprintf. */
size_t pfs_run_clock_describe(char *buf, size_t len);

#endif

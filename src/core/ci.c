/* Student's t intervals of a mean over repetitions (pfs/ci.h). */
#include "pfs/ci.h"
#include "pfs/core.h"

#include <math.h>

/* t(0.975, df) for df 1..30, to 9 decimals (the standard tables; scipy's
 * t.ppf agrees). */
static const double t975_table[30] = {
    12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581837, 2.446911849, 2.364624251, 2.306004135,
    2.262157163,  2.228138852, 2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546, 2.119905299,
    2.109815578,  2.100922040, 2.093024054, 2.085963447, 2.079613845, 2.073873068, 2.068657610, 2.063898562,
    2.059538553,  2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
};

double pfs_t975(int df)
{
    if (df < 1)
        return NAN;
    if (df <= 30)
        return t975_table[df - 1];
    /* The normal quantile corrected in powers of 1/df (Cornish-Fisher;
     * Abramowitz and Stegun 26.7.5): four terms keep df 31 within 3e-8 of it. */
    const double z = 1.959963984540054, z2 = z * z, v = (double)df;
    const double g1 = (z2 + 1) * z / 4;
    const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
    const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
    const double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
    return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

void pfs_ci95(const double *v, int n, struct pfs_ci *out)
{
    out->n = n > 0 ? n : 0;
    out->mean = out->half = out->pct = NAN;
    if (n < 1)
        return;
    double m2, mean = pfs_mean_m2(v, n, &m2);
    out->mean = mean;
    if (n < 2)
        return;
    out->half = pfs_t975(n - 1) * sqrt(m2 / (n - 1)) / sqrt((double)n);
    if (mean != 0)
        out->pct = 100.0 * out->half / fabs(mean);
}

int pfs_ci_met(const struct pfs_ci *ci, double target_pct)
{
    return ci->n >= PFS_CI_MIN_REPS && isfinite(ci->pct) && ci->pct <= target_pct;
}

/* Training reads' arithmetic (pfs/train.h): presets, where a sample is,
 * the shares, the epoch's permutation and the accelerator utilisation. */
#include "pfs/train.h"

#include <string.h>

#include "pfs/crand.h"

static const struct {
    const char *name;
    struct pfs_train t;
} presets[] = {
    /* MLPerf Storage, configs/dlio/workload/<name>_h100.yaml. */
    {"unet3d", {168, 1, 146600628, 7, 0.323, 5, 90}},
    {"resnet50", {1024, 1251, 114660, 400, 0.224, 5, 90}},
    {"cosmoflow", {524288, 1, 2828486, 1, 0.00350, 5, 70}},
    /* Scaled down, for tests and trials. */
    {"tiny", {32, 1, 65536, 4, 0.002, 2, 90}},
    {"tiny-records", {4, 16, 16384, 8, 0.002, 2, 90}},
    {"small", {256, 1, 1048576, 8, 0.010, 3, 90}},
};
#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

int pfs_train_preset(const char *name, struct pfs_train *t)
{
    for (size_t i = 0; i < NPRESETS; i++)
        if (strcmp(name, presets[i].name) == 0) {
            *t = presets[i].t;
            return 0;
        }
    return -1;
}

const char *pfs_train_preset_name(int i)
{
    return i >= 0 && (size_t)i < NPRESETS ? presets[i].name : NULL;
}

uint64_t pfs_train_samples(const struct pfs_train *t)
{
    if (t->records && t->files > UINT64_MAX / t->records)
        return UINT64_MAX;
    return t->files * t->records;
}

uint64_t pfs_train_bytes(const struct pfs_train *t)
{
    const uint64_t n = pfs_train_samples(t);
    if (n == UINT64_MAX || (t->sample && n > UINT64_MAX / t->sample))
        return UINT64_MAX;
    return n * t->sample;
}

void pfs_train_where(const struct pfs_train *t, uint64_t s, uint64_t *file, uint64_t *off)
{
    *file = s / t->records;
    *off = (s % t->records) * t->sample;
}

void pfs_train_share(uint64_t n, int w, int r, uint64_t *first, uint64_t *count)
{
    const uint64_t base = n / (uint64_t)w, extra = n % (uint64_t)w, ur = (uint64_t)r;
    *first = ur * base + (ur < extra ? ur : extra);
    *count = base + (ur < extra);
}

void pfs_train_shuffle(uint64_t *perm, uint64_t n, uint64_t seed, int e)
{
    const uint64_t key = pfs_crand_key(seed, (uint64_t)e, PFS_CRAND_TRAIN);
    for (uint64_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint64_t i = n; i > 1; i--) {
        const uint64_t j = pfs_crand_below(key, i, i);
        const uint64_t x = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = x;
    }
}

uint64_t pfs_train_batches(uint64_t count, uint32_t batch)
{
    return batch ? (count + batch - 1) / batch : 0;
}

double pfs_train_au(double compute_s, double stall_s)
{
    const double all = compute_s + stall_s;
    return all > 0 ? 100.0 * compute_s / all : 100.0;
}

double pfs_train_au_model(uint64_t nb, double load_s, double compute_s)
{
    const double c = (double)nb * compute_s;
    if (load_s <= compute_s)
        return pfs_train_au(c, load_s);
    return pfs_train_au(c, (double)nb * load_s + compute_s - c);
}

/* Training reads as MLPerf Storage (DLIO) shapes them: a data set of
 * `files` files of `records` samples of `sample` bytes each (sample s is
 * record s % records of file s / records, at offset (s % records) x
 * sample); each epoch a seeded permutation of every sample, cut into one
 * contiguous share per rank; each rank's share read in batches of `batch`
 * samples, each batch followed by an emulated accelerator's compute.
 * The presets are MLPerf Storage's H100 workloads (mlcommons/storage,
 * configs/dlio/workload/<name>_h100.yaml: num_files_train,
 * num_samples_per_file, record_length_bytes (its mean: pfsbench's samples
 * are all that size), batch_size, computation_time, epochs, the AU gate)
 * and scaled-down ones for tests. Pure and local: no MPI, no I/O. */
#ifndef PFS_TRAIN_H
#define PFS_TRAIN_H

#include <stddef.h>
#include <stdint.h>

struct pfs_train {
    uint64_t files, records, sample; /* F files of R samples of S bytes */
    uint32_t batch;                  /* B samples per batch */
    double compute_s;                /* C: an accelerator's compute per batch */
    int epochs;                      /* E */
    double gate;                     /* the AU gate, percent (MLPerf's) */
};

/* Preset by name (0, or -1 when none is called so); its i-th name (NULL
 * past the last). */
int pfs_train_preset(const char *name, struct pfs_train *t);
const char *pfs_train_preset_name(int i);

/* Samples of the data set (F x R), its bytes; UINT64_MAX when it
 * overflows. */
uint64_t pfs_train_samples(const struct pfs_train *t);
uint64_t pfs_train_bytes(const struct pfs_train *t);

/* Where sample s is: its file and its offset there. */
void pfs_train_where(const struct pfs_train *t, uint64_t s, uint64_t *file, uint64_t *off);

/* Rank r's share of n items over w ranks: [*first, *first + *count), the
 * first n % w ranks one more; every item in exactly one share. */
void pfs_train_share(uint64_t n, int w, int r, uint64_t *first, uint64_t *count);

/* Epoch e's order of the n samples into perm[n]: a Fisher-Yates
 * permutation keyed by (seed, e), the same on every rank. */
void pfs_train_shuffle(uint64_t *perm, uint64_t n, uint64_t seed, int e);

/* Batches of a share of count samples: ceil(count / batch) (the last may
 * be short: nothing is dropped). */
uint64_t pfs_train_batches(uint64_t count, uint32_t batch);

/* Accelerator utilisation, percent: compute / (compute + stall); 100
 * when neither. */
double pfs_train_au(double compute_s, double stall_s);

/* The AU one accelerator reaches when each batch takes load_s to read and
 * reading never waits on it (load_s > compute_s, prefetch >= 1): nb
 * batches end at nb x load + compute, of which nb x compute are
 * compute; percent. With load_s <= compute_s, only the first batch
 * stalls: nb x compute / (nb x compute + load). */
double pfs_train_au_model(uint64_t nb, double load_s, double compute_s);

#endif

/* The end of a job (survive.h): a job that lost ranks ends, once every
 * rank left has printed and recorded all it had, without MPI_Finalize. */
#define _GNU_SOURCE
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "survive.h"

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* A lost rank that woke: it answers the end's ping (once it parked, with
 * its run recorded) and waits for mpirun to end it. */
static void park_forever(struct drv_jobctl *jc)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, DRV_TAG_PING, jc->top, &flag, &st);
        if (flag) {
            int x;
            MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, DRV_TAG_PING, jc->top, MPI_STATUS_IGNORE);
            drv_job_post(jc, st.MPI_SOURCE, DRV_TAG_PING, &x, 1);
        }
        nap_ms(10);
    }
}

/* The live rank 0: each lost rank is asked whether it parked; one that
 * woke (and is recording its run) answers once it has. */
static void ping_lost(struct drv_jobctl *jc)
{
    int asked = 0, heard = 0, x = 1;
    for (int r = 0; r < jc->n; r++)
        if (jc->lost[r]) {
            drv_job_post(jc, r, DRV_TAG_PING, &x, 1);
            asked++;
        }
    const double until = pfs_now() + 2 * jc->grace;
    while (heard < asked && pfs_now() < until) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, DRV_TAG_PING, jc->top, &flag, &st);
        if (flag) {
            MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, DRV_TAG_PING, jc->top, MPI_STATUS_IGNORE);
            heard++;
        } else {
            nap_ms(1);
        }
    }
}

int drv_job_finish(struct drv_jobctl *jc, int rc, const char *summary)
{
    if (jc->parked) {
        fflush(stdout);
        fflush(stderr);
        park_forever(jc);
    }
    const int leader = jc->live_top[0] == jc->me;
    fflush(stdout);
    if (!jc->nlost) {
        if (leader && summary)
            fprintf(stderr, "%s\n", summary);
        return rc;
    }
    if (leader)
        ping_lost(jc);
    /* Every live rank has recorded and printed all it had: only then may
     * the first of them leave, which makes mpirun end the others. */
    MPI_Request r;
    int done = 0;
    MPI_Ibarrier(jc->live, &r);
    while (!done && MPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        nap_ms(1);
    if (leader) {
        fprintf(stderr, "pfsbench: job: %d of %d ranks were lost; the job ends without MPI_Finalize (mpirun ends "
                "the lost ones)\n", jc->nlost, jc->n);
        if (summary)
            fprintf(stderr, "%s\n", summary);
    }
    fflush(stdout);
    fflush(stderr);
    _exit(rc ? rc : PFS_EXIT_TIMEOUT);
}


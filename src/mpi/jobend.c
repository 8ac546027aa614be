/* The end of each step and of the job (survive.h): a job's runs print one
 * JSON document (an array) or one CSV header, by the live rank 0 in the
 * runs' order; and a job that lost ranks ends, once every rank left has
 * printed and recorded all it had, without MPI_Finalize. */
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

/* The live rank 0 prints the step's JSON documents (one array for the
 * job) or CSV rows (one header), in the runs' order; their holders send them. */
void drv_job_print_texts(struct drv_jobctl *jc, const int *has)
{
    const int leader = jc->live_top[0];
    if (jc->me != leader) {
        if (jc->text && jc->slot >= 0 && jc->slot < jc->k && has[jc->slot])
            MPI_Send(jc->text, (int)strlen(jc->text), MPI_CHAR, leader, DRV_TAG_TEXT + jc->slot, jc->top);
    } else {
        for (int g = 0; g < jc->k; g++) {
            if (!has[g])
                continue;
            char *t = NULL;
            if (g == jc->slot && jc->text) {
                t = jc->text;
                jc->text = NULL;
            } else {
                MPI_Status st;
                int n = 0;
                MPI_Probe(MPI_ANY_SOURCE, DRV_TAG_TEXT + g, jc->top, &st);
                MPI_Get_count(&st, MPI_CHAR, &n);
                t = malloc((size_t)n + 1);
                MPI_Recv(t ? t : (char[1]){0}, t ? n : 0, MPI_CHAR, st.MPI_SOURCE, DRV_TAG_TEXT + g, jc->top,
                         MPI_STATUS_IGNORE);
                if (t)
                    t[n] = '\0';
            }
            if (!t)
                continue;
            size_t len = strlen(t);
            while (len && t[len - 1] == '\n')
                len--;
            const char *body = t;
            if (jc->format == PFS_FORMAT_CSV && jc->docs > 0) { /* one header for the job */
                const char *nl = strchr(t, '\n');
                body = nl ? nl + 1 : t + len;
            }
            if (jc->format == PFS_FORMAT_JSON)
                fputs(jc->docs ? ",\n" : "[\n", stdout);
            if (body < t + len)
                fprintf(stdout, "%.*s%s", (int)(t + len - body), body, jc->format == PFS_FORMAT_CSV ? "\n" : "");
            fflush(stdout);
            jc->docs++;
            free(t);
        }
        return;
    }
    for (int g = 0; g < jc->k; g++)
        jc->docs += has[g] != 0;
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
    if (leader && jc->format == PFS_FORMAT_JSON && jc->step_set >= 0) /* a job refused up front prints nothing */
        fputs(jc->docs ? "\n]\n" : "[]\n", stdout);
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

void drv_report_out(struct ctx *c, const struct pfs_run_data *d)
{
    const int fmt = c->cfg.format;
    if ((fmt != PFS_FORMAT_JSON && fmt != PFS_FORMAT_CSV) || drv_record_reported(&c->rec))
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = c->jc ? open_memstream(&buf, &len) : NULL;
    FILE *out = f ? f : stdout; /* no memory for the job's copy: straight out, as a plain run */
    if (fmt == PFS_FORMAT_JSON)
        pfs_report_json(out, d);
    else
        pfs_report_csv(out, d);
    if (f) {
        fclose(f);
        drv_job_text(c->jc, buf);
    }
    fflush(stdout);
}

void drv_job_format(struct drv_jobctl *jc, int format)
{
    jc->format = format;
}

void drv_job_text(struct drv_jobctl *jc, char *text)
{
    free(jc->text);
    jc->text = text;
}

/* survive.c: a job of several runs (a job file, a concurrent group, a rank
 * sweep) that goes on without the ranks it lost. Private to the driver;
 * every function says whether it is collective (over the live ranks) or
 * local. Ranks are the job communicator's ("top ranks"). */
#ifndef PFS_SURVIVE_H
#define PFS_SURVIVE_H

#include <mpi.h>

/* The job's state on this rank. Private to survive.c (the steps) and
 * jobend.c (the output and the end). */
struct drv_jobctl {
    MPI_Comm top, live;
    MPI_Group topg;
    int me, n;
    int *live_top, nlive;     /* live's ranks in top, in order */
    unsigned char *lost;      /* [n] */
    int nlost;
    int parked;
    double grace;
    int format, docs;         /* --format; JSON documents (CSV tables) printed so far */
    /* the step */
    int step, k, slot;        /* its number, its runs, this rank's run */
    int step_set;             /* the step drv_job_step last began */
    int regroup;              /* it ends through the coordinator */
    int coord;                /* named by a NOTE; -1: the lowest live rank neither lost nor excluded */
    unsigned char *excl;      /* [n]: leaders given up on in this step */
    int suspect;              /* the leader this rank gave up on, -1 */
    int *members, nmembers;   /* that run's ranks */
    int gone;                 /* a leader a ROLL says is given up, -1 */
    unsigned char *reported;  /* [n] the coordinator's */
    int *acc;                 /* [2k] the reports, merged */
    unsigned char *roll;      /* [n] 1 asked, 2 answered */
    int rolling;
    double roll_until;
    char *text;               /* this rank's run's JSON or CSV in the step */
};

#define DRV_TAG_PING 920   /* at the end, to a lost rank; its answer once it parked */
#define DRV_TAG_TEXT 4000  /* + a run's slot in its step: its JSON or CSV */

#define DRV_JOB_PARK 1  /* drv_job_poll: this rank is lost; it parks */
#define DRV_JOB_LEAVE 2 /* drv_job_poll: the run of the leader given is given up */

/* Collective over top. The job's control; NULL (on every rank) without
 * memory. format: --format (JSON and CSV become one document); grace: how
 * long a rank has to answer before it is lost, seconds. */
struct drv_jobctl *drv_job_new(MPI_Comm top, int format, double grace);
void drv_job_free(struct drv_jobctl *jc);

/* Local. The ranks not lost (a communicator of their own), how many; this
 * rank parked; a rank lost; a rank of comm as a top rank; the grace. */
MPI_Comm drv_job_live(const struct drv_jobctl *jc);
int drv_job_nlive(const struct drv_jobctl *jc);
int drv_job_parked(const struct drv_jobctl *jc);
int drv_job_is_lost(const struct drv_jobctl *jc, int top_rank);
int drv_job_top_rank(const struct drv_jobctl *jc, MPI_Comm comm, int r);
void drv_job_top_ranks(const struct drv_jobctl *jc, MPI_Comm comm, int *r, int n); /* in place */
double drv_job_grace(const struct drv_jobctl *jc);

/* Local, every live rank alike: a step of k runs begins, this rank's is
 * slot (-1: none). 0, or -1 without memory. */
int drv_job_step(struct drv_jobctl *jc, int k, int slot);

/* Local, every rank alike: the job's --format (its sections agree on it). */
void drv_job_format(struct drv_jobctl *jc, int format);

/* Local, rank 0 of a run: its JSON or CSV (malloc'ed; the job frees it),
 * printed by the job at the step's end. */
void drv_job_text(struct drv_jobctl *jc, char *text);

/* Local. The job's messages: returns DRV_JOB_PARK when this rank was left
 * out, DRV_JOB_LEAVE when the run whose rank 0 is `leader` (a top rank;
 * -1: none) is given up, else 0. A coordinator's work goes on here too. */
int drv_job_poll(struct drv_jobctl *jc, int leader);

/* Local, rank 0 of a run that decided: these top ranks are lost; every
 * live rank is told. */
void drv_job_lost(struct drv_jobctl *jc, const int *top_ranks, int n);

/* Local, a rank that gave up on rank 0 (`leader`, a top rank) of its run
 * over comm: the step's coordinator asks that run's ranks. */
void drv_job_suspect(struct drv_jobctl *jc, int leader, MPI_Comm comm);

/* Local. This rank parks (it was told it is lost). */
void drv_job_park(struct drv_jobctl *jc);

/* Collective over the live ranks: the step's end. st[k]: this rank's
 * statuses of the step's runs (0 where it knows none); all[k]: each run's,
 * the worst any rank reported. Returns how many ranks the step lost, or -1
 * when this rank parked. The step's JSON or CSV is printed. */
int drv_job_settle(struct drv_jobctl *jc, const int *st, int *all);

/* Local. A message of ints on the job's communicator that is never waited
 * for: the receiver may be stopped (survive.c). */
void drv_job_post(const struct drv_jobctl *jc, int dest, int tag, const int *v, int n);

/* Collective over the live ranks, at a step's end (jobend.c): its runs'
 * JSON or CSV (has[k]: which hold one), printed by the live rank 0 in the
 * runs' order, one array or one header for the whole job. */
void drv_job_print_texts(struct drv_jobctl *jc, const int *has);

/* Collective over the live ranks: the job's end (the JSON array's close,
 * the summary line on the live rank 0). Returns rc; when ranks were lost,
 * ends the process (_exit) once every live rank got here, and a parked
 * rank waits there to be ended. */
int drv_job_finish(struct drv_jobctl *jc, int rc, const char *summary);

#endif

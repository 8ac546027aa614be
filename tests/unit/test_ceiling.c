/* Ceilings (pfs/ceiling.h) in a plain process: the CPU list parser, the
 * ring of the network exchange, the network figures from nodes' seconds,
 * and the memory ceiling's shape (threads, region, figures present; no
 * assertion on speed). */
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

#include "pfs/ceiling.h"

static void test_cpu_list(void **state)
{
    (void)state;
    int c[16];
    assert_int_equal(pfs_cpu_list_parse("0-1\n", c, 16), 2);
    assert_int_equal(c[1], 1);
    assert_int_equal(pfs_cpu_list_parse("0-3,8,10-11", c, 16), 7);
    static const int want[] = {0, 1, 2, 3, 8, 10, 11};
    assert_memory_equal(c, want, sizeof(want));
    assert_int_equal(pfs_cpu_list_parse("5", c, 16), 1);
    assert_int_equal(c[0], 5);
    assert_int_equal(pfs_cpu_list_parse("0-99", c, 16), 16); /* stops at max */
    assert_int_equal(pfs_cpu_list_parse("", c, 16), 0);
    assert_int_equal(pfs_cpu_list_parse("3-1", c, 16), -1);
    assert_int_equal(pfs_cpu_list_parse("a", c, 16), -1);
    assert_int_equal(pfs_cpu_list_parse("1;2", c, 16), -1);
}

static void test_ring(void **state)
{
    (void)state;
    int to, from;
    /* every node sends once and receives once: to is a permutation, and
     * from is its inverse */
    for (int n = 1; n <= 9; n++) {
        int got_to[9] = {0}, got_from[9] = {0};
        for (int i = 0; i < n; i++) {
            pfs_ceiling_ring(i, n, &to, &from);
            got_to[to]++, got_from[from]++;
            int back, unused;
            pfs_ceiling_ring(to, n, &unused, &back);
            assert_int_equal(back, i);
            if (n > 1)
                assert_int_not_equal(to, i);
        }
        for (int i = 0; i < n; i++)
            assert_true(got_to[i] == 1 && got_from[i] == 1);
    }
    pfs_ceiling_ring(0, 2, &to, &from);
    assert_true(to == 1 && from == 1); /* two nodes exchange with each other */
}

static void test_net_figures(void **state)
{
    (void)state;
    struct pfs_net_node nodes[4] = {{"n1", 1.0, 0}, {"n2", 2.0, 0}, {"n3", 0.5, 0}, {"n4", 1.0, 0}};
    struct pfs_net_ceiling c = {.nnodes = 4, .bytes_per_node = 1024ull << 20, .node = nodes};
    pfs_ceiling_net_figures(&c);
    assert_true(fabs(nodes[0].mibs - 1024) < 1e-9);
    assert_true(fabs(nodes[1].mibs - 512) < 1e-9);
    assert_true(fabs(nodes[2].mibs - 2048) < 1e-9);
    /* the job: 4 GiB over the longest node's 2 s */
    assert_true(fabs(c.job_mibs - 2048) < 1e-9);
    assert_true(fabs(c.min_mibs - 512) < 1e-9);
    assert_true(fabs(c.median_mibs - 1024) < 1e-9);
    assert_true(fabs(c.max_mibs - 2048) < 1e-9);
    assert_int_equal(c.slowest, 1);
    /* no nodes, or no time: no figure, no division by zero */
    struct pfs_net_node z = {"z", 0, 0};
    struct pfs_net_ceiling e = {.nnodes = 1, .bytes_per_node = 0, .node = &z};
    pfs_ceiling_net_figures(&e);
    assert_true(e.job_mibs == 0 && z.mibs == 0);
}

static void test_memory(void **state)
{
    (void)state;
    struct pfs_mem_ceiling m;
    char err[256] = "";
    double into, from;
    if (pfs_ceiling_memory(2, &m, err, sizeof(err)) != 0)
        fail_msg("memory ceiling: %s", err);
    assert_int_equal(m.threads, 2);
    assert_int_equal(m.transfer, 1 << 20);
    assert_true(m.region >= 4 * m.transfer && m.region % m.transfer == 0);
    assert_true(m.one_into > 0 && m.one_from > 0 && m.all_into > 0 && m.all_from > 0);
    assert_true(isfinite(m.all_into) && isfinite(m.all_from));
    /* the one-thread rate refuses what it cannot measure */
    assert_int_equal(pfs_memcpy_rate(1 << 20, 0, 3, &into, &from), -1);
    assert_int_equal(pfs_memcpy_rate(1 << 10, 1 << 20, 3, &into, &from), -1);
    assert_int_equal(pfs_memcpy_rate(1 << 20, 1 << 16, 0, &into, &from), -1);
    assert_int_equal(pfs_memcpy_rate(1 << 20, 1 << 16, 3, &into, &from), 0);
    assert_true(into > 0 && from > 0);
}

/* The run's ceilings: the copy rate of two directions, the sums over the
 * nodes, a bandwidth's shares and the binding (lower) ceiling. */
static void test_shares(void **state)
{
    (void)state;
    assert_true(fabs(pfs_ceiling_copy_rate(100, 300) - 150) < 1e-9); /* 2 / (1/100 + 1/300) */
    assert_true(pfs_ceiling_copy_rate(0, 300) == 0);
    struct pfs_ceiling_node nodes[2] = {{.memcpy_all = 1000, .network = 100}, {.memcpy_all = 3000, .network = 300}};
    struct pfs_ceilings c = {.nnodes = 2, .node = nodes};
    pfs_ceilings_sum(&c);
    assert_true(c.memory == 4000 && c.network == 400);
    double m, n;
    assert_int_equal(pfs_ceilings_share(&c, 200, &m, &n), PFS_CEIL_NETWORK);
    assert_true(m == 100.0 * 200 / 4000 && n == 100.0 * 200 / 400);
    /* One node: no network between clients, memory binds. */
    c.nnodes = 1;
    pfs_ceilings_sum(&c);
    assert_true(c.memory == 1000 && isnan(c.network));
    assert_int_equal(pfs_ceilings_share(&c, 200, &m, &n), PFS_CEIL_MEMORY);
    assert_true(m == 20 && isnan(n));
    /* Memory below the network: memory binds. */
    nodes[0].network = 1e6;
    c.nnodes = 2;
    pfs_ceilings_sum(&c);
    assert_int_equal(pfs_ceilings_share(&c, 200, &m, &n), PFS_CEIL_MEMORY);
    /* No ceilings (a metadata phase, no --ceilings): none. */
    assert_int_equal(pfs_ceilings_share(NULL, 200, &m, &n), PFS_CEIL_NONE);
    assert_true(isnan(m) && isnan(n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_list),
        cmocka_unit_test(test_ring),
        cmocka_unit_test(test_net_figures),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_shares),
    };
    return cmocka_run_group_tests_name("ceiling", tests, NULL, NULL);
}

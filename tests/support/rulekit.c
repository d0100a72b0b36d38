/* rulekit.c - see rulekit.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "rulekit.h"

static const char *const STRUCTURAL = "container,kv,tensor,data";

const gguflint_options *rk_structural(void)
{
    static gguflint_options *shared; /* reachable until exit: not a leak */
    if (!shared)
        shared = ex_options(STRUCTURAL);
    return shared;
}

gguflint_options *rk_options(void)
{
    return ex_options(STRUCTURAL);
}

uint8_t *rk_finish(gb *b, size_t *len)
{
    assert_non_null(b);
    uint8_t *p = gb_finish(b, len);
    gb_free(b);
    assert_non_null(p);
    return p;
}

void rk_expect_at(gb *b, const gguflint_options *opt, const char *id, uint64_t at,
                  const char *where)
{
    size_t len;
    uint8_t *buf = rk_finish(b, &len);
    ex_assert_finding_at(buf, len, opt, id, at, where);
    free(buf);
}

uint8_t *rk_one_kv_file(rk_kv_writer fn, gb_marks *m, size_t *len)
{
    gb *b = gb_new(3);
    assert_non_null(b);
    fn(b);
    *m = *gb_last(b);
    return rk_finish(b, len);
}

rk_built rk_build(const rk_layout *l)
{
    rk_built r;
    memset(&r, 0, sizeof r);
    uint64_t align = l->align_kv ? l->align_kv : 32;
    gb *b = gb_new(3);
    assert_non_null(b);
    gb_kv_str(b, "general.architecture", "llama");
    if (l->align_kv)
        gb_kv_u32(b, "general.alignment", l->align_kv);
    uint64_t run = 0, need = 0;
    for (size_t i = 0; i < l->nt; i++) {
        const rk_tensor *t = &l->t[i];
        uint64_t nb = t->n_dims <= 4 ? gb_nbytes(t->type, t->n_dims, t->ne) : UINT64_MAX;
        if (nb == UINT64_MAX)
            nb = 0;
        uint64_t off = t->offset == RK_AUTO ? run : t->offset;
        gb_tensorn(b, t->name, t->namelen ? t->namelen : strlen(t->name), t->n_dims, t->ne, t->type,
                   off);
        r.t[i] = *gb_last(b);
        run += gb_align_up(nb, align);
        /* Data for tensors that fit in a small file; hostile offsets or
         * sizes get none (the file then simply ends early). */
        if (off <= (1u << 20) && nb <= (1u << 20) && gb_align_up(off + nb, align) > need)
            need = gb_align_up(off + nb, align);
    }
    r.info_end = gb_offset(b);
    r.data_start = (size_t)gb_align_up(r.info_end, align);
    if (!l->stop_after_infos) {
        gb_pad_to(b, align);
        gb_zeros(b, (size_t)(l->data_len_set ? l->data_len : need));
    }
    r.buf = rk_finish(b, &r.len);
    return r;
}

/* caps.h - every limit of the template analyser, in one place. Each
 * structure is bounded: identifiers keep TPL_NAME_CAP bytes, a string
 * literal or folded constant TPL_CONST_CAP, the per-tag arena TPL_ARENA_CAP,
 * the {% set %} store TPL_VARS_MAX variables in TPL_VSTORE_CAP bytes, the
 * expression stacks TPL_STACK entries, and all copying done by folding is
 * charged to one budget per analyser, proportional to the bytes fed.
 * Hitting a cap costs precision (a TH_LIMIT note), never time or memory. */
#ifndef GGUFLINT_TEMPLATE_CAPS_H
#define GGUFLINT_TEMPLATE_CAPS_H

#define TPL_NAME_CAP 128u
#define TPL_CONST_CAP (64u * 1024u)
#define TPL_ARENA_CAP (256u * 1024u)
#define TPL_VARS_MAX 256u
#define TPL_VAR_SLOTS 512u /* hash slots, a power of two > 2 * TPL_VARS_MAX */
#define TPL_VSTORE_CAP (1024u * 1024u)
#define TPL_STACK 128u /* nesting depth (operators and open brackets) */
/* Width is not depth: a list, tuple or dict literal keeps at most
 * TPL_WIDTH_LIST items on the value stack (the ones before are folded
 * into one value), a call's arguments TPL_WIDTH_ARGS (past them lumped
 * into one unknown that keeps their flags), so no flat literal of any
 * width reaches TPL_STACK. */
#define TPL_WIDTH_LIST 16u
#define TPL_WIDTH_ARGS 32u
#define TPL_BLOCKS 128u
#define TPL_BSTACK 64u /* bracket kinds remembered per tag (deeper: counted only) */
#define TPL_WORD_SLOTS 512u
#define TPL_CHAIN_CAP 96u     /* bytes of an access chain kept for messages */
#define TPL_CHAIN_AREA 16384u /* chain bytes per tag (past it, no more chains) */
#define TPL_CAPTURES 8u       /* {% set %} / {% filter %} captures open at once */
#define TPL_UNROLL_MAX 256u   /* items of a constant loop unrolled (unroll.c) */
#define TPL_DICTS 16u         /* dicts of constants remembered per template for |items */
#define TPL_DICT_BYTES 8192u  /* their keys and values, at most */
#define TPL_KW_MAX 32u        /* keyword arguments remembered per tag */
#define TPL_NS_MAX 64u        /* namespace() objects per template */
#define TPL_TOK_MAX 64u       /* special tokens remembered per template */
#define TPL_TOK_LEN 64u       /* bytes of one, brackets included */
#define TPL_TOK_PEND 16u      /* per tag, in literals not yet known to be output */
#define TPL_NL_RING 1024u     /* newlines remembered for line:column (a power of two) */
#define TPL_OVERSIZE (256u * 1024u)
#define TPL_BLOB_MIN 64u
#define TPL_DOS_BIG 1000000     /* one range / repetition */
#define TPL_DOS_NEST 10000000   /* product of nested loop bounds */
#define TPL_POW_BITS (1u << 24) /* bits of a ** result */
/* Folding copies, per analyser (one analyser per file): TPL_BUDGET_BASE,
 * plus TPL_BUDGET_PER_BYTE for every template byte fed, up to TPL_BUDGET_MAX
 * in all, so the work of a file is linear in its size however many
 * templates it holds (8000 tiny ones cost what one big one does). One
 * budget byte per template byte: a folded byte costs a few tens of
 * instructions (copied, checked, scanned when output), and dense tags
 * already cost about 150 per byte, so more would break the 250 per byte of
 * the complexity contract (a 1 MiB template of folding expressions). Real
 * chat templates stay well within the 1 MiB base. */
#define TPL_BUDGET_BASE (1u << 20)
#define TPL_BUDGET_PER_BYTE 1u
#define TPL_BUDGET_MAX (256ull << 20)
/* An analyser kept for the thread's next file (tpl_release) only while its
 * grown buffers (arena, variable store, capture and literal buffers) hold
 * at most this many bytes: a big template's memory is given back. */
#define TPL_KEEP_HEAP (256u * 1024u)
/* The longest first template of a file whose bytes a kept analyser
 * remembers (tpl_whole): real chat templates are a few KiB to a few tens. */
#define TPL_AGAIN_MAX (64u * 1024u)

#endif

#!/usr/bin/env python3
"""Differential oracle for the template folder.

Generates random Jinja expressions over literals (slices with extreme and
negative bounds and steps, integer arithmetic, ~ + * % // **, string methods
and filters, % / .format / |format / |replace / |join / |reverse builders,
case filters, lists and tuples) and whole templates (list and namespace
statements; {% set x %} captures with text, {{ }} values and
{% filter upper/lower/trim/replace(...) %} blocks; dict(...) and dict
literals through |first |list |items |join |sort |length .keys() .values();
every str.format conversion and spec, '{0:c}', '%c', '%05d', '%r', '%a';
loops over range(k), strings and lists with '%c' % (n + i), ROT13 tables,
loop.index, loop filters, else, nested loops, namespaces and lists changed
in the body), asks the folder what it computes (tests/tools/tpl_fold:
"K <hex>" or "U" per case) and renders the same with real Jinja2 - only
ever in jinja2.sandbox.ImmutableSandboxedEnvironment (list.append / extend
/ insert opened for the statement cases, nothing else). The folder's value
must equal Jinja2's, or be unknown; it must never be wrong. In the forms of
STRICT, a fold of a case Jinja2 raises on at render time (SecurityError,
TypeError ...) is wrong too. The counts are printed per form (--seed makes
a run reproducible).

    ci/template-oracle.py --tool build-ci/tests/tpl_fold --cases 1000000

Exit 0 when no value differs, 1 on any mismatch (each printed, grouped by
class), 77 when no Python with jinja2 is found (run it with /usr/bin/python3:
Debian's python3-jinja2). Classes of the run are printed at the end.
"""
import argparse
import collections
import random
import resource
import subprocess
import sys
import time
import warnings

try:
    from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment
except ImportError:  # pragma: no cover - the skip path
    print("template-oracle: no jinja2 in this python (use /usr/bin/python3): skipped")
    sys.exit(77)

# --------------------------------------------------------------- literals

WORDS = ["abc", "", "a", "__class__", "_", "__", "cla", "ss", "x_y", "Hello World",
         "hello-world (x)", "it's", "a1b2", "ABC def", "%s", "%d", "%%", "%c", "{}",
         "{0}", "{1}{0}", "{{}}", "}", "{", "a,b,c", "  pad  ", "\\t tab\\n", "ab" * 3,
         "o'k", "mIxEd CaSe", "x" * 20, "dunder__init__", "9", "-1"]
UNICODE = ["é", "ñandú", "中文", "😀", "ß", "ﬁ", "İ", "ı", "Ǆ", "ｆｕｌｌ", "аbc", "Ωmega",
           "\u00a0nbsp", "\u2003em", "\x1cfs", "\u2028ls"]
ESCAPES = ["\\x5f", "\\u005f", "\\137", "\\N{LOW LINE}", "\\N{low line}", "\\n", "\\r\\n",
           "\\\\", "\\'", '\\"', "\\a", "\\q", "\\8", "\\0", "\\777", "\\U0001F600",
           "\\N{LATIN SMALL LETTER A}", "\\N{NO SUCH NAME}", "\\x80", "\\ud800"]
INTS = [0, 1, 2, 3, 5, 7, 10, -1, -2, -3, 65, 95, 100, 1000, 2**31, 2**32, 2**62,
        2**63 - 1, -(2**63 - 1), 2**63, 2**64, 10**20]
INT_FORMS = ["{}", "{}", "{}", "({})"]


def rand_str(r):
    k = r.random()
    if k < 0.55:
        s = r.choice(WORDS)
    elif k < 0.75:
        s = r.choice(WORDS) + r.choice(UNICODE) + r.choice(WORDS)[:3]
    elif k < 0.9:
        s = r.choice(WORDS)[:4] + r.choice(ESCAPES) + r.choice(WORDS)[:4]
    else:
        s = "".join(r.choice("abcXYZ_ -%{}.'") for _ in range(r.randint(0, 8)))
    q = r.choice(["'", '"'])
    out = []
    i = 0
    while i < len(s):  # keep escapes, quote the quote
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            out.append(s[i:i + 2])
            i += 2
            continue
        if c == q:
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    return q + "".join(out) + q


def rand_int(r):
    k = r.random()
    if k < 0.7:
        v = r.choice(INTS[:15]) if r.random() < 0.8 else r.choice(INTS)
        if v < 0:
            return "(-%d)" % -v if r.random() < 0.5 else "-%d" % -v
        return r.choice(INT_FORMS).format(v)
    if k < 0.8:
        return r.choice(["0x1f", "0b101", "0o17", "1_000", "0X7FFFFFFFFFFFFFFF"])
    return str(r.randint(-50, 50)) if r.random() < 0.5 else "(%d)" % r.randint(-50, 50)


# --------------------------------------------------------------- grammar

def rand_pspec(r):
    """A printf-style conversion: flags, width, precision, length, type."""
    flags = "".join(r.choice("-0+ #") for _ in range(r.choice([0, 0, 1, 2])))
    width = r.choice(["", "", "1", "3", "5", "8", "12"])
    prec = r.choice(["", "", ".0", ".1", ".2", ".4"])
    length = r.choice(["", "", "", "l", "h"])
    return "%" + flags + width + prec + length + r.choice("sdixXocrua%")


def rand_fspec(r):
    """A str.format field: index, conversion, [[fill]align][sign][#][0][width][,][.prec][type]."""
    spec = ""
    if r.random() < 0.4:
        spec += r.choice(["", "*", "0", "x", "中", " "]) + r.choice("<>^=")
    spec += r.choice(["", "", "+", "-", " "])
    spec += r.choice(["", "", "#"])
    spec += r.choice(["", "", "0"])
    spec += r.choice(["", "", "1", "4", "7", "10"])
    spec += r.choice(["", "", "", ",", "_"])
    spec += r.choice(["", "", ".0", ".2", ".5"])
    spec += r.choice(["", "", "s", "d", "x", "X", "o", "b", "c", "n", "e"])
    conv = r.choice(["", "", "", "!s", "!r", "!a"])
    return "{" + r.choice(["", "0"]) + conv + (":" + spec if spec or r.random() < 0.3 else "") + "}"


def rand_kwname(r):
    return r.choice(["a", "b", "__cla", "ss__", "__class__", "_", "k1", "x_y", "__"])


def d_expr(r, d):
    """A dict (dict(k=...) or a literal) seen as its keys."""
    n = r.randint(0, 4)
    names = [rand_kwname(r) for _ in range(n)]
    if r.random() < 0.5:
        body = "dict(%s)" % ", ".join("%s=%s" % (k, r.choice([rand_str(r), rand_int(r)]))
                                      for k in dict.fromkeys(names))
    else:
        body = "{%s}" % ", ".join("%s: %s" % (r.choice(["'%s'" % k, rand_int(r)]),
                                              r.choice([rand_str(r), rand_int(r)]))
                                  for k in names)
    return body

def s_expr(r, d):
    """A string-valued expression (most of the time)."""
    if d <= 0 or r.random() < 0.25:
        return rand_str(r)
    k = r.randrange(34)
    a = lambda: s_expr(r, d - 1)
    i = lambda: i_expr(r, d - 1)
    if k == 0:
        return "%s ~ %s" % (a(), a())
    if k == 1:
        return "%s ~ %s" % (a(), i())
    if k == 2:
        return "%s + %s" % (a(), a())
    if k == 3:
        return "(%s) * %s" % (a(), r.choice(["0", "1", "2", "3", "-1", "5", i()]))
    if k == 4:  # slices
        parts = [r.choice(["", i(), str(r.randint(-6, 6)), "9223372036854775807",
                           "-9223372036854775807", "-9223372036854775807-1",
                           "99999999999999999999"]) for _ in range(3)]
        if r.random() < 0.5:
            return "(%s)[%s:%s]" % (a(), parts[0], parts[1])
        return "(%s)[%s:%s:%s]" % (a(), parts[0], parts[1], parts[2])
    if k == 5:
        return "(%s)[%s]" % (a(), r.choice([str(r.randint(-5, 5)), i()]))
    if k == 6:
        return "(%s)|%s" % (a(), r.choice(["upper", "lower", "capitalize", "title", "trim",
                                           "reverse", "first", "last", "string"]))
    if k == 7:
        return "(%s).%s()" % (a(), r.choice(["upper", "lower", "capitalize", "title",
                                              "swapcase", "strip", "lstrip", "rstrip"]))
    if k == 8:
        return "(%s).strip(%s)" % (a(), rand_str(r))
    if k == 9:
        return "(%s)|trim(%s)" % (a(), rand_str(r))
    if k == 10:
        extra = (", %s" % r.choice(["0", "1", "2", "-1", i()])) if r.random() < 0.4 else ""
        return "(%s)|replace(%s, %s%s)" % (a(), a(), a(), extra)
    if k == 11:
        extra = (", %s" % r.choice(["0", "1", "-1", i()])) if r.random() < 0.4 else ""
        return "(%s).replace(%s, %s%s)" % (a(), a(), a(), extra)
    if k == 12:
        return "%s|join(%s)" % (l_expr(r, d - 1), r.choice(["", a(), i()]))
    if k == 13:
        return "(%s)|join(%s)" % (a(), r.choice(["", a()]))
    if k == 14:
        return "(%s).join(%s)" % (a(), r.choice([l_expr(r, d - 1), a()]))
    if k == 15:
        fmt = r.choice(["'%s'", "'%s%s'", "'%d'", "'%i'", "'%c'", "'%%'", "'%s-%s-%s'",
                        "'a%sb'", "'%5s'", "'%r'", "'%'", "'%x'", "'%(a)s'"])
        if r.random() < 0.5:
            fmt = "'%s'" % "".join(r.choice([rand_pspec(r), "x", "_"]) for _ in range(r.randint(1, 3)))
        if r.random() < 0.3:
            fmt = a()
        args = r.choice([a(), i(), "(%s,)" % a(), "(%s, %s)" % (a(), i()),
                         "(%s, %s, %s)" % (a(), a(), a()), "[%s]" % a(), "()",
                         "(%s, %s)" % (i(), i())])
        return "%s %% %s" % (fmt, args)
    if k == 16:
        fmt = r.choice(["'%s'", "'%s%s'", "'%d'", "'%c'", "'%%'", "'%s-%s'", a()])
        if r.random() < 0.5:
            fmt = "'%s'" % "".join(r.choice([rand_pspec(r), "y", "__"]) for _ in range(r.randint(1, 3)))
        args = ", ".join(r.choice([a(), i(), i(), "95"]) for _ in range(r.randint(0, 3)))
        return "%s|format(%s)" % (fmt, args)
    if k == 17:
        fmt = r.choice(["'{}'", "'{}{}'", "'{0}'", "'{1}{0}'", "'{}{0}'", "'{{}}'", "'{'",
                        "'}'", "'{0}{0}'", "'{a}'", "'{:>3}'", "'{0!r}'", "'x{}y'", a()])
        if r.random() < 0.5:
            fmt = "'%s'" % "".join(r.choice([rand_fspec(r), "z", "__"]) for _ in range(r.randint(1, 3)))
        args = ", ".join(r.choice([a(), i(), i(), "95"]) for _ in range(r.randint(0, 3)))
        if r.random() < 0.1:
            args += (", " if args else "") + "a=%s" % a()
        return "%s.format(%s)" % (fmt, args)
    if k == 18:
        return "%s ~ ''" % i()
    if k == 19:
        return "%s|string" % i()
    if k == 20:
        return "%s|first" % l_expr(r, d - 1)
    if k == 21:
        return "%s|last" % l_expr(r, d - 1)
    if k == 22:
        return "%s[%s]" % (l_expr(r, d - 1), r.randint(-3, 3))
    if k == 23:
        return "%s %s" % (rand_str(r), rand_str(r))  # adjacent literals
    if k == 24:
        return "%s * (%s)" % (r.choice(["2", "0", "-1", "3"]), a())
    if k == 25:
        return "(%s)|%s" % (i(), r.choice(["string", "upper", "lower", "title"]))
    if k == 26:
        return "-(%s)" % a() if r.random() < 0.5 else "+(%s)" % a()
    if k == 27:
        return "(%s)|reverse|join" % a()
    if k == 28:
        return "(%s)|center(%s)" % (a(), r.randint(0, 12))
    if k == 29:
        return "%s|first" % d_expr(r, d - 1)
    if k == 30:
        return "%s|list|join(%s)" % (d_expr(r, d - 1), r.choice(["", "'-'"]))
    if k == 31:
        return "%s|join" % d_expr(r, d - 1)
    if k == 32:
        return "(%s|list)[%d]" % (d_expr(r, d - 1), r.randint(-2, 2))
    if k == 33:
        return "(%s|list|first) ~ %s" % (d_expr(r, d - 1), a())
    return "%s" % i()


def i_expr(r, d):
    """An integer-valued expression."""
    if d <= 0 or r.random() < 0.35:
        return rand_int(r)
    k = r.randrange(10)
    a = lambda: i_expr(r, d - 1)
    if k == 0:
        return "(%s + %s)" % (a(), a())
    if k == 1:
        return "(%s - %s)" % (a(), a())
    if k == 2:
        return "(%s * %s)" % (a(), a())
    if k == 3:
        return "(%s %% %s)" % (a(), a())
    if k == 4:
        return "(%s // %s)" % (a(), a())
    if k == 5:
        return "(%s ** %s)" % (r.choice(["2", "3", "-2", "10", "0", "1", "-1", "7"]),
                               r.choice(["0", "1", "2", "5", "10", "40", "62", "63", "64",
                                         "-1", "3"]))
    if k == 6:
        return "-%s" % a()
    if k == 7:
        return "%s ** %s ** %s" % (r.choice(["2", "3", "-2"]), r.choice(["2", "3"]),
                                   r.choice(["2", "3"]))
    if k == 8:
        return "-%s ** %s" % (r.choice(["2", "3"]), r.choice(["2", "3"]))
    return "%s * %s + %s" % (a(), a(), a())


def l_expr(r, d):
    """A list or tuple of literals and folded values."""
    if d > 0 and r.random() < 0.25:  # list + list, list * n
        a = lambda: l_expr(r, d - 1)
        k = r.randrange(4)
        if k == 0:
            return "(%s + %s)" % (a(), a())
        if k == 1:
            return "(%s * %s)" % (a(), r.choice(["0", "1", "2", "3", "-1", rand_int(r)]))
        if k == 2:
            return "(%s * %s)" % (r.choice(["2", "3", "0"]), a())
        return "(%s|list + %s)" % (rand_str(r), a())
    n = r.randint(0, 4)
    items = ", ".join(r.choice([s_expr(r, d - 1), rand_str(r), rand_int(r)])
                      for _ in range(n))
    k = r.random()
    if k < 0.5:
        return "[%s]" % items
    if k < 0.8:
        return "(%s%s)" % (items, "," if n == 1 else "")
    return "%s|list" % rand_str(r)


def gen_stmts(r):
    """A whole template: a list or a namespace() built by statements
    ({% set %}, append / extend / insert, namespace attributes, aliases and
    copies), then one {{ }} that prints what was built."""
    out = []
    target = r.choice(["k", "ns.k"])
    init = l_expr(r, 1) if r.random() < 0.7 else "[]"
    if target == "k":
        out.append("{%% set k = %s %%}" % init)
    else:
        out.append("{%% set ns = namespace(k=%s, s=%s) %%}" % (init, rand_str(r)))
    alias = None
    for _ in range(r.randint(1, 5)):
        x = alias if alias and r.random() < 0.5 else target
        k = r.randrange(9)
        v = r.choice([rand_str(r), rand_int(r), s_expr(r, 1)])
        if k == 0:
            out.append("{%% set _ = %s.append(%s) %%}" % (x, v))
        elif k == 1:
            out.append("{%% do %s.append(%s) %%}" % (x, v))
        elif k == 2:
            out.append("{%% do %s.extend(%s) %%}" % (x, r.choice([l_expr(r, 1), rand_str(r)])))
        elif k == 3:
            out.append("{%% do %s.insert(%s, %s) %%}" % (x, r.choice(["0", "1", "-1", "5", "-9",
                                                                        rand_int(r)]), v))
        elif k == 4 and target == "ns.k":
            out.append("{%% set ns.s = ns.s ~ %s %%}" % v)
        elif k == 5:
            alias = "a"
            out.append("{%% set a = %s %%}" % target)  # the same list
        elif k == 6:
            alias = "a"
            out.append("{%% set a = %s|list %%}" % target)  # a copy
        elif k == 7 and target == "ns.k":
            out.append("{%% set ns.k = %s %%}" % l_expr(r, 1))
        else:
            out.append("{%% do %s.append(%s) %%}" % (x, rand_str(r)))
    show = r.choice([target, target, alias or target])
    k = r.randrange(5)
    if k == 0:
        out.append("{{ %s|join(%s) }}" % (show, r.choice(["", rand_str(r)])))
    elif k == 1:
        out.append("{{ %s[%d] }}" % (show, r.randint(-3, 3)))
    elif k == 2 and target == "ns.k":
        out.append("{{ ns.s }}")
    elif k == 3:
        out.append("{{ (%s + %s)|join }}" % (show, l_expr(r, 1)))
    else:
        out.append("{{ %s|join }}" % show)
    return "".join(out)


def gen_capture(r):
    """A block assignment: {% set x %}...{% endset %} (or {% set x | f %})
    holding text, {{ }} values, a {% filter %} block, whitespace control, a
    nested capture or a loop over a constant; then {{ x }} (or x used)."""
    def piece(depth):
        k = r.randrange(9)
        if k == 0:
            return r.choice(["__", "cla", "ss", "_", " ", "\t", "é", "中", "a b", "x"])
        if k == 1:
            return "{{ %s }}" % r.choice([s_expr(r, 1), rand_str(r), rand_int(r)])
        if k == 2 and depth < 2:
            f = r.choice(["upper", "lower", "trim", "capitalize", "title", "reverse",
                          "replace('a', 'b')", "string"])
            return "{%% filter %s %%}%s{%% endfilter %%}" % (f, piece(depth + 1) + piece(depth + 1))
        if k == 3:
            return r.choice(["{%- if true %}", "{% if true -%}"]) + piece(depth) + "{% endif %}"
        if k == 4 and depth < 2:
            return "{%% set y %%}%s{%% endset %%}" % piece(depth + 1)
        if k == 5:
            return "{%% for c in %s %%}{{ c }}{%% endfor %%}" % r.choice(["'ab'", "[1, 2]", "range(3)"])
        if k == 6:
            return r.choice(["  ", "\t  ", " x "])
        if k == 7:
            return r.choice(["{{- 'a' }}", "{{ 'b' -}}", "{#- c -#}", "{# d #}"])
        return r.choice(["_", "_c", "l", "a", "ss", "__"])
    body = "".join(piece(0) for _ in range(r.randint(1, 4)))
    head = r.choice(["{% set x %}", "{%- set x %}", "{% set x -%}", "{% set x | upper %}",
                     "{% set x | trim %}", "{% set x | lower | trim %}"])
    tail = r.choice(["{% endset %}", "{%- endset %}", "{% endset -%}"])
    show = r.choice(["{{ x }}", "{{ x ~ '!' }}", "{{ x|length }}", "{{ x[1:] }}", "{{ y }}"])
    return head + body + tail + show


# code points around the edges: printable, controls, surrogates, the last
# one and past it, negative, huge
CPS = [95, 97, 65, 122, 48, 32, 0, 10, 127, 128, 255, 256, 0x4E2D, 0xD800, 0xFFFF, 0x1F600,
       0x10FFFF, 0x110000, -1, 2**31, 2**63 - 1]


def rand_cp(r):
    if r.random() < 0.7:
        return str(r.choice(CPS[:9]) if r.random() < 0.7 else r.choice(CPS))
    return i_expr(r, 1)


def rand_val(r):
    return r.choice([rand_str(r), rand_int(r), s_expr(r, 1), rand_cp(r)])


def gen_format(r):
    """str.format conversions and specs, printf forms: the c conversions
    ('{0:c}', '%c') over code points, widths, !r / !s / !a, several
    arguments, index and attribute fields, keyword and mapping forms."""
    k = r.randrange(16)
    v = lambda: rand_val(r)
    if k == 0:
        return "'{0:c}'.format(%s)" % rand_cp(r)
    if k == 1:
        return "'%s'.format(%s, %s)" % (r.choice(["{:c}{:c}", "{0:c}{1:c}", "{1:c}{0:c}", "{0:c}{0}",
                                                  "{:>3c}", "{:*^5c}", "{!s:c}"]),
                                        rand_cp(r), rand_cp(r))
    if k == 2:
        return "'%s'.format(%s)" % (r.choice(["{:>5}", "{:<5}|", "{:^6}", "{:*>7}", "{:05}",
                                              "{:=+6}", "{:>{}}", "{0:>10}", "{:.2}", "{:.3s}",
                                              "{:,}", "{:_x}", "{:#o}", "{:+d}", "{: d}",
                                              "{:08.3f}", "{:e}", "{:%}", "{:n}", "{:x}"]),
                                    ", ".join(v() for _ in range(r.randint(1, 2))))
    if k == 3:
        return "'%s'.format(%s)" % (r.choice(["{!r}", "{0!r}", "{!s}", "{!a}", "{0!r:>12}",
                                              "{!r}{!s}", "{0!a:^9}", "{!x}", "{!}"]),
                                    ", ".join(v() for _ in range(r.randint(1, 2))))
    if k == 4:
        return "'%s' %% %s" % (r.choice(["%c", "%c%c", "%3c", "%-3c|", "x%cy"]),
                               r.choice([rand_cp(r), "(%s,)" % rand_cp(r),
                                         "(%s, %s)" % (rand_cp(r), rand_cp(r)), rand_str(r)]))
    if k == 5:
        return "'%s' %% %s" % (r.choice(["%05d", "%-5d|", "%+.3d", "%x", "%#X", "%o", "%5.2s",
                                         "%.1s", "%05s", "% d", "%3i", "%u", "%-+6d", "%.0d",
                                         "%r", "%a", "%5%"]),
                               r.choice([rand_int(r), rand_str(r), rand_cp(r), i_expr(r, 2)]))
    if k == 6:
        return "'%s' %% (%s, %s)" % (r.choice(["%s%s", "%s-%s", "%d%s", "%s%d", "%c%s",
                                               "%%%s%s", "%s", "%s%s%s"]), v(), v())
    if k == 7:
        return "'%s' %% %s" % (r.choice(["%(a)s", "%(a)s%(b)s", "%(b)d", "%(a)c", "%(a)s%%"]),
                               d_expr(r, 1))
    if k == 8:
        return "'%s'.format(%s)" % (r.choice(["{a}", "{a}{b}", "{b!r}", "{a:c}", "{0}{a}"]),
                                    ", ".join(r.choice(["a=%s", "b=%s", "%s"]) % v()
                                              for _ in range(r.randint(1, 3))))
    if k == 9:
        return "'%s'.format(%s)" % (r.choice(["{0[0]}", "{0[1]}{0[0]}", "{0.__class__}",
                                              "{0.upper}", "{[0]}", "{0[a]}", "{0[-1]}"]), v())
    if k == 10:
        return "'%s'|format(%s)" % (r.choice(["%c", "%05d", "%s%s", "%c%c", "%x", "%-4s|"]),
                                    ", ".join(v() for _ in range(r.randint(1, 2))))
    if k == 11:
        return "'{0:{1}}'.format(%s, %s)" % (v(), r.choice(["5", "'>6'", "'c'", "0", "-3"]))
    if k == 12:
        return "(%s).format(%s)" % (s_expr(r, 2), v())
    if k == 13:
        return "('%s' %% %s) ~ ('{0:c}'.format(%s))" % (r.choice(["%c", "%s"]), rand_cp(r),
                                                      rand_cp(r))
    if k == 14:
        return "'%s'.format(%s)|upper" % (r.choice(["{:c}", "{}", "{!r}"]), rand_cp(r))
    return "('%%c' %% %s)[0]" % rand_cp(r)


def gen_dict(r):
    """dict(a=..., b=...) and dict literals seen through |first, |list,
    |items, |join, |sort, |length, .keys() / .values() / .items(), and as
    a variable."""
    d = d_expr(r, 1)
    views = [lambda: "%s|first" % d,
             lambda: "%s|list|join(%s)" % (d, r.choice(["", "','", "'__'"])),
             lambda: "%s|items|list|length" % d,
             lambda: "%s|join(%s)" % (d, r.choice(["", "'-'"])),
             lambda: "%s|sort|join" % d,
             lambda: "%s|length" % d,
             lambda: "%s.keys()|join" % d,
             lambda: "%s.values()|join" % d,
             lambda: "(%s.items()|list|first)[%d]" % (d, r.randint(0, 1)),
             lambda: "(%s|items|first)|join" % d,
             lambda: "%s|list|last" % d,
             lambda: "%s|dictsort|first|first" % d,
             lambda: "%s|first|upper" % d,
             lambda: "(%s|list)[%d:]|join" % (d, r.randint(-2, 2)),
             lambda: "%s|list|sort|join" % d,
             lambda: "%s|first ~ %s|last" % (d, d_expr(r, 1)),
             lambda: "%s[%s]" % (d, r.choice(["'a'", "'b'", "'__class__'", "0", "65"])),
             lambda: "%s|list|first ~ '_'" % d]
    e = views[r.randrange(len(views))]()
    if r.random() < 0.3:
        return "{%% set d = %s %%}{{ %s }}" % (d, e.replace(d, "d", 1))
    return e


def loop_body(r, var, kind):
    """An expression of the loop variable var (an int for range(), a
    character for a string, an item for a list)."""
    k = r.randrange(16)
    if k == 0:
        return var
    if kind == "int":
        if k == 1:
            return "'%%c' %% (%s + %s)" % (r.choice(["97", "65", "95", "48", "0x4E2D", "1114110",
                                                     "-3", "55295"]), var)
        if k == 2:
            return "'{0:c}'.format(%s + %s)" % (r.choice(["97", "65", "95"]), var)
        if k == 3:
            return "%s[%s]" % (rand_str(r), var)
        if k == 4:
            return "(%s * %s)|string" % (var, r.choice(["2", "-1", "10"]))
        if k == 5:
            return "%s ~ %s" % (var, rand_str(r))
        if k == 6:
            return "'%%02d' %% %s" % var
        if k == 7:
            return "%s ** 2" % var
        if k == 8:
            return "%s[%s]" % (l_expr(r, 1), var)
    else:
        if k == 1:
            return "%s|upper" % var
        if k == 2:
            return "%s.upper()" % var
        if k == 3:
            return "%s ~ %s" % (var, rand_str(r))
        if k == 4:
            return "%s * 2" % var
        if k == 5:
            return "%s[%s]" % ("'nopqrstuvwxyzabcdefghijklm'", "'abcdefghijklmnopqrstuvwxyz'.index(%s)" % var)
        if k == 6:
            return "'%%s.' %% %s" % var
        if k == 7:
            return "%s|replace('a', '_')" % var
        if k == 8:
            return "(%s)|reverse" % var
    if k == 9:
        return "loop.index"
    if k == 10:
        return r.choice(["loop.index0", "loop.revindex", "loop.length", "loop.revindex0"])
    if k == 11:
        return r.choice(["loop.first", "loop.last", "loop.cycle('a', 'b')", "loop.previtem"])
    if k == 12:
        return "'%%s' %% %s" % var
    if k == 13:
        return "%s|string" % var
    if k == 14:
        return "%s + %s" % (var, r.choice(["1", "'x'"]))
    return "%s ~ ''" % var


def loop_iter(r):
    k = r.randrange(8)
    if k < 3:
        return "int", r.choice(["range(%d)" % r.randint(0, 6), "range(%d, %d)" % (r.randint(-3, 3),
                                r.randint(-2, 8)), "range(%d, %d, %d)" % (r.randint(-5, 5),
                                r.randint(-5, 9), r.choice([1, 2, 3, -1, -2, 0])),
                                "range(%s)" % i_expr(r, 1), "range(300)", "range(0x3)"])
    if k < 5:
        return "char", r.choice(["'uryyb'", "'abc'", "'vtaber'", "''", "'é中😀'", "'a_b'"])
    if k < 6:
        return "char", "%s|list" % r.choice(["'xyz'", "'__'"])
    if k < 7:
        return "item", l_expr(r, 1)
    return "int", "[%s]" % ", ".join(str(r.choice(CPS[:12])) for _ in range(r.randint(0, 4)))


def gen_loop(r):
    """A loop over a constant ({% for i in range(k) %}, a string, a list)
    whose body prints one expression of the loop variable: the whole render
    is the items joined. Also inside a capture, and a namespace extended
    by the items in the loop."""
    kind, it = loop_iter(r)
    var = r.choice(["i", "c"])
    body = loop_body(r, var, kind)
    k = r.randrange(8)
    tail = "{% endfor %}"
    if r.random() < 0.15:  # a loop filter: some items are skipped
        it += r.choice([" if %s != 'b'" % var, " if %s" % var, " if loop.index > 1",
                        " if %s != 2" % var])
    if r.random() < 0.1:  # the loop's else: its variable is undefined there
        tail = "{%% else %%}{{ %s }}{%% endfor %%}" % r.choice([var, "'e'", body])
    loop = "{%% for %s in %s %%}{{ %s }}%s" % (var, it, body, tail)
    if k == 0:
        return "{%% set x %%}%s{%% endset %%}{{ x }}" % loop
    if k == 1:
        init = r.choice(["''", "'>'", rand_str(r)])
        op = r.choice(["ns.t ~ " + var, var + " ~ ns.t", "ns.t + " + var, "ns.t ~ (%s)" % body])
        return ("{%% set ns = namespace(t=%s) %%}{%% for %s in %s %%}{%% set ns.t = %s %%}"
                "{%% endfor %%}{{ ns.t }}" % (init, var, it, op))
    if k == 2:
        return "{%% set tbl = %s %%}{%% for %s in %s %%}{{ tbl[%s] }}{%% endfor %%}" % (
            rand_str(r), var, it, var)
    if k == 3:
        return "{%% for k, v in %s|items %%}{{ %s }}{%% endfor %%}" % (
            d_expr(r, 1), r.choice(["k", "v", "k ~ v", "k|upper", "'%s' % v"]))
    if k == 4:  # nested: the inner loop's items are printed once per outer turn
        _, it2 = loop_iter(r)
        nest = "{%% for j in %s %%}%s%s{%% endfor %%}" % (
            it2, r.choice(["", "{{ j }}", "/", "{% set q %}{{ j }}{% endset %}"]), loop)
        if r.random() < 0.6:
            return "{%% set x %%}%s{%% endset %%}{{ x }}" % nest
        return nest
    if k == 5:  # a {% set %} capture around a loop with text and several values
        return ("{%% set x %%}%s{%% for %s in %s %%}%s{{ %s }}%s{{ %s }}{%% endfor %%}%s"
                "{%% endset %%}{{ x }}" % (r.choice(["", "<", "{{ '>' }}"]), var, it,
                                           r.choice(["", "-", " "]), body,
                                           r.choice(["", ",", "{{- ' ' }}"]),
                                           loop_body(r, var, kind), r.choice(["", "!"])))
    if k == 6:  # state that lasts across turns (a namespace, a list) or a shadowed variable
        pre, mid = r.choice([
            ("{% set ns = namespace(t='i') %}", "{{ ns.t }}{% set ns.t = ns.t ~ 'q' %}"),
            ("{% set ns = namespace(t='i') %}", "{% set ns.t = %s %%}{{ ns.t }}" % var
             if False else "{%% set ns.t = %s|string %%}{{ ns.t }}" % var),
            ("{% set l = [] %}", "{{ l|join }}{%% do l.append(%s) %%}" % var),
            ("{% set y = 'z' %}", "[{{ y }}]{%% set y = %s %%}" % var),
            ("", "{%% for %s in 'xy' %%}{{ %s }}{%% endfor %%}{{ %s }}" % (var, var, var)),
        ])
        return "%s{%% set x %%}{%% for %s in %s %%}%s{%% endfor %%}{%% endset %%}{{ x }}" % (
            pre, var, it, mid)
    return loop


def gen_capture2(r):
    """{% set x %} captures mixing text, {{ }} values (format forms, dict
    names) and {% filter upper/lower/trim/replace(...) %} blocks, nested;
    then x printed or used."""
    def piece(depth):
        k = r.randrange(7)
        if k == 0:
            return r.choice(["__", "cla", "ss", "_", " ", "\t", "Ab", "  x  ", "{", "}", "%"])
        if k == 1:
            return "{{ %s }}" % r.choice([gen_format(r), "%s|first" % d_expr(r, 1), rand_str(r)])
        if k in (2, 3) and depth < 3:
            f = r.choice(["upper", "lower", "trim", "replace('_', '')", "replace('a', '__')",
                          "replace(' ', '')", "title", "capitalize", "center(9)", "reverse",
                          "trim|upper", "lower|replace('x', 'y')", "list|join('.')",
                          "indent(2)", "wordcount", "length"])
            return "{%% filter %s %%}%s{%% endfilter %%}" % (
                f, "".join(piece(depth + 1) for _ in range(r.randint(1, 3))))
        if k == 4 and depth < 2:
            return "{%% set y %%}%s{%% endset %%}{{ y }}" % piece(depth + 1)
        if k == 5:
            return r.choice(["{%- if 1 %}", "{% if '' %}", "{% if true -%}"]) + piece(depth) + \
                "{% endif %}"
        return r.choice(["{{- ' ' }}", "{{ '_' -}}", "{#- c -#}", "{{ 95 }}"])
    body = "".join(piece(0) for _ in range(r.randint(1, 5)))
    head = r.choice(["{% set x %}", "{%- set x %}", "{% set x -%}", "{% set x | replace('_', '') %}",
                     "{% set x | upper %}", "{% set x | trim | lower %}"])
    show = r.choice(["{{ x }}", "{{ x|trim }}", "{{ x|length }}", "{{ x[2:] }}", "{{ x * 2 }}",
                     "{{ x ~ x }}", "{{ x.upper() }}", "{{ x|replace('_', '-') }}"])
    return head + body + r.choice(["{% endset %}", "{%- endset %}"]) + show


# (form, its share of the cases, generator); the forms of STRICT are built so
# that every computation in them reaches the printed value: a case Jinja
# raises on (at render time) must not fold at all
FORMS = [("string", 0.50, lambda r: s_expr(r, r.randint(1, 4))),
         ("int", 0.08, lambda r: i_expr(r, r.randint(1, 4))),
         ("list", 0.03, lambda r: l_expr(r, 2)),
         ("capture", 0.05, gen_capture),
         ("statements", 0.05, gen_stmts),
         ("format", 0.08, gen_format),
         ("dict", 0.06, gen_dict),
         ("loop", 0.08, gen_loop),
         ("capture-filter", 0.07, gen_capture2)]
STRICT = {"format", "dict", "loop", "capture-filter"}
# errors raised before rendering (the template does not compile: nothing
# renders, so nothing is hidden), and the memory cap of this process
COMPILE_ERRORS = {"TemplateSyntaxError", "TemplateAssertionError", "MemoryError"}


def gen(r):
    """(form, case)"""
    k = r.random()
    for name, share, fn in FORMS:
        if k < share:
            return name, fn(r)
        k -= share
    return FORMS[0][0], FORMS[0][2](r)


# --------------------------------------------------------------- oracle

class ListMutableSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox, except that list.append / extend / insert may
    be called: the statement cases fold exactly those mutators (Jinja's
    plain SandboxedEnvironment allows them too; nothing else is opened)."""

    def is_safe_attribute(self, obj, attr, value):
        if isinstance(obj, list) and attr in ("append", "extend", "insert"):
            return SandboxedEnvironment.is_safe_attribute(self, obj, attr, value)
        return super().is_safe_attribute(obj, attr, value)


def render(env, expr):
    try:
        if expr.startswith("{%"):  # a whole template (gen_stmts, gen_capture)
            out = env.stmt_env.from_string(expr).render()
            return ("ok", out.encode("utf-8"))
        out = env.from_string("{{ " + expr + " }}").render()
        return ("ok", out.encode("utf-8"))
    except Exception as e:  # any render or encoding error
        return ("err", type(e).__name__)


def classify(expr):
    """A coarse class for a mismatching expression: its outermost operation."""
    e = expr.strip()
    if e.startswith("{%"):
        if "endset" in e:
            return "capture" + (" filter" if "filter" in e or "| " in e else "")
        for tok in (".append", ".extend", ".insert", "namespace", "|list"):
            if tok in e:
                return "statements " + tok
        return "statements"
    for tok in ("|format", ".format", "|replace", ".replace", "|join", ".join", "|title",
                ".title", "|trim", ".strip", "|capitalize", "|reverse", "|first", "|last",
                "|upper", "|lower", "|string", "|center", " % ", " ** ", " // ", " ~ ", " + ",
                " * ", "[", "-"):
        if tok in e:
            return tok.strip() or tok
    return "literal"


def fold_batch(tool, exprs, preexec, hangs, limit=60.0):
    """The tool's answer per expression. A batch that takes longer than
    `limit` seconds is split until the slow expressions are found: they are
    recorded in `hangs` (the folder must be linear) and answered "U"."""
    data = "".join(e + "\n" for e in exprs).encode("utf-8")
    try:
        res = subprocess.run([tool], input=data, stdout=subprocess.PIPE, check=True,
                             preexec_fn=preexec, timeout=limit * max(1, len(exprs) // 1000))
        return res.stdout.decode("ascii").splitlines()
    except subprocess.TimeoutExpired:
        if len(exprs) == 1:
            hangs.append(exprs[0])
            return ["U"]
        half = len(exprs) // 2
        return (fold_batch(tool, exprs[:half], preexec, hangs, limit) +
                fold_batch(tool, exprs[half:], preexec, hangs, limit))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True, help="tests/tools/tpl_fold binary")
    ap.add_argument("--cases", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--show", type=int, default=5, help="examples printed per mismatch class")
    ap.add_argument("--show-unknown", type=int, default=0,
                    help="also print this many expressions Jinja renders but the folder leaves "
                         "unknown, and folded ones Jinja rejects")
    ap.add_argument("--form", help="print only this form's unknowns (with --show-unknown)")
    args = ap.parse_args()

    warnings.simplefilter("ignore")  # Python's SyntaxWarnings on compiled templates
    # 'ab' * 2**31 would allocate 4 GiB: cap this process's memory so Jinja2
    # raises MemoryError instead (the machine is shared)
    # (the soft limit only: the tool gets its own back, ASan maps terabytes)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = 1 << 30
    if soft == resource.RLIM_INFINITY or soft > cap:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))

    def unlimited():
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    env = ImmutableSandboxedEnvironment()
    env.stmt_env = ListMutableSandbox(extensions=["jinja2.ext.do"])
    r = random.Random(args.seed)
    stats = collections.Counter()
    forms = collections.defaultdict(collections.Counter)
    mismatches = collections.defaultdict(list)
    unknowns, raises, hangs = [], [], []
    t0 = time.time()
    done = 0
    while done < args.cases:
        n = min(args.batch, args.cases - done)
        cases = [gen(r) for _ in range(n)]
        exprs = [e for _, e in cases]
        lines = fold_batch(args.tool, exprs, unlimited, hangs)
        if len(lines) != n:
            print("template-oracle: the tool answered %d lines for %d expressions"
                  % (len(lines), n))
            return 2
        for (form, expr), line in zip(cases, lines):
            status, val = render(env, expr)
            if line == "U":
                stats["unknown, jinja renders" if status == "ok" else "unknown, jinja raises"] += 1
                forms[form]["declined"] += 1
                if status == "ok" and len(unknowns) < args.show_unknown and \
                        (not args.form or form == args.form):
                    unknowns.append((expr, val))
                continue
            mine = bytes.fromhex(line[2:])
            if status != "ok":
                if form in STRICT and val not in COMPILE_ERRORS:
                    stats["MISMATCH"] += 1  # a value where Jinja has none
                    forms[form]["wrong"] += 1
                    mismatches["%s: folded, jinja raises %s" % (form, val)].append(
                        (expr, mine, val.encode()))
                    continue
                stats["folded, jinja raises (%s)" % val] += 1
                forms[form]["folded, jinja raises"] += 1
                if len(raises) < args.show_unknown:
                    raises.append((expr, val, mine))
                continue
            if mine == val:
                stats["equal"] += 1
                forms[form]["folded"] += 1
            else:
                stats["MISMATCH"] += 1
                forms[form]["wrong"] += 1
                mismatches[form + ": " + classify(expr)].append((expr, mine, val))
        done += n
    dt = time.time() - t0
    print("template-oracle: %d cases, seed %d, %.1f s" % (done, args.seed, dt))
    for k, v in sorted(stats.items(), key=lambda kv: -kv[1]):
        print("  %-44s %9d" % (k, v))
    print("  by form: %-14s %9s %9s %9s %9s" % ("", "cases", "folded", "declined", "wrong"))
    for name, _, _ in FORMS:
        c = forms[name]
        print("           %-14s %9d %9d %9d %9d" % (name, sum(c.values()), c["folded"],
                                                   c["declined"] + c["folded, jinja raises"],
                                                   c["wrong"]))
    for expr, val in unknowns:
        print("  unknown: {{ %s }} -> %r" % (expr, val))
    for expr, val, mine in raises:
        print("  raises %s: {{ %s }} (folded to %r)" % (val, expr, mine))
    for expr in hangs:
        print("  HANG (the folder took over a minute): {{ %s }}" % expr)
    if hangs:
        stats["HANG"] = len(hangs)
    if mismatches or hangs:
        print("mismatch classes:")
        for cls, items in sorted(mismatches.items(), key=lambda kv: -len(kv[1])):
            print("  [%s] %d" % (cls, len(items)))
            for expr, mine, val in items[:args.show]:
                print("    {{ %s }}\n      gguflint %r\n      jinja2   %r" % (expr, mine, val))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

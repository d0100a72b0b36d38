#!/usr/bin/env python3
"""Differential oracle for the template folder.

Generates random Jinja expressions over literals (slices with extreme and
negative bounds and steps, integer arithmetic, ~ + * % // **, string methods
and filters, % / .format / |format / |replace / |join / |reverse builders,
case filters, lists and tuples), asks the folder what it computes
(tests/tools/tpl_fold: "K <hex>" or "U" per expression) and renders the same
"{{ EXPR }}" with real Jinja2 - only ever in
jinja2.sandbox.ImmutableSandboxedEnvironment. The folder's value must equal
Jinja2's, or be unknown; it must never be wrong.

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


def gen(r):
    k = r.random()
    if k < 0.68:
        return s_expr(r, r.randint(1, 4))
    if k < 0.80:
        return i_expr(r, r.randint(1, 4))
    if k < 0.84:
        return l_expr(r, 2)
    if k < 0.92:
        return gen_capture(r)
    return gen_stmts(r)


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
    mismatches = collections.defaultdict(list)
    unknowns, raises, hangs = [], [], []
    t0 = time.time()
    done = 0
    while done < args.cases:
        n = min(args.batch, args.cases - done)
        exprs = [gen(r) for _ in range(n)]
        lines = fold_batch(args.tool, exprs, unlimited, hangs)
        if len(lines) != n:
            print("template-oracle: the tool answered %d lines for %d expressions"
                  % (len(lines), n))
            return 2
        for expr, line in zip(exprs, lines):
            status, val = render(env, expr)
            if line == "U":
                stats["unknown, jinja renders" if status == "ok" else "unknown, jinja raises"] += 1
                if status == "ok" and len(unknowns) < args.show_unknown:
                    unknowns.append((expr, val))
                continue
            mine = bytes.fromhex(line[2:])
            if status != "ok":
                stats["folded, jinja raises (%s)" % val] += 1
                if len(raises) < args.show_unknown:
                    raises.append((expr, val, mine))
                continue
            if mine == val:
                stats["equal"] += 1
            else:
                stats["MISMATCH"] += 1
                mismatches[classify(expr)].append((expr, mine, val))
        done += n
    dt = time.time() - t0
    print("template-oracle: %d cases, seed %d, %.1f s" % (done, args.seed, dt))
    for k, v in sorted(stats.items(), key=lambda kv: -kv[1]):
        print("  %-44s %9d" % (k, v))
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

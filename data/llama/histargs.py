"""histargs.py - the command line shared by histgen.py and histfacts.py:
positional arguments and --name=value options, exactly COUNT positionals or
the calling script's usage text."""


def split_args(argv, usage, count):
    """Return (positionals, {option: value}) or exit with usage."""
    args = [a for a in argv if not a.startswith('--')]
    opts = dict(a[2:].split('=', 1) for a in argv if a.startswith('--') and '=' in a)
    if len(args) != count:
        raise SystemExit(usage)
    return args, opts

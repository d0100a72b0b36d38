"""oracle.py - talk to the loader driver (driver.c) and to gguflint.

Oracle(driver) keeps one driver process; each request is a line, each
answer a verdict (OK, FAIL, SIGNAL, TIMEOUT) with the loader's message.
lint(paths, profile) runs gguflint once over many files and returns, per
file, the list of (rule id, severity, offset, message) it reported."""

import json
import subprocess
import zlib


class Verdict:
    __slots__ = ('kind', 'signal', 'msg')

    def __init__(self, line):
        parts = line.rstrip('\n').split('\t')
        self.kind = parts[0]
        self.signal = parts[1] if self.kind == 'SIGNAL' and len(parts) > 1 else ''
        self.msg = parts[-1] if len(parts) > 1 else ''

    @property
    def ok(self):
        return self.kind == 'OK'

    @property
    def crash(self):
        return self.kind in ('SIGNAL', 'TIMEOUT')

    def __str__(self):
        if self.kind == 'OK':
            return 'OK'
        if self.kind == 'SIGNAL':
            return 'SIGNAL %s: %s' % (self.signal, self.msg)
        return '%s: %s' % (self.kind, self.msg)


class Oracle:
    def __init__(self, driver, timeout=20, as_limit_mb=4096):
        self.cmd = [driver, '--timeout', str(timeout), '--as-limit-mb', str(as_limit_mb)]
        self.proc = None
        self.requests = 0

    def _start(self):
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def ask(self, *fields):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.requests += 1
        self.proc.stdin.write('\t'.join(str(f) for f in fields) + '\n')
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            self.proc = None
            return Verdict('FAIL\tORACLE: the driver died')
        return Verdict(line)

    def model(self, path):
        return self.ask('model', path)

    def decode(self, path):
        """The model loaded, a 16-token context made and one token decoded."""
        return self.ask('decode', path)

    def lora(self, base, adapter):
        return self.ask('lora', base, adapter)

    def mmproj(self, text, mmproj, warmup):
        return self.ask('mmproj', text, mmproj, '1' if warmup else '0')

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


def lint(gguflint, paths, profile='ggml', extra=()):
    """Findings per path: {path: [(id, severity, offset, message)]}."""
    out = {}
    step = 200
    for i in range(0, len(paths), step):
        chunk = paths[i:i + step]
        cmd = [gguflint, '--isolated', '--profile', profile, '--format', 'json', '--exit-zero',
               '--quiet'] + list(extra) + chunk
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        doc = json.loads(r.stdout)
        for f in doc.get('files', []):
            out[f.get('path')] = [(x.get('rule') or x.get('id'), x.get('severity'), x.get('offset'),
                                   x.get('message')) for x in f.get('findings', [])]
    return out


def sampled(key, rate):
    """A deterministic share `rate` of the mutants, chosen by their names."""
    return rate >= 1.0 or (zlib.crc32(key.encode()) % 1000) < rate * 1000

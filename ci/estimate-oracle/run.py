#!/usr/bin/env python3
"""run.py - the estimate oracle (issue 27 part 2): build models of several
architectures with the loader oracle's generator (ci/loader-oracle/repair.py,
driven by llama.cpp's own loader messages), seeded with the hyper-parameters
each case exercises (grouped-query heads, sliding windows, MLA, recurrent and
hybrid layers); load each with llama.cpp (driver.cpp), create a context of
N tokens and compare the buffer sizes llama.cpp reports with
`gguflint estimate --format json`.

Tolerances (relative): weights and the memory module (KV cache + recurrent
state, exact bytes from llama_get_memory_breakdown) 1 %; K and V separately
against llama.cpp's log lines (MiB with 2 decimals) 1 % or 0.01 MiB; the
compute buffer is a rough estimate: 50 %. When llama.cpp crashes building
the graph of a generated model after making its memory, its log lines' K,
V, R and S are compared (1 % or 0.01 MiB). Exit 1 when a case is outside a
tolerance or cannot be built; the table goes to OUT/report.md and stdout."""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'loader-oracle'))
import ggufw  # noqa: E402
import oracle  # noqa: E402
import repair  # noqa: E402

# Kimi's KDA layers (head_count_kv 0) beside one MLA layer
KDA = {'attention.head_count_kv': (('array', 'i32'), [0, 1]),
       'attention.kv_lora_rank': ('u32', 32), 'rope.dimension_count': ('u32', 16),
       'attention.key_length': ('u32', 48), 'attention.value_length': ('u32', 32),
       'attention.key_length_mla': ('u32', 32), 'attention.value_length_mla': ('u32', 16),
       'kda.head_dim': ('u32', 16), 'ssm.conv_kernel': ('u32', 4)}
# name, architecture, keys set before the repair (suffix after "ARCH."; "tensor:NAME" adds the
# optional tensor NAME (%d: the layer) to every layer), n_ctx, cache type K/V
CASES = [
    ('llama-gqa', 'llama', {'attention.head_count_kv': ('u32', 1)}, 8192, 'f16', 'f16'),
    ('llama-q8k', 'llama', {'attention.head_count': ('u32', 2), 'attention.head_count_kv': ('u32', 1),
                            'rope.dimension_count': ('u32', 32)}, 8192, 'q8_0', 'f16'),
    ('qwen2', 'qwen2', {'attention.head_count_kv': ('u32', 2)}, 8192, 'f16', 'f16'),
    ('gemma2-swa', 'gemma2', {}, 8192, 'f16', 'f16'),
    ('gemma3-swa', 'gemma3', {'block_count': ('u32', 6), 'attention.sliding_window': ('u32', 512),
                              'attention.head_count_kv': ('u32', 2)}, 8192, 'f16', 'f16'),
    ('deepseek2-mla', 'deepseek2', {'attention.head_count_kv': ('u32', 1),
                                    'attention.kv_lora_rank': ('u32', 32),
                                    'rope.dimension_count': ('u32', 16),
                                    'attention.key_length': ('u32', 48),
                                    'attention.value_length': ('u32', 32),
                                    'attention.key_length_mla': ('u32', 32),
                                    'attention.value_length_mla': ('u32', 16),
                                    'leading_dense_block_count': ('u32', 1)}, 8192, 'f16', 'f16'),
    ('mamba', 'mamba', {}, 4096, 'f16', 'f16'),
    ('mamba2', 'mamba2', {}, 4096, 'f16', 'f16'),
    ('cohere2-swa', 'cohere2', {'block_count': ('u32', 4), 'attention.sliding_window': ('u32', 256)},
     8192, 'f16', 'f16'),
    ('gpt-oss-swa', 'gpt-oss', {'attention.sliding_window': ('u32', 128)}, 8192, 'f16', 'f16'),
    ('lfm2-hybrid', 'lfm2', {'attention.head_count_kv': (('array', 'i32'), [0, 4])}, 8192, 'f16',
     'f16'),
    ('falcon-h1-hybrid', 'falcon-h1', {}, 8192, 'f16', 'f16'),
    ('nemotron_h-hybrid', 'nemotron_h', {'block_count': ('u32', 3),
                                         'attention.head_count_kv': (('array', 'i32'), [0, 4, 0]),
                                         'feed_forward_length': (('array', 'i32'), [0, 0, 128])},
     8192, 'f16', 'f16'),
    ('qwen3next-hybrid', 'qwen3next', {'block_count': ('u32', 4),
                                       'full_attention_interval': ('u32', 4)}, 8192, 'f16', 'f16'),
    ('granitehybrid', 'granitehybrid', {'attention.head_count_kv': (('array', 'i32'), [0, 4])},
     8192, 'f16', 'f16'),
    ('jamba-hybrid', 'jamba', {'attention.head_count_kv': (('array', 'i32'), [0, 4])}, 8192,
     'f16', 'f16'),
    ('rwkv6', 'rwkv6', {'wkv.head_size': ('u32', 16),
                        'tensor:blk.%d.time_mix_lerp_fused.weight': (None, None)}, 4096, 'f16',
     'f16'),
    ('rwkv6qwen2', 'rwkv6qwen2', {'wkv.head_size': ('u32', 16), 'token_shift_count': ('u32', 1)},
     4096, 'f16', 'f16'),
    ('rwkv7', 'rwkv7', {'wkv.head_size': ('u32', 16), 'attention.gate_lora_rank': ('u32', 8)},
     4096, 'f16', 'f16'),
    ('arwkv7', 'arwkv7', {'wkv.head_size': ('u32', 16), 'token_shift_count': ('u32', 1)}, 4096,
     'f16', 'f16'),
    ('kimi-linear-kda', 'kimi-linear', dict(KDA), 8192, 'f16', 'f16'),
    ('bailingmoe3-kda', 'bailingmoe3', dict(KDA), 8192, 'f16', 'f16'),
    ('kimi-k3-kda', 'kimi-k3', dict(KDA), 8192, 'f16', 'f16'),
    ('minimax-01-la', 'minimax-01', {}, 8192, 'f16', 'f16'),
    ('minimax-01-la8', 'minimax-01', {'attention.head_count': ('u32', 8),
                                      'attention.head_count_kv': ('u32', 8),
                                      'embedding_length': ('u32', 128)}, 8192, 'f16', 'f16'),
    ('minimax-01-hybrid', 'minimax-01', {'block_count': ('u32', 3),
                                         'full_attention_interval': ('u32', 3),
                                         'attention.key_length': ('u32', 32)}, 8192, 'f16', 'f16'),
]
TYPE_IDS = {'f32': 0, 'f16': 1, 'q8_0': 8, 'q4_0': 2}
TOL = {'weights': 0.01, 'memory': 0.01, 'kv': 0.01, 'compute': 0.50}


def seeded(orig, overrides):
    def start(arch):
        model = orig(arch)
        for suffix, (vt, v) in overrides.items():
            if suffix.startswith('tensor:'):  # a tensor of every layer (%d), shaped by the repair
                for il in range(repair.n_layer(model)):
                    model['tensors'].append([suffix[7:] % il, [1], 'F32'])
                continue
            key = arch + '.' + suffix
            i = repair.kv_index(model, key)
            row = [key, vt, v]
            if i >= 0:
                model['kvs'][i] = row
            else:
                model['kvs'].append(row)
        return model
    return start


def rel(est, ref):
    if ref == 0:
        return 0.0 if est == 0 else float('inf')
    return abs(est - ref) / ref


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--loader-driver', required=True)
    ap.add_argument('--driver', required=True)
    ap.add_argument('--gguflint', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--cases', default='')
    args = ap.parse_args()
    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    o = oracle.Oracle(args.loader_driver)
    orig = repair.start
    rows, bad, partial_rows = [], [], []
    for name, arch, over, n_ctx, tk, tv in CASES:
        if args.cases and name not in args.cases.split(','):
            continue
        d = os.path.join(args.out, name)
        os.makedirs(d, exist_ok=True)
        repair.start = seeded(orig, over)
        try:
            model, verdict, steps = repair.build(o, arch, d)
        finally:
            repair.start = orig
        if not verdict.ok:
            bad.append('%s: not built (%s)' % (name, verdict))
            continue
        path = os.path.join(d, 'model.gguf')
        ggufw.write(path, model)
        cmd = [args.driver, path, str(n_ctx), '2048', '512', str(TYPE_IDS[tk]), str(TYPE_IDS[tv])]
        lines = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=120).stdout.strip().splitlines()
        ref = json.loads(lines[-1]) if lines else {'ok': False, 'error': 'the driver crashed'}
        partial = not ref.get('ok') and ref.get('partial')
        if not ref.get('ok') and not partial:
            bad.append('%s: llama.cpp: %s' % (name, ref.get('error')))
            continue
        out = subprocess.run([args.gguflint, 'estimate', '--format', 'json', '--ctx', str(n_ctx),
                              '--cache-type-k', tk, '--cache-type-v', tv, path],
                             capture_output=True, text=True, timeout=60)
        est = json.loads(out.stdout)['estimate']
        mem = est['kv_cache']['bytes'] + est['recurrent']['bytes']
        mib = 1048576.0
        k, v = est['kv_cache']['k_bytes'] / mib, est['kv_cache']['v_bytes'] / mib
        if partial:
            # llama.cpp crashed building the graph of the generated model, after
            # making its memory: only the log lines' K, V, R, S (MiB, 2 decimals)
            r, s_ = est['recurrent']['r_bytes'] / mib, est['recurrent']['s_bytes'] / mib
            e = {f: (abs(x - ref[f]) / max(ref[f], 1e-9) if abs(x - ref[f]) > 0.01 else 0.0)
                 for f, x in (('k', k), ('v', v), ('r', r), ('s', s_))}
            fails = [f for f in e if e[f] > TOL['kv']]
            if fails:
                bad.append('%s: off in %s' % (name, ', '.join(fails)))
            partial_rows.append((name, arch, est['memory'], n_ctx, ref, k, v, r, s_, e,
                                 'FAIL' if fails else 'ok'))
            continue
        e = {
            'weights': rel(est['weights']['bytes'], ref['model_size']),
            'memory': rel(mem, ref['context']),
            'k': abs(k - ref['k']) / max(ref['k'], 1e-9) if abs(k - ref['k']) > 0.01 else 0.0,
            'v': abs(v - ref['v']) / max(ref['v'], 1e-9) if abs(v - ref['v']) > 0.01 else 0.0,
            'compute': rel(est['compute_bytes'], ref['compute']),
        }
        fails = [f for f, t in (('weights', TOL['weights']), ('memory', TOL['memory']),
                                ('k', TOL['kv']), ('v', TOL['kv']), ('compute', TOL['compute']))
                 if e[f] > t]
        if fails:
            bad.append('%s: off in %s' % (name, ', '.join(fails)))
        rows.append((name, arch, est['memory'], n_ctx, '%s/%s' % (tk, tv), ref['model_size'],
                     est['weights']['bytes'], ref['context'], mem, ref['compute'],
                     est['compute_bytes'], e, 'FAIL' if fails else 'ok'))
    o.close()
    lines = ['| case | arch | memory | n_ctx | K/V | weights llama.cpp | gguflint | err | '
             'KV+RS llama.cpp | gguflint | err | K err | V err | compute llama.cpp | gguflint | '
             'err | verdict |', '|' + '---|' * 17]
    for (name, arch, memk, n_ctx, kv, wr, we, mr, me, cr, ce, e, verdict) in rows:
        lines.append('| %s | %s | %s | %d | %s | %d | %d | %.2f %% | %d | %d | %.2f %% | %.2f %% | '
                     '%.2f %% | %d | %d | %.1f %% | %s |'
                     % (name, arch, memk, n_ctx, kv, wr, we, 100 * e['weights'], mr, me,
                        100 * e['memory'], 100 * e['k'], 100 * e['v'], cr, ce,
                        100 * e['compute'], verdict))
    if partial_rows:
        lines += ['', 'llama.cpp crashed building the graph of these generated models after '
                  'making their memory: its log lines only (MiB, 2 decimals)', '',
                  '| case | arch | memory | n_ctx | K MiB llama.cpp | gguflint | V | gguflint | '
                  'R | gguflint | S | gguflint | verdict |', '|' + '---|' * 13]
        for (name, arch, memk, n_ctx, ref, k, v, r, s_, e, verdict) in partial_rows:
            lines.append('| %s | %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | '
                         '%.2f | %s |' % (name, arch, memk, n_ctx, ref['k'], k, ref['v'], v,
                                          ref['r'], r, ref['s'], s_, verdict))
    text = '\n'.join(lines) + '\n'
    with open(os.path.join(args.out, 'report.md'), 'w') as f:
        f.write(text)
    print(text, end='')
    print('estimate-oracle: %d cases compared (%d from log lines only), %d problems, %.0f s'
          % (len(rows) + len(partial_rows), len(partial_rows), len(bad), time.time() - t0))
    for b in bad:
        print('  ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

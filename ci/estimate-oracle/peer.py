#!/usr/bin/env python3
"""peer.py - `gguflint estimate` beside gguf-parser-go's documented figures
(issue 27 part 2): for each public model whose hyper-parameters
gguf-parser-go's README prints (its ARCHITECTURE table: context, width,
GQA group, heads, layers, vocabulary), write a metadata-only GGUF with those
values (ci/loader-oracle/ggufw.py; one tiny tensor per layer, so the weights
are not compared) and compare gguflint's KV cache with the README's
"VRAM 0 / UMA" column (full offload with mmap: the KV cache plus small
buffers). The figures are facts quoted from gpustack/gguf-parser-go
README.md at d11cb35 (2025-07-01), the last revision whose tables give the
GQA group. Writes the table to stdout (README.md keeps a copy).

    peer.py --gguflint build-ci/gguflint"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'loader-oracle'))
import ggufw  # noqa: E402

GIB = 1024.0 ** 3
# model (README example), arch, n_ctx, embedding, GQA group, heads, layers, vocabulary,
# gguf-parser-go VRAM 0 UMA as printed, in bytes, and what else it holds
PEER = [
    ('DeepSeek-R1-Distill-Qwen-7B Q4_K_M', 'qwen2', 131072, 3584, 7, 28, 28, 152064,
     '7 GiB', 7 * GIB, ''),
    ('Qwen2.5-7B-Instruct Q8_0', 'qwen2', 131072, 3584, 7, 28, 28, 152064, '7 GiB', 7 * GIB, ''),
    ('Qwen2.5-72B-Instruct Q4_K_M', 'qwen2', 32768, 8192, 8, 64, 80, 152064, '10 GiB',
     10 * GIB, ''),
    ('openbuddy-llama3.3-70b Q4_0', 'llama', 131072, 8192, 8, 64, 80, 128256, '40 GiB',
     40 * GIB, ''),
    ('Llama 3.3 70B Q4_K_M (Ollama), ctx 2048', 'llama', 2048, 8192, 8, 64, 80, 128256,
     '640.52 MiB', 640.52 * 1048576, ''),
    ('Qwen2-VL-2B-Instruct f16 + mmproj f32', 'qwen2vl', 32768, 1536, 6, 12, 28, 151936,
     '3.35 GiB', 3.35 * GIB, 'with the projector'),
]


def model(arch, n_embd, gqa, n_head, n_layer, n_vocab):
    a = arch + '.'
    kvs = [['general.architecture', 'str', arch],
           [a + 'block_count', 'u32', n_layer], [a + 'embedding_length', 'u32', n_embd],
           [a + 'attention.head_count', 'u32', n_head],
           [a + 'attention.head_count_kv', 'u32', n_head // gqa],
           [a + 'vocab_size', 'u32', n_vocab]]
    tensors = [['blk.%d.attn_norm.weight' % i, [1], 'F32'] for i in range(n_layer)]
    return {'kvs': kvs, 'tensors': tensors}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--gguflint', required=True)
    args = ap.parse_args()
    lines = ['| model (gguf-parser-go README) | arch | n_ctx | KV heads x layers | gguf-parser-go '
             'VRAM UMA | gguflint KV cache | difference |', '|' + '---|' * 7]
    with tempfile.TemporaryDirectory() as d:
        for name, arch, n_ctx, n_embd, gqa, n_head, n_layer, n_vocab, shown, ref, extra in PEER:
            path = os.path.join(d, 'm.gguf')
            ggufw.write(path, model(arch, n_embd, gqa, n_head, n_layer, n_vocab))
            out = subprocess.run([args.gguflint, 'estimate', '--format', 'json', '--ctx',
                                  str(n_ctx), path], capture_output=True, text=True, timeout=60)
            kv = json.loads(out.stdout)['estimate']['kv_cache']['bytes']
            diff = 'larger: %s' % extra if extra else '%+.2f %%' % (100.0 * (kv - ref) / ref)
            lines.append('| %s | %s | %d | %d x %d | %s | %.2f GiB (%d bytes) | %s |'
                         % (name, arch, n_ctx, n_head // gqa, n_layer, shown, kv / GIB, kv, diff))
    print('\n'.join(lines))
    return 0


if __name__ == '__main__':
    sys.exit(main())

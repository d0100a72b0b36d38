/* tiny_llama.h - a complete, valid, tiny llama model in memory: every
 * hyper-parameter llama.cpp requires, a 16-token vocabulary, the full tensor
 * set of one block with the shapes the llama loader checks, and finite,
 * non-zero data. It lints clean under every check (structural and semantic,
 * --deep included), so it is the "valid" example and the clean input of the
 * CLI tests. */
#ifndef TINY_LLAMA_H
#define TINY_LLAMA_H

#include <stddef.h>
#include <stdint.h>

/* Caller frees. NULL on OOM. */
uint8_t *gb_tiny_llama(size_t *len);

#endif

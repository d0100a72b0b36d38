/* hf.h - hf://ORG/REPO[@REV][/PATH] references to the Hugging Face Hub:
 * parsing, the file URL they resolve to, and the listing of a repository's
 * .gguf files through the Hub's tree API (hf.c). Internal to the library. */
#ifndef GGUFLINT_NET_HF_H
#define GGUFLINT_NET_HF_H

#include "http.h"

enum { HF_NAME_MAX = 96, HF_REV_MAX = 256 };

/* The public Hub, used when $HF_ENDPOINT is not set. */
extern const char hf_default_endpoint[];

typedef struct hf_ref {
    char org[HF_NAME_MAX + 1];
    char repo[HF_NAME_MAX + 1];
    char rev[HF_REV_MAX + 1]; /* "main" when not given; may hold %XX escapes */
    char *path;               /* inside the repository (malloc'd), or NULL */
    bool is_file;             /* path ends in .gguf: one file, not a listing */
} hf_ref;

/* Parse a reference; false with the reason in err. hf_ref_free releases it. */
bool hf_parse(const char *s, hf_ref *r, char *err, size_t err_size);
void hf_ref_free(hf_ref *r);
/* A path inside a repository: no leading '/', no empty, "." or ".." part,
 * no control byte or backslash, at most 4096 bytes. */
bool hf_valid_path(const char *p, size_t n);

/* ENDPOINT/ORG/REPO/resolve/REV/PATH (PATH percent-encoded); malloc'd, NULL on NOMEM. */
char *hf_file_url(const char *endpoint, const hf_ref *r, const char *path);
/* hf://ORG/REPO@REV/PATH, the name a listed file is shown under; malloc'd. */
char *hf_display(const hf_ref *r, const char *path);

typedef struct hf_entry {
    char *path;    /* inside the repository */
    uint64_t size; /* as the listing says */
} hf_entry;

typedef struct hf_list {
    hf_entry *v;
    size_t n, cap;
} hf_list;

/* The .gguf files under r->path (or the whole repository), sorted by path,
 * each once, at one commit: r->rev is first replaced by the commit the Hub
 * says it names (so hf_display/hf_file_url of the entries pin it). Origin
 * headers in `o` go to the endpoint's origin only. */
net_status hf_list_repo(const char *endpoint, hf_ref *r, const net_options *o,
                        const net_transport *t, hf_list *out, uint64_t *bytes, uint64_t *requests,
                        char *err, size_t err_size);
void hf_list_free(hf_list *l);

#endif

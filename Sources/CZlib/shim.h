// Swift calls only the functions and constants below, never zlib's own names: on macOS
// <zlib.h> belongs to the SDK's `zlib` module, and what a header of another module declares
// is not reliably visible through `import CZlib`. These are CZlib's own, on every platform,
// and pass only C scalars and pointers: the z_stream lives on the C side.
#include <zlib.h>
#include <stdlib.h>
#include <string.h>

enum {
    CDI_Z_OK = Z_OK,
    CDI_Z_STREAM_END = Z_STREAM_END,
    CDI_Z_BUF_ERROR = Z_BUF_ERROR,
};

/// A raw-deflate (RFC 1951, no header) inflater, or NULL when zlib cannot start one.
static inline void *cdi_inflater_new(void) {
    z_stream *stream = calloc(1, sizeof(z_stream));
    if (stream == NULL) return NULL;
    if (inflateInit2(stream, -15) != Z_OK) { free(stream); return NULL; }
    return stream;
}

static inline void cdi_inflater_free(void *inflater) {
    if (inflater == NULL) return;
    inflateEnd((z_stream *)inflater);
    free(inflater);
}

/// Sets the whole input; `cdi_inflate` consumes it.
static inline void cdi_inflater_input(void *inflater, const unsigned char *input, unsigned int count) {
    z_stream *stream = (z_stream *)inflater;
    stream->next_in = (Bytef *)input;
    stream->avail_in = count;
}

/// Inflates into `output`; `*produced` is set to the bytes written. Returns zlib's status.
static inline int cdi_inflate(void *inflater, unsigned char *output, unsigned int capacity, unsigned int *produced) {
    z_stream *stream = (z_stream *)inflater;
    stream->next_out = output;
    stream->avail_out = capacity;
    int status = inflate(stream, Z_NO_FLUSH);
    *produced = capacity - stream->avail_out;
    return status;
}

static inline unsigned int cdi_inflater_pending_input(void *inflater) {
    return ((z_stream *)inflater)->avail_in;
}

/// The most bytes raw deflate can turn `count` bytes into.
static inline unsigned long cdi_deflate_bound(unsigned long count) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return count + count / 2 + 1024;
    unsigned long bound = deflateBound(&stream, count);
    deflateEnd(&stream);
    return bound;
}

/// Raw-deflates `input` into `output` in one call; `*written` is set to the bytes written.
/// Returns CDI_Z_STREAM_END when all of it fit.
static inline int cdi_deflate(const unsigned char *input, unsigned int count, unsigned char *output,
                              unsigned int capacity, unsigned long *written) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    int status = deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    if (status != Z_OK) return status;
    stream.next_in = (Bytef *)input;
    stream.avail_in = count;
    stream.next_out = output;
    stream.avail_out = capacity;
    status = deflate(&stream, Z_FINISH);
    *written = stream.total_out;
    deflateEnd(&stream);
    return status;
}

#include <zlib.h>

/// Wrapper around the inflateInit2() macro, which Swift cannot call: it passes
/// the zlib version and the size of z_stream that the library checks.
static inline int czlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

/// Wrapper around the deflateInit2() macro, which Swift cannot call.
static inline int czlib_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, strategy);
}
